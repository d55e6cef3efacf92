package logscan

import (
	"time"
)

// splitTimestamp recognises the RFC 3339 prefix that `kubectl logs
// --timestamps` adds ("2026-03-14T09:12:33.123456789Z text") and the CRI
// log format the kubelet writes on the node ("<time> stdout F text"). It
// returns the timestamp bytes (nil when there is none), the text after
// the prefix, and whether the CRI record is partial (tag P: the kubelet
// split a long line and the next record continues it).
//
// The check is a byte-shape test, not time.Parse, because it runs on every
// line; the few timestamps that are kept are parsed later.
func splitTimestamp(line []byte) (ts, rest []byte, partial bool) {
	n := rfc3339Len(line)
	if n == 0 || n >= len(line) || line[n] != ' ' {
		if n > 0 && n == len(line) {
			return line, nil, false
		}
		return nil, line, false
	}
	ts, rest = line[:n], line[n+1:]
	// CRI: "<stream> <tag> ".
	if len(rest) >= 9 && (string(rest[:7]) == "stdout " || string(rest[:7]) == "stderr ") {
		tagEnd := 7
		for tagEnd < len(rest) && rest[tagEnd] != ' ' && tagEnd < 16 {
			tagEnd++
		}
		tag := rest[7:tagEnd]
		if len(tag) > 0 && (tag[0] == 'F' || tag[0] == 'P') {
			partial = tag[0] == 'P'
			if tagEnd < len(rest) {
				rest = rest[tagEnd+1:]
			} else {
				rest = rest[tagEnd:]
			}
		}
	}
	return ts, rest, partial
}

// rfc3339Len returns the length of an RFC 3339 date-time at the start of
// b (with optional fraction and a Z or ±hh:mm offset), or 0.
func rfc3339Len(b []byte) int {
	if len(b) < 20 || !digits(b[0:4]) || b[4] != '-' || !digits(b[5:7]) || b[7] != '-' ||
		!digits(b[8:10]) || (b[10] != 'T' && b[10] != 't') || !digits(b[11:13]) || b[13] != ':' ||
		!digits(b[14:16]) || b[16] != ':' || !digits(b[17:19]) {
		return 0
	}
	i := 19
	if b[i] == '.' {
		j := i + 1
		for j < len(b) && j-i <= 9 && isDigit(b[j]) {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	if i >= len(b) {
		return 0
	}
	switch b[i] {
	case 'Z', 'z':
		return i + 1
	case '+', '-':
		if len(b) >= i+6 && digits(b[i+1:i+3]) && b[i+3] == ':' && digits(b[i+4:i+6]) {
			return i + 6
		}
	}
	return 0
}

// inlineTime recognises a time written by a logging library at the start
// of a line: "2026-03-14 09:12:33,123", "2026-03-14 09:12:33.123456",
// "[2026-03-14 09:12:33]" or "2026-03-14T09:12:33" without a zone.
// Such times carry no zone and are read as UTC, which is what containers
// almost always run in. It is used only for progress times when a line has
// no --timestamps prefix.
func inlineTime(b []byte) (time.Time, bool) {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	if len(b) > 0 && b[0] == '[' {
		b = b[1:]
	}
	if len(b) < 19 || !digits(b[0:4]) || b[4] != '-' || !digits(b[5:7]) || b[7] != '-' ||
		!digits(b[8:10]) || (b[10] != ' ' && b[10] != 'T') || !digits(b[11:13]) || b[13] != ':' ||
		!digits(b[14:16]) || b[16] != ':' || !digits(b[17:19]) {
		return time.Time{}, false
	}
	t := time.Date(atoi(b[0:4]), time.Month(atoi(b[5:7])), atoi(b[8:10]),
		atoi(b[11:13]), atoi(b[14:16]), atoi(b[17:19]), 0, time.UTC)
	if len(b) > 20 && (b[19] == ',' || b[19] == '.') {
		ns, scale := 0, 100000000
		for i := 20; i < len(b) && i < 29 && isDigit(b[i]); i++ {
			ns += int(b[i]-'0') * scale
			scale /= 10
		}
		t = t.Add(time.Duration(ns))
	}
	// time.Date normalises out-of-range fields; reject them instead.
	if t.Month() != time.Month(atoi(b[5:7])) || t.Day() != atoi(b[8:10]) {
		return time.Time{}, false
	}
	return t, true
}

// parseTimestamp parses a prefix found by splitTimestamp.
func parseTimestamp(ts []byte) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, string(ts))
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}

// formatTime is the one format every time leaves this package in: UTC,
// RFC 3339 with as many fraction digits as needed. It writes evidence for
// machines, which render.FormatTime later shows to people; the two share
// a name, not a meaning.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// formatTimestamp is formatTime of a log line's timestamp prefix, or "".
func formatTimestamp(ts []byte) string {
	if t, ok := parseTimestamp(ts); ok {
		return formatTime(t)
	}
	return ""
}

func digits(b []byte) bool {
	for _, c := range b {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func atoi(b []byte) int {
	n := 0
	for _, c := range b {
		n = n*10 + int(c-'0')
	}
	return n
}
