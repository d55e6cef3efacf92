//go:build unix

package regfile

import "syscall"

// openFlags opens a named pipe without waiting for a writer; it changes
// nothing for a regular file.
const openFlags = syscall.O_NONBLOCK
