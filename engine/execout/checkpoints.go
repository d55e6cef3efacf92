package execout

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

var (
	// The step in the checkpoint names training frameworks use: step_1000,
	// step-1000, global_step1000 (DeepSpeed), checkpoint-1000 (Hugging
	// Face), iter_0001000 (Megatron), epoch=3-step=1200.ckpt (Lightning),
	// checkpoint_000012 (Ray Train).
	ckptStep = regexp.MustCompile(`(?i)(?:step|checkpoint|ckpt|iter|iteration)[_=-]?(\d+)`)
	// An `ls -l` entry: mode, links, owner, group, size, time, name.
	lsEntry = regexp.MustCompile(`^([-dlbcps][-rwxsStTl@+.]{9,}\S*)\s+\d+\s+\S+\s+\S+\s+[\d,.]+[KMGTP]?\s+(.+)$`)
	// Time styles: "Mar 14 09:00", "Mar 14  2025", long-iso, full-iso.
	lsDefaultTime = regexp.MustCompile(`^([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}:\d{2}|\d{4})\s+(.*)$`)
	lsISOTime     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})\s+(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:\s+([-+]\d{4}))?\s+(.*)$`)
)

// ParseCheckpoints parses an `ls -l` listing of a checkpoint directory.
// Times without a year are left empty; see ParseCheckpointsAt.
func ParseCheckpoints(r io.Reader) (*evidence.Checkpoints, error) {
	return ParseCheckpointsAt(r, time.Time{})
}

// ParseCheckpointsAt parses an `ls -l` listing of a checkpoint directory:
// the steps of the entries whose names carry one, the latest step (the
// target of a "latest" symlink when there is one, else the highest), and
// the modification time of the latest checkpoint. `ls -l` prints recent
// files without a year; now (the collection time) resolves it as ls does
// (the most recent such date not after now), and when now is zero those
// times are left empty rather than guessed.
//
// A listing of an empty or missing directory is a valid result with no
// steps.
func ParseCheckpointsAt(r io.Reader, now time.Time) (*evidence.Checkpoints, error) {
	ls, err := lines(r)
	if err != nil {
		return nil, err
	}
	out := &evidence.Checkpoints{Steps: []int64{}}
	times := map[int64]string{}
	var latestLink *int64
	recognised := false
	for _, l := range ls {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.HasPrefix(t, "total ") || strings.HasPrefix(t, "ls: ") || strings.Contains(t, "No such file or directory") {
			recognised = true
			continue
		}
		m := lsEntry.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		recognised = true
		when, name := splitLsTime(m[2], now)
		target := ""
		if n, tgt, ok := strings.Cut(name, " -> "); ok {
			name, target = n, tgt
		}
		if target != "" && strings.Contains(strings.ToLower(name), "latest") {
			if step, ok := stepOf(target); ok {
				latestLink = &step
			}
			continue
		}
		step, ok := stepOf(name)
		if !ok {
			continue
		}
		if _, dup := times[step]; !dup {
			out.Steps = append(out.Steps, step)
		}
		times[step] = when
	}
	if !recognised {
		return nil, fmt.Errorf("checkpoint listing: %w", errUnrecognised)
	}
	sort.Slice(out.Steps, func(i, j int) bool { return out.Steps[i] < out.Steps[j] })
	switch {
	case latestLink != nil:
		out.LatestStep = latestLink
	case len(out.Steps) > 0:
		v := out.Steps[len(out.Steps)-1]
		out.LatestStep = &v
	}
	if out.LatestStep != nil {
		out.LatestTime = times[*out.LatestStep]
	}
	return out, nil
}

// stepOf reads the step from a checkpoint name (the last match wins:
// "epoch=3-step=1200.ckpt" is step 1200).
func stepOf(name string) (int64, bool) {
	name = strings.TrimSuffix(strings.TrimSpace(name), "/")
	ms := ckptStep.FindAllStringSubmatch(name, -1)
	if len(ms) == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(ms[len(ms)-1][1], 10, 64)
	return v, err == nil
}

// splitLsTime splits the time columns off the rest of an entry and
// returns the time as RFC 3339 (empty when it cannot be known) and the
// name.
func splitLsTime(s string, now time.Time) (string, string) {
	if m := lsISOTime.FindStringSubmatch(s); m != nil {
		layout, value := "2006-01-02 15:04", m[1]+" "+m[2]
		switch strings.Count(m[2], ":") {
		case 2:
			layout = "2006-01-02 15:04:05.999999999"
		}
		loc := time.UTC
		if m[3] != "" {
			if t, err := time.Parse("-0700", m[3]); err == nil {
				loc = t.Location()
			}
		}
		if t, err := time.ParseInLocation(layout, value, loc); err == nil {
			return t.UTC().Format(time.RFC3339Nano), m[4]
		}
		return "", m[4]
	}
	if m := lsDefaultTime.FindStringSubmatch(s); m != nil {
		if strings.Contains(m[3], ":") {
			if now.IsZero() {
				return "", m[4]
			}
			t, err := time.Parse("Jan 2 15:04 2006", fmt.Sprintf("%s %s %s %d", m[1], m[2], m[3], now.Year()))
			if err != nil {
				return "", m[4]
			}
			// ls shows this style for files up to six months old; a date
			// after now belongs to last year.
			if t.After(now.Add(24 * time.Hour)) {
				t = t.AddDate(-1, 0, 0)
			}
			return t.Format(time.RFC3339), m[4]
		}
		if t, err := time.Parse("Jan 2 2006", m[1]+" "+m[2]+" "+m[3]); err == nil {
			return t.Format(time.RFC3339), m[4]
		}
		return "", m[4]
	}
	return "", s
}
