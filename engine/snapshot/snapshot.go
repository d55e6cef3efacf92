// Package snapshot reads a snapshot directory (docs/snapshot-layout.md):
// Kubernetes objects in any YAML or JSON file, logs, in-pod command outputs
// and snapshot.yaml. A file that cannot be read becomes a warning naming it;
// the rest of the snapshot is still read.
package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/internal/regfile"
)

// maxObjectFile bounds the size of one object file; logs have no bound
// because they are streamed, but objects are parsed whole. Parsing YAML
// (through JSON, then into typed core kinds) allocates about 45 times the
// file for kubectl output and up to about 170 times for dense flow YAML
// ("[1,1,1,...]"), so this bound is also what bounds memory.
const maxObjectFile = 256 << 20

// Snapshot is everything read from a snapshot directory.
type Snapshot struct {
	// Dir is the folder Read was given, or the name given to ReadFS; it
	// names the snapshot in messages and reports. Files are read through
	// FS, never by joining Dir.
	Dir string
	// CollectedAt is snapshot.yaml's collectedAt (RFC 3339), or "".
	CollectedAt string
	Cluster     string
	Context     string
	Namespace   string
	// Notes are snapshot.yaml's notes: what could not be collected.
	Notes []string
	// Missing is snapshot.yaml's structured list of what could not be
	// collected, each naming its namespace, pod and container where it
	// has one, so that each job can say what it was diagnosed without.
	Missing []Missing
	Objects []*Object
	// files indexes logs/ and exec/; see PodLogs and PodExec.
	files podFiles
	// Warnings name files that could not be read or were not understood.
	Warnings []string

	fsys   fs.FS
	closer io.Closer
}

// LogRef is one log file of a pod.
type LogRef struct {
	// Container is "" for logs/<pod>.log (layout v1: the pod's main container).
	Container string
	Previous  bool
	// Rel is the file's path in the snapshot (slash-separated); open it
	// with Snapshot.Open.
	Rel string
}

// Meta is the snapshot.yaml file.
type Meta struct {
	CollectedAt string    `json:"collectedAt"`
	Cluster     string    `json:"cluster"`
	Context     string    `json:"context"`
	Namespace   string    `json:"namespace"`
	Notes       notes     `json:"notes"`
	Missing     []Missing `json:"missing"`
}

// Missing is one thing a collector could not read. What is pods, events,
// logs, previous-logs, exec, nodes, quotas, jobs or cluster (the API server
// stopped answering); Namespace is empty for what is cluster-wide.
type Missing struct {
	What      string `json:"what"`
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Container string `json:"container,omitempty"`
	Reason    string `json:"reason"`
}

// notes accepts a list of strings or a single string.
type notes []string

func (n *notes) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = nil
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*n = notes{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*n = list
	return nil
}

// Files that belong to the layout or to test fixtures and hold no objects.
var nonObjectFiles = map[string]bool{
	"snapshot.yaml": true,
	// expected.yaml holds a fixture's expected diagnosis.
	"expected.yaml": true,
}

// Read reads the snapshot at dir: a folder, or a zip archive of one (which
// stays open until Close). It fails only when dir itself cannot be read;
// problems with single files become warnings. A folder's files are read
// through regfile.DirFS, so nothing outside it is reached and no named
// pipe is opened.
func Read(dir string) (*Snapshot, error) {
	fsys, closer, warnings, err := Open(dir)
	if err != nil {
		return nil, err
	}
	s, err := ReadFS(fsys, dir)
	if err != nil {
		if closer != nil {
			closer.Close()
		}
		return nil, err
	}
	s.closer = closer
	if len(warnings) > 0 {
		s.Warnings = append(s.Warnings, warnings...)
		sort.Strings(s.Warnings)
	}
	return s, nil
}

// Open gives the files of the snapshot at path, a folder or a zip archive
// of one, without reading them: for what needs one folder of a snapshot
// (the LLM explainer its prompts/). closer, when not nil, must be closed
// once the files are no longer read; warnings name archive entries that
// could not be placed where they claim to be.
func Open(path string) (fsys fs.FS, closer io.Closer, warnings []string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read snapshot: %w", err)
	}
	if st.IsDir() {
		return regfile.DirFS(path), nil, nil, nil
	}
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read snapshot %s: %w", path, err)
	}
	head := make([]byte, 4)
	if n, _ := f.ReadAt(head, 0); !isZip(head[:n]) {
		f.Close()
		return nil, nil, nil, fmt.Errorf("read snapshot %s: not a directory or a zip archive", path)
	}
	fsys, warnings, err = openZip(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return fsys, f, warnings, nil
}

// Close releases what Read holds open: the archive a snapshot was read
// from. Logs cannot be opened after it. It does nothing for a folder.
func (s *Snapshot) Close() error {
	if s.closer == nil {
		return nil
	}
	err := s.closer.Close()
	s.closer = nil
	return err
}

// ReadFS reads a snapshot from fsys, whose root is the snapshot folder: an
// archive, an embedded fixture or a test's fstest.MapFS. name stands for it
// in messages (Snapshot.Dir). Logs and command outputs are opened later,
// through the same fsys, so it must stay readable while the snapshot is
// used.
func ReadFS(fsys fs.FS, name string) (*Snapshot, error) {
	st, err := fs.Stat(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("read snapshot %s: not a directory", name)
	}
	s := &Snapshot{Dir: name, fsys: fsys, files: newPodFiles()}
	if err := s.readMeta(); err != nil {
		s.warn("%s: %v", "snapshot.yaml", err)
	}
	err = fs.WalkDir(fsys, ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			s.warn("%s: %v", rel, err)
			if d != nil && d.IsDir() && rel != "." {
				return fs.SkipDir
			}
			if rel == "." {
				return err
			}
			return nil
		}
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			switch {
			case rel == "logs":
				s.readLogs()
				return fs.SkipDir
			case rel == "exec":
				s.readExec()
				return fs.SkipDir
			case rel == "prompts":
				// Prompt templates: the explainer reads them (snapshot.Open).
				return fs.SkipDir
			case strings.HasPrefix(d.Name(), "."):
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		// A link is never followed, whatever its name: it may stand for a
		// folder of objects, and the reader must say what it left out.
		if d.Type()&fs.ModeSymlink != 0 {
			s.warnSpecial(rel, d.Type())
			return nil
		}
		switch strings.ToLower(path.Ext(rel)) {
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		if nonObjectFiles[rel] {
			return nil
		}
		if !d.Type().IsRegular() {
			s.warnSpecial(rel, d.Type())
			return nil
		}
		s.readObjects(rel)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	sort.SliceStable(s.Objects, func(a, b int) bool { return s.Objects[a].sortKey() < s.Objects[b].sortKey() })
	s.resolvePodFiles()
	sort.Strings(s.Warnings)
	return s, nil
}

// FS is the file system the snapshot was read from, rooted at the
// snapshot folder.
func (s *Snapshot) FS() fs.FS { return s.fsys }

// Open opens a file of the snapshot by its path in it (a LogRef's Rel, a
// file below PodExec's folder). Only regular files are opened.
func (s *Snapshot) Open(rel string) (fs.File, error) {
	f, _, err := regfile.OpenFS(s.fsys, rel)
	return f, err
}

func (s *Snapshot) warn(format string, args ...any) {
	s.Warnings = append(s.Warnings, fmt.Sprintf(format, args...))
}

// warnSpecial names a file that is skipped because it is not a regular
// file. Object files behind symbolic links are not followed: they could
// point anywhere on the machine reading the snapshot.
func (s *Snapshot) warnSpecial(rel string, mode fs.FileMode) {
	if mode&fs.ModeSymlink != 0 {
		s.warn("%s: symbolic link, not followed", rel)
		return
	}
	s.warn("%s: %s, skipped", rel, regfile.Describe(mode))
}

func (s *Snapshot) readMeta() error {
	b, err := regfile.ReadFileFS(s.fsys, "snapshot.yaml", maxObjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var m Meta
	if err := yaml.Unmarshal(b, &m); err != nil {
		return err
	}
	if m.CollectedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, m.CollectedAt)
		if err != nil {
			return fmt.Errorf("collectedAt %q is not an RFC 3339 time", m.CollectedAt)
		}
		s.CollectedAt = t.UTC().Format(time.RFC3339)
	}
	s.Cluster, s.Context, s.Namespace, s.Notes, s.Missing = m.Cluster, m.Context, m.Namespace, m.Notes, m.Missing
	return nil
}

// readObjects reads one object file. Only regular files are opened (a
// named pipe would block forever), and a file larger than maxObjectFile is
// skipped by its size, without being read.
func (s *Snapshot) readObjects(rel string) {
	b, err := regfile.ReadFileFS(s.fsys, rel, maxObjectFile)
	if err != nil {
		var tl *regfile.TooLargeError
		if errors.As(err, &tl) {
			s.warn("%s: %v, skipped", rel, tl)
			return
		}
		s.warn("%s: %v", rel, err)
		return
	}
	objs, warnings := parseObjects(b, rel)
	s.Objects = append(s.Objects, objs...)
	s.Warnings = append(s.Warnings, warnings...)
}

// parseObjects parses the bytes of one object file: a single object,
// several YAML documents, or a List, in YAML or JSON. rel names the file in
// the objects and in the warnings, which say what was not understood. It
// never fails: a file that is not YAML at all is one warning.
//
// The YAML parser bounds nesting depth and alias expansion (a "billion
// laughs" document is rejected after a few thousand nodes), so neither
// recursion below nor memory can run away on hostile input.
func parseObjects(b []byte, rel string) ([]*Object, []string) {
	p := &Snapshot{}
	if bytes.IndexByte(b, 0) >= 0 {
		p.warn("%s: binary data, not YAML or JSON", rel)
		return nil, p.Warnings
	}
	for i, d := range splitDocuments(b) {
		doc := i + 1
		raw, err := decodeDocument(d.text)
		if err != nil {
			p.warn("%s: %s", rel, yamlError(err, d.line))
			break
		}
		if raw == nil {
			continue
		}
		m, ok := raw.(map[string]any)
		if !ok {
			p.warn("%s: document %d is not a Kubernetes object", rel, doc)
			continue
		}
		if _, err := p.addObject(m, rel); err != nil {
			p.warn("%s: document %d: %v", rel, doc, err)
		}
	}
	return p.Objects, p.Warnings
}

// decodeDocument decodes one YAML or JSON document into JSON-like values
// (map[string]any, []any, string, int64, float64, bool, nil), the shape
// apimachinery's unstructured objects hold. JSON, by far the bulk of what
// kubectl and the collector write, is decoded directly; anything else, and
// JSON that does not parse, goes through the YAML parser, whose errors name
// the line.
func decodeDocument(b []byte) (any, error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return nil, nil
	}
	var v any
	if t[0] == '{' {
		if err := utiljson.Unmarshal(t, &v); err == nil {
			return v, nil
		}
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, err
	}
	if err := utiljson.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// document is one YAML document of a file and the line it starts on.
type document struct {
	text []byte
	line int
}

// splitDocuments cuts a file at its "---" separator lines, remembering
// where each document starts so that the parser's line numbers, which
// count from the document, can be made to count from the file.
func splitDocuments(b []byte) []document {
	var docs []document
	cur := document{line: 1}
	start, line := 0, 1
	for off := 0; off < len(b); line++ {
		end := bytes.IndexByte(b[off:], '\n')
		next := len(b)
		if end >= 0 {
			next = off + end + 1
		}
		if isSeparator(b[off:next]) {
			cur.text = b[start:off]
			docs = append(docs, cur)
			start = next
			cur = document{line: line + 1}
		}
		off = next
	}
	cur.text = b[start:]
	return append(docs, cur)
}

// isSeparator reports whether a line is a document separator: "---" alone
// or followed by a space and a comment or node, as YAML allows.
func isSeparator(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	if !ok {
		return false
	}
	return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r'
}

var yamlLine = regexp.MustCompile(`^line (\d+):`)

// yamlError gives the parser's message in the usual "line N: ..." form,
// N counted from the start of the file (first is the line the document
// starts on). The parser counts scanner errors from 1 but, for some
// structural errors, names the line before the one at fault; N is its
// number moved to the file, not a corrected one.
func yamlError(err error, first int) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			msg = fmt.Sprintf("line %d:%s", n+first-1, msg[len(m[0]):])
		}
	}
	return msg
}

func (s *Snapshot) addObject(m map[string]any, rel string) (int, error) {
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	if kind == "" || apiVersion == "" {
		return 0, fmt.Errorf("not a Kubernetes object (no kind/apiVersion)")
	}
	if strings.HasSuffix(kind, "List") {
		items, _ := m["items"].([]any)
		n := 0
		for i, it := range items {
			im, ok := it.(map[string]any)
			if !ok {
				return n, fmt.Errorf("items[%d] is not an object", i)
			}
			// kubectl omits kind/apiVersion in typed lists (PodList).
			if _, ok := im["kind"]; !ok && kind != "List" {
				im["kind"] = strings.TrimSuffix(kind, "List")
				im["apiVersion"] = apiVersion
			}
			c, err := s.addObject(im, rel)
			// The list no longer holds the item: an event's map can go
			// as soon as its typed value is made, not after the file.
			items[i] = nil
			if err != nil {
				return n, fmt.Errorf("items[%d]: %w", i, err)
			}
			n += c
		}
		return n, nil
	}
	o := newObject(m, rel)
	if o.Name == "" {
		return 0, fmt.Errorf("%s has no metadata.name", kind)
	}
	if err := o.decode(); err != nil {
		s.warn("%s: %v", rel, err)
	}
	s.Objects = append(s.Objects, o)
	return 1, nil
}
