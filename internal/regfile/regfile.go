// Package regfile opens files from a snapshot folder that may hold
// anything: named pipes, sockets, devices and symbolic link loops. Opening
// a named pipe for reading blocks until a writer appears, so a snapshot
// with one would hang the reader forever; only regular files are opened.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is returned for anything but a regular file (or a symbolic
// link to one).
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it is a regular file or a symbolic link
// to one. The type is checked before opening (so a pipe is never opened in
// the usual case) and again on the open file, which is opened without
// blocking where the system allows it, so a file swapped for a pipe in
// between cannot block either.
func Open(path string) (*os.File, os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(path, st)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, st)
	}
	return f, st, nil
}

// ReadFile reads a regular file whole, failing with a *TooLargeError when
// it holds more than max bytes (max < 0 means no bound). The size is
// checked before reading, so a huge file costs nothing.
func ReadFile(path string, max int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, st, path, max)
}

// readBounded reads an open file of the given stat whole, within max.
func readBounded(r io.Reader, st fs.FileInfo, name string, max int64) ([]byte, error) {
	if max >= 0 && st.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: &TooLargeError{Max: max}}
	}
	b, err := ReadAtMost(r, max)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// ReadAtMost reads r to its end, but never more than max+1 bytes, so a file
// that grows or lies about its size cannot make it allocate without bound.
// max < 0 means no bound.
func ReadAtMost(r io.Reader, max int64) ([]byte, error) {
	if max < 0 {
		return io.ReadAll(r)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Max: max}
	}
	return b, nil
}

// TooLargeError says a file holds more than Max bytes.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	if e.Max >= 1<<20 && e.Max%(1<<20) == 0 {
		return fmt.Sprintf("larger than %d MiB", e.Max>>20)
	}
	return fmt.Sprintf("larger than %d bytes", e.Max)
}

func notRegular(path string, st os.FileInfo) error {
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kindOf(st.Mode()))}
}

// Describe says why a file of mode m is not opened, for messages:
// "not a regular file (named pipe)".
func Describe(m os.FileMode) string {
	return ErrNotRegular.Error() + " (" + kindOf(m) + ")"
}

func kindOf(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "regular file"
	case m.IsDir():
		return "directory"
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "named pipe"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// OpenFS is Open for a file of fsys: only a regular file is opened, and it
// is checked again once open. For a folder of this machine, give DirFS,
// whose Open does not block on a named pipe swapped in between.
func OpenFS(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, notRegular(name, st)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(name, st)
	}
	return f, st, nil
}

// ReadFileFS is ReadFile for a file of fsys.
func ReadFileFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, st, err := OpenFS(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, st, name, max)
}

// DirFS is the folder dir as an fs.FS that a hostile folder cannot turn
// against its reader: every name is resolved inside dir through an
// os.Root, so neither a link nor ".." reaches outside it, and files are
// opened without blocking, so a named pipe cannot hang the reader. The
// root is opened per call rather than held, so that reading a thousand
// snapshots does not hold a thousand descriptors.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

func (d dirFS) root(op, name string) (*os.Root, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return os.OpenRoot(string(d))
}

func (d dirFS) Open(name string) (fs.File, error) {
	r, err := d.root("open", name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	r, err := d.root("stat", name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(name)
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r, err := d.root("readdir", name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return fs.ReadDir(r.FS(), name)
}
