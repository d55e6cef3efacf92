package logscan

import (
	"math"
	"strings"
)

// The cost model ranks literal sets by how many lines of a healthy
// training log they would let through. It is a rough model of log text,
// good enough to rank: a literal at a given position costs a number of
// bits (the rarer the text, the more bits), and a line has about
// positionsPerLine positions, so a literal of b bits passes about
// positionsPerLine/2^b of the lines. Words that fill training logs
// (loss, step, INFO, iteration ...) cost few bits whatever their length,
// digits and blanks little, uppercase and rare punctuation more. Only the
// ranking matters: every set the model compares is correct.

const positionsPerLine = 100

// commonWords are the words a training log is made of, with their cost in
// bits (about log2(positionsPerLine / share of lines holding the word)).
var commonWords = map[string]float64{
	"loss": 8, "step": 8, "steps": 8.5, "info": 7.5, "iteration": 8.5, "iter": 8.5, "epoch": 9,
	"rank": 8.5, "lr": 8, "grad": 8.5, "norm": 8.5, "nccl": 7.5, "time": 8.5, "train": 8.5,
	"training": 9, "samples": 9, "tokens": 9.5, "lm": 9, "scale": 9.5, "global": 9.5,
	"error": 11, "warning": 10, "warn": 10, "the": 7, "is": 7, "in": 6.5, "of": 7, "to": 7,
	"and": 8, "for": 8.5, "on": 7.5, "at": 7.5, "by": 8.5, "not": 9, "with": 8.5, "from": 9,
	"it": 7, "s": 5, "ms": 8.5, "per": 8.5, "sec": 8.5, "gpu": 9.5, "cuda": 10, "torch": 9.5,
	"using": 9, "channel": 9.5, "via": 9.5, "init": 10, "comm": 10, "rate": 9.5, "learning": 9.5,
	"batch": 9.5, "size": 9.5, "consumed": 10, "elapsed": 10, "skipped": 10, "number": 10,
	"throughput": 10, "memory": 10.5, "model": 10, "data": 10, "file": 10.5, "py": 8.5,
	"python": 10, "line": 10, "checkpoint": 11, "saving": 11, "eval": 10, "val": 9.5,
	"num": 9.5, "total": 10, "max": 9.5, "min": 9.5, "avg": 10, "mean": 10, "epochs": 10,
	"dataloader": 11, "worker": 10.5, "process": 10.5, "node": 10.5, "local": 10, "world": 10.5,
	"net": 9.5, "ib": 9, "socket": 10.5, "connected": 10.5, "ring": 10, "rings": 10.5,
	"tree": 10, "trees": 10.5, "p2p": 10, "read": 10, "userwarning": 11, "deprecated": 11,
	"default": 10, "version": 10.5, "config": 10.5, "set": 9, "found": 10.5, "no": 8,
	"exitcode": 14, "signal": 12, "inf": 10, "nan": 13, "none": 10.5, "rendezvous": 13,
	"elastic": 12, "agent": 12, "group": 11, "restart": 12, "master": 11, "addr": 11, "port": 11,
	"warmup": 12, "optimizer": 11.5, "scheduler": 12, "tokenizer": 12, "dataset": 11, "map": 10.5,
	"examples": 11, "proc": 11, "done": 11, "start": 11, "starting": 11.5, "finished": 12,
	"complete": 12, "cache": 11.5, "env": 11, "distributed": 11, "deepspeed": 11, "megatron": 12,
	"ray": 10.5, "pid": 10, "ip": 9.5, "actor": 12, "task": 12, "true": 10, "false": 10,
	"failed": 13, "timeout": 13, "deprecation": 12, "future": 12, "futurewarning": 12, "will": 10,
	"be": 8.5, "this": 9, "use": 9.5, "please": 11, "instead": 11, "an": 7, "or": 8, "if": 8.5,
}

// punctOnlyBits caps the cost of a literal made of punctuation and
// blanks only: such short sequences ("): ", "%|", " | ") are everywhere.
const punctOnlyBits = 8

// wordPieces maps every piece (of two bytes or more) of a common word to
// the cost of the cheapest common word it is part of.
var wordPieces = func() map[string]float64 {
	m := map[string]float64{}
	for w, b := range commonWords {
		for i := 0; i < len(w); i++ {
			for j := i + 2; j <= len(w); j++ {
				if p := w[i:j]; p != w {
					if old, ok := m[p]; !ok || b < old {
						m[p] = b
					}
				}
			}
		}
	}
	return m
}()

// litCost estimates the share of log lines that contain l and pass its
// checks.
func litCost(l lit) float64 {
	b := textBits(l.text, l.fold)
	if !hasAlnum(l.text) {
		b = math.Min(b, punctOnlyBits)
	}
	b += edgeBits(l.before) + edgeBits(l.after)
	return math.Min(1, positionsPerLine*math.Exp2(-b))
}

// textBits is the cost in bits of a literal's text: word by word, common
// words at their table cost; a word cut by the literal's edge ("oss" of
// "loss") is costed as the common word it may be part of.
func textBits(s string, fold bool) float64 {
	bits := 0.0
	for i := 0; i < len(s); {
		c := s[i]
		if !isAlnum(c) {
			bits += byteBits(c)
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		bits += wordBits(s[i:j], fold, i == 0 || j == len(s))
		i = j
	}
	return bits
}

func wordBits(w string, fold, atEdge bool) float64 {
	lw := strings.ToLower(w)
	if b, ok := commonWords[lw]; ok {
		return b
	}
	if atEdge {
		if b, ok := wordPieces[lw]; ok {
			return b
		}
	}
	bits := 0.0
	for i := 0; i < len(w); i++ {
		bits += byteBits(w[i])
		if !fold && 'A' <= w[i] && w[i] <= 'Z' {
			bits++ // exact case is rarer than either case
		}
	}
	return bits
}

func hasAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlnum(s[i]) {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// byteBits is the cost of one byte: about -log2 of its share of log text.
func byteBits(c byte) float64 {
	switch {
	case c == ' ':
		return 2.5
	case '0' <= c && c <= '9':
		return 3.3
	case strings.IndexByte("etaoinsrlh", lower(c)) >= 0:
		return 4
	case strings.IndexByte("cdumfpgwyb", lower(c)) >= 0:
		return 5
	case 'a' <= lower(c) && lower(c) <= 'z':
		return 6.5
	case strings.IndexByte(".,:=/-_'()[]|%", c) >= 0:
		return 5
	case c >= 0x80:
		return 3 // one byte of a multi-byte character
	}
	return 7
}

// edgeBits is what a check adds: the bits of the rarest way to pass it.
func edgeBits(e edge) float64 {
	switch e.kind {
	case edgeBoundary:
		return 1
	case edgeClass:
		share := 0.0
		for c := 0; c < 256; c++ {
			if e.want.has(byte(c)) {
				share += byteShare(byte(c))
			}
		}
		if e.atEdge {
			share += 0.02
		}
		if share >= 1 {
			return 0
		}
		return -math.Log2(share)
	}
	return 0
}

// byteShare is a byte's share of log text, for checks on single bytes.
func byteShare(c byte) float64 {
	switch {
	case c == ' ':
		return 0.15
	case 'a' <= c && c <= 'z':
		return 0.021
	case 'A' <= c && c <= 'Z':
		return 0.0025
	case '0' <= c && c <= '9':
		return 0.012
	case c >= 0x80:
		return 0.0005
	case c > ' ' && c < 0x7f:
		return 0.004
	}
	return 0.0002
}
