// Package ere rewrites the rules' Go (RE2) regular expressions in the
// dialect GNU grep -E and ripgrep both read, so that the same signatures
// can be fed to `grep -E -f` and `rg -f` and their counts compared with
// traindoc's own: POSIX extended syntax, plus \b \B \w \W \s \S, which both
// tools accept. What has no such spelling is rewritten: (?i) becomes
// [aA] brackets, \d becomes [0-9], non-capturing groups become plain
// ones, lazy repetition becomes greedy (a line matches either way).
// Matching is line by line in both tools, so a newline in a class is
// dropped.
package ere

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// Dialect is the tool a pattern is written for.
type Dialect int

const (
	// Grep is what GNU grep -E and ripgrep both read.
	Grep Dialect = iota
	// Ripgrep spells word boundaries and the \w and \s classes the
	// ASCII way, as Go means them: ripgrep's own are Unicode-aware, and a
	// Unicode word boundary keeps it off its fast engines.
	Ripgrep
)

// Translate rewrites one Go regular expression for grep -E (and
// ripgrep).
func Translate(pattern string) (string, error) { return TranslateFor(pattern, Grep) }

// TranslateFor rewrites one Go regular expression for a dialect.
func TranslateFor(pattern string, d Dialect) (string, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", pattern, err)
	}
	var b strings.Builder
	if err := (writer{d}).write(&b, re); err != nil {
		return "", fmt.Errorf("translate %q: %w", pattern, err)
	}
	return b.String(), nil
}

// escapes are the characters that are special outside brackets in both
// dialects.
const escapes = `.[]()*+?{}|^$\`

type writer struct{ d Dialect }

// named returns how the dialect spells a named class or assertion.
func (w writer) named(grep string) string {
	if w.d != Ripgrep {
		return grep
	}
	return map[string]string{
		`\b`: `(?-u:\b)`, `\B`: `(?-u:\B)`, `\w`: `[0-9A-Za-z_]`, `\W`: `[^0-9A-Za-z_]`,
		`\s`: `[\t\f\r ]`, `\S`: `[^\t\f\r ]`,
	}[grep]
}

func (w writer) write(b *strings.Builder, re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString("()")
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			writeRune(b, r, re.Flags&syntax.FoldCase != 0)
		}
	case syntax.OpCharClass:
		w.writeClass(b, re.Rune)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte('.')
	case syntax.OpBeginLine, syntax.OpBeginText:
		b.WriteByte('^')
	case syntax.OpEndLine, syntax.OpEndText:
		b.WriteByte('$')
	case syntax.OpWordBoundary:
		b.WriteString(w.named(`\b`))
	case syntax.OpNoWordBoundary:
		b.WriteString(w.named(`\B`))
	case syntax.OpCapture:
		b.WriteByte('(')
		if err := w.write(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		if err := w.writeAtom(b, re.Sub[0]); err != nil {
			return err
		}
		b.WriteByte(map[syntax.Op]byte{syntax.OpStar: '*', syntax.OpPlus: '+', syntax.OpQuest: '?'}[re.Op])
	case syntax.OpRepeat:
		if err := w.writeAtom(b, re.Sub[0]); err != nil {
			return err
		}
		switch {
		case re.Max == re.Min:
			fmt.Fprintf(b, "{%d}", re.Min)
		case re.Max < 0:
			fmt.Fprintf(b, "{%d,}", re.Min)
		default:
			fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpAlternate {
				b.WriteByte('(')
				if err := w.write(b, sub); err != nil {
					return err
				}
				b.WriteByte(')')
				continue
			}
			if err := w.write(b, sub); err != nil {
				return err
			}
		}
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			if err := w.write(b, sub); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("no equivalent for %s", re)
	}
	return nil
}

// writeAtom writes what a repetition applies to, grouped unless it is one
// character or already a group.
func (w writer) writeAtom(b *strings.Builder, re *syntax.Regexp) error {
	single := re.Op == syntax.OpCharClass || re.Op == syntax.OpAnyChar || re.Op == syntax.OpAnyCharNotNL ||
		re.Op == syntax.OpCapture || (re.Op == syntax.OpLiteral && len(re.Rune) == 1)
	if single {
		return w.write(b, re)
	}
	b.WriteByte('(')
	if err := w.write(b, re); err != nil {
		return err
	}
	b.WriteByte(')')
	return nil
}

func writeRune(b *strings.Builder, r rune, fold bool) {
	if fold {
		if variants := foldSet(r); len(variants) > 1 {
			b.WriteByte('[')
			for _, v := range variants {
				b.WriteRune(v)
			}
			b.WriteByte(']')
			return
		}
	}
	if r < 0x80 && strings.ContainsRune(escapes, r) {
		b.WriteByte('\\')
	}
	writeRaw(b, r)
}

// foldSet is r and the runes it equals when case is ignored, for
// letters only, without the fold-only runes of ASCII letters.
func foldSet(r rune) []rune {
	if !unicode.IsLetter(r) {
		return nil
	}
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if r < 0x80 && foldOnly[f] {
			continue
		}
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// writeRaw writes a rune that stands for itself; control characters,
// which a pattern file must not hold raw, are written as the character
// class that contains only them.
func writeRaw(b *strings.Builder, r rune) {
	if r == '\n' {
		b.WriteString(`[^\x00-\x{10FFFF}]`)
		return
	}
	b.WriteRune(r)
}

// foldOnly are the non-ASCII runes Go's case folding adds to ASCII
// letters; they are left out (see the package comment).
var foldOnly = map[rune]bool{'\u017f': true, '\u212a': true}

// Named classes both dialects know, as Go's parser spells them.
var (
	digit = []rune{'0', '9'}
	word  = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	space = []rune{'\t', '\t', '\f', '\r', ' ', ' '} // \n dropped
)

// bracketSpecial are characters that mean something inside brackets in
// one dialect or the other (ripgrep's set operators included); they are
// written outside, as alternatives.
const bracketSpecial = `\[]^-&~`

func (w writer) writeClass(b *strings.Builder, ranges []rune) {
	ranges = dropNewline(ranges)
	if len(ranges) > 0 && ranges[len(ranges)-1] == unicode.MaxRune {
		// A negated class: drop the fold-only runes from what it
		// excludes, so that the complement has none either.
		ranges = complement(dropRunes(complement(ranges), foldOnly))
	} else {
		ranges = dropRunes(ranges, foldOnly)
	}
	switch {
	case slices.Equal(ranges, digit):
		b.WriteString("[0-9]")
		return
	case slices.Equal(ranges, word):
		b.WriteString(w.named(`\w`))
		return
	case slices.Equal(ranges, space):
		b.WriteString(w.named(`\s`))
		return
	}
	neg := len(ranges) > 0 && ranges[len(ranges)-1] == unicode.MaxRune
	set := ranges
	if neg {
		set = dropNewline(complement(ranges))
		switch {
		case slices.Equal(set, word):
			b.WriteString(w.named(`\W`))
			return
		case slices.Equal(set, space):
			b.WriteString(w.named(`\S`))
			return
		case len(set) == 0:
			b.WriteByte('.') // anything but a newline
			return
		}
	}
	var members strings.Builder
	var specials []rune
	for i := 0; i+1 < len(set); i += 2 {
		lo, hi := set[i], set[i+1]
		for lo <= hi && strings.ContainsRune(bracketSpecial, lo) {
			specials = append(specials, lo)
			lo++
		}
		for hi >= lo && strings.ContainsRune(bracketSpecial, hi) {
			specials = append(specials, hi)
			hi--
		}
		if lo > hi {
			continue
		}
		if inner := specialsWithin(lo, hi); len(inner) > 0 {
			// A range spanning a special character: split around it.
			specials = append(specials, inner...)
			writeRanges(&members, splitAround(lo, hi, inner))
			continue
		}
		writeRanges(&members, []rune{lo, hi})
	}
	if neg {
		// Negated: the specials must be inside the brackets. ']' first
		// and '-' last are literal in both dialects; '^' after the first
		// place is too. A backslash, '[' and the set operators have no
		// spelling both read; Go's patterns in the rules have none.
		b.WriteString("[^")
		if slices.Contains(specials, ']') {
			b.WriteByte(']')
		}
		b.WriteString(members.String())
		for _, s := range specials {
			if s != ']' && s != '-' {
				b.WriteRune(s)
			}
		}
		if slices.Contains(specials, '-') {
			b.WriteByte('-')
		}
		b.WriteByte(']')
		return
	}
	alts := []string{}
	if members.Len() > 0 {
		alts = append(alts, "["+members.String()+"]")
	}
	for _, s := range specials {
		if strings.ContainsRune(escapes, s) {
			alts = append(alts, `\`+string(s))
		} else {
			alts = append(alts, string(s))
		}
	}
	if len(alts) == 1 {
		b.WriteString(alts[0])
		return
	}
	b.WriteString("(" + strings.Join(alts, "|") + ")")
}

func writeRanges(b *strings.Builder, rs []rune) {
	for i := 0; i+1 < len(rs); i += 2 {
		lo, hi := rs[i], rs[i+1]
		writeRaw(b, lo)
		switch {
		case hi == lo:
		case hi == lo+1:
			writeRaw(b, hi)
		default:
			b.WriteByte('-')
			writeRaw(b, hi)
		}
	}
}

func specialsWithin(lo, hi rune) []rune {
	var out []rune
	for _, s := range bracketSpecial {
		if s > lo && s < hi {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func splitAround(lo, hi rune, cuts []rune) []rune {
	var out []rune
	for _, c := range cuts {
		if lo <= c-1 {
			out = append(out, lo, c-1)
		}
		lo = c + 1
	}
	if lo <= hi {
		out = append(out, lo, hi)
	}
	return out
}

func complement(ranges []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i] > next {
			out = append(out, next, ranges[i]-1)
		}
		next = ranges[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

// dropRunes removes single runes from a class.
func dropRunes(ranges []rune, drop map[rune]bool) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := range drop {
			if lo <= r && r <= hi {
				if lo < r {
					out = append(out, lo, r-1)
				}
				lo = r + 1
			}
		}
		if lo <= hi {
			out = append(out, lo, hi)
		}
	}
	return out
}

// dropNewline removes '\n' from a class: input lines never contain one.
func dropNewline(ranges []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	return out
}
