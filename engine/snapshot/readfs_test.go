package snapshot

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"testing/fstest"
)

// mapFS copies a folder into memory, as an archive or an embedded fixture
// would hold it.
func mapFS(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = &fstest.MapFile{Data: b, Mode: 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// view is what a Snapshot says, without where it came from.
type view struct {
	Meta     []string
	Objects  []string
	Logs     map[string][]string
	Exec     map[string]string
	Warnings []string
}

func viewOf(s *Snapshot, pods [][2]string) view {
	v := view{Meta: []string{s.CollectedAt, s.Cluster, s.Context, s.Namespace}, Logs: map[string][]string{}, Exec: map[string]string{}, Warnings: s.Warnings}
	for _, o := range s.Objects {
		v.Objects = append(v.Objects, o.sortKey()+" "+o.File)
	}
	for _, p := range pods {
		k := p[0] + "/" + p[1]
		v.Logs[k] = logRels(s.PodLogs(p[0], p[1]))
		if d, ok := s.PodExec(p[0], p[1]); ok {
			v.Exec[k] = d
		}
	}
	return v
}

// TestReadFS: a snapshot read from an fs.FS is the snapshot read from the
// folder, and its files open through it.
func TestReadFS(t *testing.T) {
	pods := [][2]string{{"team-a", "train-master-0"}, {"team-b", "train-master-0"}, {"ml", "p1"}, {"ml", "p2"}, {"team-a", "solo-0"}}
	for _, name := range []string{"v2", "v1-ambiguous", "mixed"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			disk, err := Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			mem, err := ReadFS(mapFS(t, dir), "memory:"+name)
			if err != nil {
				t.Fatal(err)
			}
			if mem.Dir != "memory:"+name {
				t.Errorf("Dir = %q", mem.Dir)
			}
			want, got := viewOf(disk, pods), viewOf(mem, pods)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ReadFS differs from Read:\n got %+v\nwant %+v", got, want)
			}
			if len(want.Objects) == 0 || name == "v2" && len(want.Logs["team-a/train-master-0"]) == 0 {
				t.Fatal("nothing read: the comparison proves nothing")
			}
			for _, p := range pods {
				for _, ref := range mem.PodLogs(p[0], p[1]) {
					f, err := mem.Open(ref.Rel)
					if err != nil {
						t.Fatalf("open %s: %v", ref.Rel, err)
					}
					b, _ := io.ReadAll(f)
					f.Close()
					d, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref.Rel)))
					if string(b) != string(d) {
						t.Errorf("%s: read %d bytes, the file has %d", ref.Rel, len(b), len(d))
					}
				}
			}
		})
	}
}

// TestReadFSSpecial: entries of an fs.FS that are not regular files are
// named in warnings and never opened, as on disk.
func TestReadFSSpecial(t *testing.T) {
	pod := []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\n")
	fsys := fstest.MapFS{
		"pod.yaml":                 {Data: pod},
		"pipe.yaml":                {Mode: fs.ModeNamedPipe},
		"link.yaml":                {Data: []byte("pod.yaml"), Mode: fs.ModeSymlink},
		"logs/ns/p/main.log":       {Data: []byte("hello\n")},
		"logs/ns/p/side.log":       {Mode: fs.ModeNamedPipe},
		"exec/ns/p/ray-status.txt": {Data: []byte("x")},
	}
	s, err := ReadFS(fsys, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Objects) != 1 || s.Objects[0].Name != "p" {
		t.Errorf("objects = %d", len(s.Objects))
	}
	wantWarnings := []string{
		"link.yaml: symbolic link, not followed",
		"logs/ns/p/side.log: not a regular file (named pipe), skipped",
		"pipe.yaml: not a regular file (named pipe), skipped",
	}
	if !slices.Equal(s.Warnings, wantWarnings) {
		t.Errorf("warnings = %q, want %q", s.Warnings, wantWarnings)
	}
	if got := logRels(s.PodLogs("ns", "p")); !slices.Equal(got, []string{"logs/ns/p/main.log (main, false)"}) {
		t.Errorf("logs = %q", got)
	}
	if d, ok := s.PodExec("ns", "p"); !ok || d != "exec/ns/p" {
		t.Errorf("exec = %q, %v", d, ok)
	}
	if _, err := s.Open("pipe.yaml"); err == nil {
		t.Error("Open opened a named pipe")
	}
	if _, err := ReadFS(fstest.MapFS{"f": {Data: []byte("x")}}, "mem"); err != nil {
		t.Errorf("a folder without objects is an empty snapshot, not an error: %v", err)
	}
}

// TestEventsKeepTypedValueOnly: an event read from a List keeps its typed
// value and not its map, which a snapshot of 100,000 events would hold
// twice otherwise; other kinds keep both.
func TestEventsKeepTypedValueOnly(t *testing.T) {
	s, err := Read(filepath.Join("testdata", "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	events, pods := 0, 0
	for _, o := range s.Objects {
		switch o.Kind {
		case "Event":
			events++
			if o.Raw != nil || o.Event() == nil && o.EventV1() == nil {
				t.Errorf("event %s: Raw kept = %v, typed = %v", o.Name, o.Raw != nil, o.Event() != nil || o.EventV1() != nil)
			}
		case "Pod":
			pods++
			if o.Raw == nil || o.Pod() == nil {
				t.Errorf("pod %s lost its map or typed value", o.Name)
			}
		}
	}
	if events == 0 || pods == 0 {
		t.Fatalf("testdata/mixed has %d events and %d pods; the test needs both", events, pods)
	}
}
