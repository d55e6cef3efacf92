package render

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// A terminal lays text out in cells: a CJK character or an emoji takes
// two, a combining mark none. Columns are padded by cells, not bytes or
// runes, so that a Chinese table stays aligned.

// cellWidth is the number of terminal cells s takes.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	switch {
	case r == 0 || r == '\u200b' || r == '\u200d' || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\ufe0f':
		return 0
	case r < 0x20 || r == 0x7f:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	// Emoji presentation characters are wide in every terminal that
	// draws them.
	if r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF && unicode.Is(unicode.So, r) && r != 0x2713 {
		return 2
	}
	return 1
}

// padCells pads s with spaces to n cells.
func padCells(s string, n int) string {
	if w := cellWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// truncCells cuts s to at most n cells, marking the cut with "…".
func truncCells(s string, n int) string {
	if cellWidth(s) <= n {
		return s
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		c := runeCells(r)
		if w+c > n-1 {
			break
		}
		b.WriteRune(r)
		w += c
	}
	return b.String() + "…"
}

// table lays rows out in columns separated by two spaces, each column as
// wide as its widest cell. The last column is not padded.
func table(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], cellWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(padCells(c, widths[i]))
			b.WriteString("  ")
		}
		b.WriteString("\n")
	}
	return b.String()
}
