// Package execout parses the outputs of commands run inside a pod, as
// saved in a snapshot under exec/<namespace>/<pod>/<name>.txt: nvidia-smi
// (plain table or CSV), `ray status`, `ray job list` and a checkpoint
// listing. They say whether a job that looks alive is really training: GPUs
// busy, Ray resources used, checkpoints advancing.
//
// Parsers are lenient: the formats drift between driver and Ray versions,
// so they pick out what they recognise and ignore the rest, and report an
// error only when nothing at all was recognised.
package execout

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/internal/regfile"
)

// maxExecFile bounds how much of one output file is read; the collector
// writes at most 1 MiB.
const maxExecFile = 4 << 20

// maxOtherText bounds the text kept for outputs that are not parsed.
const maxOtherText = 8 << 10

// ParseDir parses every *.txt file of dir (a pod's folder under <snapshot>/exec).
// Checkpoint times without a year (the default `ls -l` format) are left
// empty; use ParseDirAt to resolve them against the collection time.
func ParseDir(dir string) (*evidence.ExecOutputs, []error) {
	return ParseDirAt(dir, time.Time{})
}

// ParseDirAt is ParseDir with the time the outputs were collected, which
// resolves the year that `ls -l` omits for recent files. Files are named
// exec/<base name of dir>/<file>, as layout v1 has them.
func ParseDirAt(dir string, now time.Time) (*evidence.ExecOutputs, []error) {
	return parse(regfile.DirFS(dir), ".", "exec/"+filepath.Base(dir), now)
}

// ParseFS parses every *.txt file of the folder dir of fsys (a snapshot's
// exec/<namespace>/<pod>), naming the files by their path in fsys. Files
// that fail to parse are reported as errors naming the file and kept as
// ExecText, so that the evidence is not lost. It returns nil outputs when
// the folder has no *.txt file.
func ParseFS(fsys fs.FS, dir string, now time.Time) (*evidence.ExecOutputs, []error) {
	return parse(fsys, dir, dir, now)
}

// parse reads the folder dir of fsys and names its files below label.
func parse(fsys fs.FS, dir, label string, now time.Time) (*evidence.ExecOutputs, []error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, []error{fmt.Errorf("exec outputs %s: %w", label, err)}
	}
	var (
		names   []string
		skipped []error
	)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		// Regular files only: in a snapshot from elsewhere a symlink could
		// point anywhere and a FIFO would block. Either is named, not
		// silently left out.
		switch {
		case e.Type().IsRegular():
			names = append(names, e.Name())
		case e.Type()&fs.ModeSymlink != 0:
			skipped = append(skipped, fmt.Errorf("exec output %s: symbolic link, not followed", path.Join(label, e.Name())))
		case !e.IsDir():
			skipped = append(skipped, fmt.Errorf("exec output %s: %s, skipped", path.Join(label, e.Name()), regfile.Describe(e.Type())))
		}
	}
	if len(names) == 0 {
		return nil, skipped
	}
	sort.Strings(names)
	out := &evidence.ExecOutputs{}
	errs := skipped
	for _, name := range names {
		rel := path.Join(label, name)
		data, err := readLimited(fsys, path.Join(dir, name))
		if err != nil {
			errs = append(errs, fmt.Errorf("exec output %s: %w", rel, err))
			continue
		}
		if perr := parseOne(out, strings.TrimSuffix(name, ".txt"), rel, data, now); perr != nil {
			errs = append(errs, fmt.Errorf("exec output %s: %w", rel, perr))
			out.Other = append(out.Other, otherText(name, rel, data))
		}
	}
	return out, errs
}

func parseOne(out *evidence.ExecOutputs, base, rel string, data []byte, now time.Time) error {
	r := strings.NewReader(string(data))
	switch base {
	case "nvidia-smi":
		v, err := ParseNvidiaSMI(r)
		if err != nil {
			return err
		}
		v.File = rel
		out.NvidiaSMI = v
	case "ray-status":
		v, err := ParseRayStatus(r)
		if err != nil {
			return err
		}
		v.File = rel
		out.RayStatus = v
	case "ray-job-list":
		v, err := ParseRayJobList(r)
		if err != nil {
			return err
		}
		out.RayJobs = v
	case "checkpoints":
		v, err := ParseCheckpointsAt(r, now)
		if err != nil {
			return err
		}
		v.File = rel
		out.Checkpoints = v
	default:
		out.Other = append(out.Other, otherText(base+".txt", rel, data))
	}
	return nil
}

// readLimited reads at most maxExecFile bytes of a regular file; a named
// pipe would block the reader forever, so it is an error.
func readLimited(fsys fs.FS, name string) ([]byte, error) {
	f, _, err := regfile.OpenFS(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxExecFile))
	if err != nil {
		return nil, err
	}
	return data, nil
}

// otherText keeps an unparsed output: valid UTF-8, at most maxOtherText
// bytes, its head and its tail when longer (errors tend to be at the end).
func otherText(name, rel string, data []byte) evidence.ExecText {
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	return evidence.ExecText{Name: strings.TrimSuffix(name, ".txt"), File: rel, Text: trimMiddle(s, maxOtherText)}
}

func trimMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	marker := fmt.Sprintf("\n... %d bytes omitted ...\n", len(s)-max)
	half := (max - len(marker)) / 2
	head, tail := s[:half], s[len(s)-half:]
	// Cut on line boundaries when one is near, and never inside a rune.
	if i := strings.LastIndexByte(head, '\n'); i > half/2 {
		head = head[:i+1]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < half/2 {
		tail = tail[i+1:]
	}
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return head + marker + tail
}

// errUnrecognised is returned when a file holds nothing the parser knows.
var errUnrecognised = errors.New("output not recognised")

// lines splits text into lines without their line endings.
func lines(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxExecFile))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	s := strings.ToValidUTF8(string(data), "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Split(s, "\n"), nil
}

// quantity reads a size, a count or a percentage. Anything that is not a
// finite number ≥ 0 (NaN, Inf, more digits than a float64 holds, a
// negative value) reads as 0: evidence is encoded as JSON for the rules,
// and JSON has no NaN or Inf, so one such value would fail the diagnosis.
func quantity(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return finite(v)
}

// finite is v when it is a finite number ≥ 0, else 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0
	}
	return v
}

// count reads a number of nodes or processes: 0 when it is not a
// non-negative integer that fits an int.
func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// addCount adds non-negative counts without wrapping around.
func addCount(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

// mean is the average of vs, computed so that large values cannot
// overflow the sum.
func mean(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	var m float64
	for _, v := range vs {
		m += v / float64(len(vs))
	}
	return finite(m)
}
