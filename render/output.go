package render

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/internal/i18n"
)

// An Outputter writes a report in one format. Each format is one file of
// this package (out_<name>.go) that registers itself; the CLI asks the
// registry for the format the user named.
type Outputter interface {
	// Write renders rep to w.
	Write(w io.Writer, rep *report.Report, opts Options) error
}

// Format is one registered output format.
type Format struct {
	Name string
	// Aliases are other names for it ("md").
	Aliases []string
	// Summary says what it is for, for --help.
	Summary string
	Out     Outputter
}

var (
	formats []*Format
	byName  = map[string]*Format{}
)

// register adds a format; out_*.go files call it from init.
func register(f *Format) {
	for _, n := range append([]string{f.Name}, f.Aliases...) {
		if _, dup := byName[n]; dup {
			panic("render: format " + n + " registered twice")
		}
		byName[n] = f
	}
	formats = append(formats, f)
	sort.Slice(formats, func(a, b int) bool { return formatOrder(formats[a].Name) < formatOrder(formats[b].Name) })
}

// formatOrder lists formats in the order people meet them.
func formatOrder(name string) string {
	order := []string{"text", "table", "json", "markdown", "html", "sarif", "junit"}
	for i, n := range order {
		if n == name {
			return fmt.Sprintf("%02d", i)
		}
	}
	return "99" + name
}

// Names are the registered format names, in a stable order.
func Names() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.Name
	}
	return out
}

// Formats are the registered formats.
func Formats() []*Format { return append([]*Format(nil), formats...) }

// Get returns the outputter of format (a name or an alias).
func Get(format string) (Outputter, error) {
	f, ok := byName[format]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Names(), ", "))
	}
	return f.Out, nil
}

// Check validates the -o and --lang flags of a command, so that it can
// refuse them before it does any work.
func Check(format, lang string) error {
	if !ValidFormat(format) {
		return fmt.Errorf("-o %q: unknown output format (want one of %s)", format, strings.Join(Names(), ", "))
	}
	return CheckLang(lang)
}

// CheckLang validates a --lang flag.
func CheckLang(lang string) error {
	if !i18n.Valid(lang) {
		return fmt.Errorf("--lang %q: unknown language (want one of %s)", lang, strings.Join(i18n.Languages, ", "))
	}
	return nil
}

// Write renders rep in format to w.
func Write(w io.Writer, format string, rep *report.Report, opts Options) error {
	out, err := Get(format)
	if err != nil {
		return err
	}
	if rep == nil {
		return fmt.Errorf("render %s: no report", format)
	}
	if err := out.Write(w, rep, opts); err != nil {
		return fmt.Errorf("render %s: %w", format, err)
	}
	return nil
}

// writeBytes writes a rendered document.
func writeBytes(w io.Writer, b []byte, err error) error {
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ValidFormat reports whether format is a registered format.
func ValidFormat(format string) bool {
	_, ok := byName[format]
	return ok
}
