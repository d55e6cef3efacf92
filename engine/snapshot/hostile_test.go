package snapshot

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocated returns how many bytes fn allocates on the heap in total.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// billionLaughs is the YAML form of the XML entity bomb: nine levels of
// nine aliases each would expand to 9^9 strings.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: lol}\n")
	b.WriteString(`l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + string(rune('0'+i-1))
		b.WriteString("l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [" + strings.Repeat(prev+",", 8) + prev + "]\n")
	}
	return b.String()
}

// TestParseObjectsHostile: inputs built to exhaust memory or the stack end
// as one warning naming the file, with a small, bounded allocation.
func TestParseObjectsHostile(t *testing.T) {
	const depth = 100_000
	tests := []struct {
		name string
		in   string
		want string // in the warning
	}{
		{"alias bomb", billionLaughs(), "excessive aliasing"},
		{"deep JSON arrays", strings.Repeat("[", depth) + strings.Repeat("]", depth), "max depth"},
		{"deep JSON objects", strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth), "max depth"},
		{"deep JSON in an object", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":` +
			strings.Repeat(`[`, depth) + strings.Repeat(`]`, depth) + "}", "max depth"},
		{"deep block sequences", strings.Repeat("- ", depth) + "x\n", "max depth"},
		{"deep flow mappings", strings.Repeat("{a: ", depth) + "b" + strings.Repeat("}", depth), "max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var objs []*Object
			var warns []string
			n := allocated(func() { objs, warns = parseObjects([]byte(tt.in), "bomb.yaml") })
			if len(objs) != 0 {
				t.Errorf("%d objects read from a hostile file", len(objs))
			}
			if len(warns) != 1 || !strings.HasPrefix(warns[0], "bomb.yaml: ") || !strings.Contains(warns[0], tt.want) {
				t.Errorf("warnings = %q, want one naming bomb.yaml and saying %q", warns, tt.want)
			}
			// The inputs are at most 500 KiB and cost under 8 MiB to
			// reject; a parser that expanded them would need gigabytes.
			if n > 64<<20 {
				t.Errorf("allocated %d MiB", n>>20)
			}
		})
	}
}

// TestReadHugeFile: a 2 GiB object file (sparse, so it costs no disk) is
// skipped by its size, without being read into memory.
func TestReadHugeFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\n"); err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(2 << 30)
	f.Close()
	if err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	var s *Snapshot
	n := allocated(func() {
		s, err = Read(dir)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || s.Warnings[0] != "big.yaml: larger than 256 MiB, skipped" {
		t.Errorf("warnings = %q", s.Warnings)
	}
	if len(s.Objects) != 0 {
		t.Errorf("objects = %d", len(s.Objects))
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MiB to skip a file by its size", n>>20)
	}
}
