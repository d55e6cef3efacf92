package render

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/traindoc/traindoc/engine/report"
)

// excerpt is a piece of evidence as a report shows it: the matched text
// with the log lines before and after it, the line to mark, and the frame
// of a traceback the error was raised in.
type excerpt struct {
	Text  string
	Lines int
	// Mark is the 1-based line of the excerpt that matched (the last line
	// of a multi-line match, where a traceback names the exception).
	Mark int
	// Frame is the innermost traceback frame above the matched line.
	Frame string
	// Trimmed counts lines of the matched text left out at the top.
	Trimmed  int
	CutLines bool
}

// pythonFrame matches the frame lines of a Python traceback, as printed
// by any interpreter and prefixed by torchrun's "[rankN]:" or a timestamp.
var pythonFrame = regexp.MustCompile(`File "[^"]+", line \d+, in \S+`)

func excerptOf(e report.Evidence) excerpt {
	t := trimEvidence(e.Text)
	var ex excerpt
	ex.Trimmed = t.TotalLines - t.ShownLines
	ex.CutLines = t.CutLines
	body := strings.Split(t.Text, "\n")
	lines := make([]string, 0, len(e.Before)+len(body)+len(e.After))
	for _, l := range e.Before {
		lines = append(lines, cutLine(l))
	}
	lines = append(lines, body...)
	ex.Mark = len(lines)
	for _, l := range e.After {
		lines = append(lines, cutLine(l))
	}
	for i := ex.Mark - 1; i >= 0; i-- {
		if m := pythonFrame.FindString(lines[i]); m != "" {
			ex.Frame = m
			break
		}
	}
	ex.Text = cleanControl(strings.Join(lines, "\n"))
	ex.Lines = len(lines)
	return ex
}

// cutLine shortens a very long context line in the middle; the matched
// text is cut by trimEvidence, which also says so.
func cutLine(l string) string {
	l = strings.TrimRight(l, "\r\n")
	if utf8.RuneCountInString(l) <= maxLineChars {
		return l
	}
	r := []rune(l)
	half := maxLineChars / 2
	return string(r[:half]) + " … " + string(r[len(r)-half:])
}
