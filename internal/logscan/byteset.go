package logscan

import (
	"math/bits"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of byte values.
type byteSet [4]uint64

func (s *byteSet) add(b byte)          { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool     { return s[b>>6]&(1<<(b&63)) != 0 }
func (s byteSet) empty() bool          { return s == byteSet{} }
func (s byteSet) meets(o byteSet) bool { return s[0]&o[0]|s[1]&o[1]|s[2]&o[2]|s[3]&o[3] != 0 }
func (s byteSet) union(o byteSet) byteSet {
	return byteSet{s[0] | o[0], s[1] | o[1], s[2] | o[2], s[3] | o[3]}
}

func (s byteSet) count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

func (s *byteSet) addRange(lo, hi int) {
	for b := lo; b <= hi && b < 256; b++ {
		s.add(byte(b))
	}
}

// wordBytes are the bytes Go's \b considers word characters: ASCII only.
var wordBytes = func() byteSet {
	var s byteSet
	s.addRange('0', '9')
	s.addRange('A', 'Z')
	s.addRange('a', 'z')
	s.add('_')
	return s
}()

var nonWordBytes = byteSet{^wordBytes[0], ^wordBytes[1], ^wordBytes[2], ^wordBytes[3]}

func isWordByte(b byte) bool { return wordBytes.has(b) }

// runeBytes adds to first and last the bytes a rune's UTF-8 encoding may
// start and end with (the rune and, when fold, its case variants).
func runeBytes(r rune, fold bool, first, last *byteSet) {
	add := func(r rune) {
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		first.add(buf[0])
		last.add(buf[n-1])
	}
	add(r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			add(f)
		}
	}
}

// classBytes returns the first and last bytes of the UTF-8 encodings of
// the runes of a character class (ranges as in syntax.Regexp.Rune).
// Non-ASCII ranges are approximated by every lead or continuation byte,
// which only makes the sets larger, never wrong.
func classBytes(ranges []rune) (first, last byteSet) {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo < utf8.RuneSelf {
			first.addRange(int(lo), int(min(hi, utf8.RuneSelf-1)))
			last.addRange(int(lo), int(min(hi, utf8.RuneSelf-1)))
		}
		if hi >= utf8.RuneSelf {
			first.addRange(0xC0, 0xFF)
			last.addRange(0x80, 0xBF)
		}
	}
	return first, last
}

// nodeBytes returns the bytes a non-empty match of re may start and end
// with, and whether re matches the empty string. Zero-width assertions
// are ignored, which again only widens the sets.
func nodeBytes(re *syntax.Regexp) (first, last byteSet, nullable bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return first, last, true
		}
		fold := re.Flags&syntax.FoldCase != 0
		var ignore byteSet
		runeBytes(re.Rune[0], fold, &first, &ignore)
		runeBytes(re.Rune[len(re.Rune)-1], fold, &ignore, &last)
		return first, last, false
	case syntax.OpCharClass:
		first, last = classBytes(re.Rune)
		return first, last, len(re.Rune) == 0
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		all := byteSet{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		return all, all, false
	case syntax.OpCapture, syntax.OpPlus:
		return nodeBytes(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		first, last, _ = nodeBytes(re.Sub[0])
		return first, last, true
	case syntax.OpRepeat:
		first, last, nullable = nodeBytes(re.Sub[0])
		return first, last, nullable || re.Min == 0
	case syntax.OpConcat:
		nullable = true
		for _, s := range re.Sub {
			f, _, n := nodeBytes(s)
			first = first.union(f)
			if !n {
				nullable = false
				break
			}
		}
		for i := len(re.Sub) - 1; i >= 0; i-- {
			_, l, n := nodeBytes(re.Sub[i])
			last = last.union(l)
			if !n {
				break
			}
		}
		return first, last, nullable
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			f, l, n := nodeBytes(s)
			first, last = first.union(f), last.union(l)
			nullable = nullable || n
		}
		return first, last, nullable
	}
	// Empty match and assertions.
	return first, last, true
}

// starClass recognises x* where x is one character (a class, a single
// rune, or any character): it returns the bytes such a run may consist of.
func starClass(re *syntax.Regexp) (byteSet, bool) {
	if re.Op != syntax.OpStar {
		return byteSet{}, false
	}
	sub := re.Sub[0]
	switch sub.Op {
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
	case syntax.OpLiteral:
		if len(sub.Rune) != 1 {
			return byteSet{}, false
		}
	default:
		return byteSet{}, false
	}
	first, last, _ := nodeBytes(sub)
	// A multi-byte rune puts continuation bytes in the run too.
	return first.union(last), true
}
