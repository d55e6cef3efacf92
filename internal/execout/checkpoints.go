package execout

import (
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/traindoc/traindoc/engine/evidence"
)

// A checkpoint listing is what `ls -l` (or `ls -la --time-style=full-iso`,
// `gsutil ls -l`, `gcloud storage ls -l`, `aws s3 ls`) prints for the
// directory a trainer saves into, optionally followed by listings of some
// checkpoint folders ("DIR/step_1000:" sections, as ls prints for several
// directories or -R) and by the tracker files a framework keeps ("==> FILE
// <==" sections, as head prints for several files).
//
// Frameworks name checkpoints differently: step_N, checkpoint-N (Hugging
// Face), iter_0001000 (Megatron), global_stepN (DeepSpeed),
// epoch=E-step=S.ckpt (Lightning), checkpoint_000012 (Ray Train), N
// (Orbax). The newest complete one is the one a restart resumes from; a
// checkpoint still being written is not complete, and these say so:
//   - a temporary name: .tmp / -tmp / _tmp / .partial / .incomplete suffix,
//     tmp- prefix, Orbax's ".orbax-checkpoint-tmp-" folders;
//   - NeMo's "<checkpoint>-unfinished" marker file beside it;
//   - a missing completion marker where the framework writes one (Orbax
//     commit_success.txt, torch.distributed.checkpoint .metadata, the
//     Hugging Face Trainer's trainer_state.json, written last): when some
//     listed checkpoint folder holds the marker, a listed one without it is
//     incomplete;
//   - a tracker that names an older step: a `latest` symlink, DeepSpeed's
//     `latest` file holding the tag, Megatron's and verl's
//     latest_checkpointed_iteration.txt, Lightning's last.ckpt symlink;
//     without its content, a folder modified after the tracker was written;
//   - a step beyond the last save the logs report (ListingOptions).

var (
	// The step in the checkpoint names training frameworks use.
	ckptStep = regexp.MustCompile(`(?i)(?:step|checkpoint|ckpt|iter|iteration)[_=-]?(\d+)`)
	// Orbax names a step folder by the bare number.
	bareStep = regexp.MustCompile(`^\d+$`)
	// An `ls -l` entry: mode, links, owner, group, size, time, name.
	lsEntry = regexp.MustCompile(`^([-dlbcps][-rwxsStTl@+.]{9,}\S*)\s+\d+\s+\S+\s+\S+\s+[\d,.]+[KMGTP]?\s+(.+)$`)
	// Time styles: "Mar 14 09:00", "Mar 14  2025", long-iso, full-iso.
	lsDefaultTime = regexp.MustCompile(`^([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}:\d{2}|\d{4})\s+(.*)$`)
	lsISOTime     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})\s+(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(?:\s+([-+]\d{4}))?\s+(.*)$`)
	// `gsutil ls -l` / `gcloud storage ls -l`: size, RFC 3339 time, URL;
	// prefixes are listed as a bare URL ending in a slash.
	gsLong   = regexp.MustCompile(`^\s*(\d+)\s+(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\s+((?:gs|s3)://\S.*)$`)
	gsPrefix = regexp.MustCompile(`^\s*((?:gs|s3)://\S+)$`)
	// `aws s3 ls`: "PRE name/" for prefixes, "date time size key" for objects.
	s3Prefix = regexp.MustCompile(`^\s+PRE (.+)$`)
	s3Object = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\s+(\d+)\s+(.+)$`)
	// Section headers: "DIR:" (ls of several directories) and "==> FILE <=="
	// (head of several files).
	headHeader = regexp.MustCompile(`^==> (.+) <==$`)
	dirHeader  = regexp.MustCompile(`^(/\S*|[a-z][a-z0-9]*://\S*|\.{1,2}(?:/\S*)?|[\w.=-]+(?:/\S*)?):$`)
)

// Temporary names of checkpoints still being written.
var (
	tmpSuffixes = []string{".tmp", "-tmp", "_tmp", ".temp", ".partial", ".incomplete", ".inprogress", ".part"}
	tmpPrefixes = []string{"tmp-", "tmp_", ".tmp"}
	tmpInfixes  = []string{".orbax-checkpoint-tmp-"}
)

// unfinishedSuffix marks NeMo's "being saved" file beside a checkpoint.
const unfinishedSuffix = "-unfinished"

// completionMarkers are files a framework writes last into a checkpoint
// folder.
var completionMarkers = []string{"commit_success.txt", ".metadata", "trainer_state.json"}

// ListingOptions add what the listing alone cannot say.
type ListingOptions struct {
	// Now resolves the year `ls -l` omits for recent files; zero leaves
	// those times empty.
	Now time.Time
	// LastSavedStep is the newest step the logs report as saved; a
	// checkpoint beyond it is still being written.
	LastSavedStep *int64
}

// CheckpointListing is a parsed checkpoint listing.
type CheckpointListing struct {
	// Dir is the listed directory when the listing names it.
	Dir string
	// Entries are the checkpoints, by step then name.
	Entries []CheckpointEntry
	// Tracker is the framework's pointer to its newest checkpoint, when
	// listed.
	Tracker *CheckpointTracker
	// Latest is the newest complete entry.
	Latest *CheckpointEntry
}

// CheckpointEntry is one checkpoint: a folder or a file.
type CheckpointEntry struct {
	// Name is as listed; Path joins it to the listed directory, or is the
	// listed URL ("" when neither is known).
	Name string
	Path string
	Step int64
	// Time is the modification time (RFC 3339) when the listing shows it.
	Time string
	Dir  bool
	// Complete is false for a checkpoint still being written; Why says
	// which sign showed it.
	Complete bool
	Why      string

	contents     map[string]bool // listed files inside, nil when not listed
	latestInside string
}

// CheckpointTracker is a latest-pointer file or symlink.
type CheckpointTracker struct {
	Name string
	// Step is the step it names, when known.
	Step *int64
	Time string
}

// ParseCheckpoints parses a checkpoint listing. Times without a year are
// left empty; see ParseCheckpointsAt.
func ParseCheckpoints(r io.Reader) (*evidence.Checkpoints, error) {
	return ParseCheckpointsAt(r, time.Time{})
}

// ParseCheckpointsAt parses a checkpoint listing into what the rules read:
// the steps of the complete checkpoints, the newest complete step and its
// time. now (the collection time) resolves the year `ls -l` omits for
// recent files, as ls does (the most recent such date not after now); when
// now is zero those times are left empty rather than guessed.
//
// A listing of an empty or missing directory is a valid result with no
// steps.
func ParseCheckpointsAt(r io.Reader, now time.Time) (*evidence.Checkpoints, error) {
	l, err := ParseCheckpointListing(r, ListingOptions{Now: now})
	if err != nil {
		return nil, err
	}
	return l.Evidence(), nil
}

// Evidence is the rules' view of the listing.
func (l *CheckpointListing) Evidence() *evidence.Checkpoints {
	out := &evidence.Checkpoints{Steps: []int64{}}
	seen := map[int64]bool{}
	for _, e := range l.Entries {
		if e.Complete && !seen[e.Step] {
			seen[e.Step] = true
			out.Steps = append(out.Steps, e.Step)
		}
	}
	sort.Slice(out.Steps, func(i, j int) bool { return out.Steps[i] < out.Steps[j] })
	if l.Latest != nil {
		s := l.Latest.Step
		out.LatestStep, out.LatestTime = &s, l.Latest.Time
	}
	return out
}

// item is one listed file, folder or link before checkpoints are told
// apart.
type item struct {
	path   string // as complete as the listing allows
	time   string
	dir    bool
	target string // symlink target
}

type listingParser struct {
	opts     ListingOptions
	base     string // the first directory header, if any
	section  string // the current "DIR:" header
	items    []item
	contents map[string]string // head sections: file path -> first line
	headFile string
	inHead   bool
	known    bool
}

// ParseCheckpointListing parses a checkpoint listing and tells which
// checkpoints are complete.
func ParseCheckpointListing(r io.Reader, opts ListingOptions) (*CheckpointListing, error) {
	ls, err := lines(r)
	if err != nil {
		return nil, err
	}
	p := &listingParser{opts: opts, contents: map[string]string{}}
	for _, l := range ls {
		p.line(l)
	}
	if !p.known {
		return nil, fmt.Errorf("checkpoint listing: %w", errUnrecognised)
	}
	return p.build(), nil
}

func (p *listingParser) line(raw string) {
	t := strings.TrimRight(raw, " \t")
	if m := headHeader.FindStringSubmatch(strings.TrimSpace(t)); m != nil {
		p.known, p.inHead, p.headFile = true, true, m[1]
		return
	}
	if p.inHead {
		if strings.TrimSpace(t) == "" {
			p.inHead = false
			return
		}
		if _, ok := p.contents[p.headFile]; !ok {
			p.contents[p.headFile] = strings.TrimSpace(t)
		}
		return
	}
	s := strings.TrimSpace(t)
	switch {
	case s == "":
		return
	case strings.HasPrefix(s, "total ") || strings.HasPrefix(s, "TOTAL:") ||
		strings.HasPrefix(s, "ls: ") || strings.HasPrefix(s, "head: ") ||
		strings.Contains(s, "No such file or directory") || strings.Contains(s, "matched no objects"):
		p.known = true
		return
	}
	if m := dirHeader.FindStringSubmatch(s); m != nil {
		p.known = true
		p.section = strings.TrimSuffix(m[1], "/")
		if p.base == "" {
			// A listing that starts with a checkpoint's own folder is
			// based on its parent.
			p.base = p.section
			if _, ok := stepOf(path.Base(p.section)); ok {
				p.base = path.Dir(p.section)
			}
		}
		return
	}
	if m := lsEntry.FindStringSubmatch(s); m != nil {
		p.known = true
		when, name := splitLsTime(m[2], p.opts.Now)
		it := item{time: when, dir: m[1][0] == 'd'}
		if n, tgt, ok := strings.Cut(name, " -> "); ok {
			name, it.target = n, tgt
		}
		if name == "." || name == ".." {
			return
		}
		it.path = p.join(name)
		p.items = append(p.items, it)
		return
	}
	if m := gsLong.FindStringSubmatch(t); m != nil {
		p.known = true
		p.items = append(p.items, item{path: strings.TrimSuffix(m[3], "/"), time: m[2], dir: strings.HasSuffix(m[3], "/")})
		return
	}
	if m := gsPrefix.FindStringSubmatch(t); m != nil {
		p.known = true
		p.items = append(p.items, item{path: strings.TrimSuffix(m[1], "/"), dir: strings.HasSuffix(m[1], "/")})
		return
	}
	if m := s3Prefix.FindStringSubmatch(t); m != nil {
		p.known = true
		p.items = append(p.items, item{path: p.join(strings.TrimSuffix(m[1], "/")), dir: true})
		return
	}
	if m := s3Object.FindStringSubmatch(s); m != nil {
		p.known = true
		// aws prints the local time of the machine it ran on, without a
		// zone; the probe runs it in UTC containers.
		when := ""
		if tm, err := time.Parse("2006-01-02 15:04:05", m[1]); err == nil {
			when = tm.UTC().Format(time.RFC3339)
		}
		p.items = append(p.items, item{path: p.joinKey(m[3]), time: when})
	}
}

// join resolves a listed name against the current section's directory.
func (p *listingParser) join(name string) string {
	if p.section == "" || strings.Contains(name, "://") || strings.HasPrefix(name, "/") {
		return name
	}
	return p.section + "/" + name
}

// joinKey resolves a key of `aws s3 ls --recursive` (from the bucket's
// root) or of a plain `aws s3 ls` (relative to the listed prefix).
func (p *listingParser) joinKey(key string) string {
	if strings.Contains(key, "/") && strings.HasPrefix(p.section, "s3://") {
		rest := strings.TrimPrefix(p.section, "s3://")
		bucket, prefix, _ := strings.Cut(rest, "/")
		if prefix != "" && strings.HasPrefix(key, prefix+"/") {
			return "s3://" + bucket + "/" + key
		}
	}
	return p.join(key)
}

// split returns a path's components below the listing's base, and the
// prefix that rebuilds a full path from them.
func (p *listingParser) split(full, base string) (prefix string, parts []string) {
	if base != "" && strings.HasPrefix(full, base+"/") {
		return base, strings.Split(strings.TrimPrefix(full, base+"/"), "/")
	}
	if i := strings.Index(full, "://"); i >= 0 {
		rest := full[i+3:]
		bucket, key, _ := strings.Cut(rest, "/")
		if key == "" {
			return full, nil
		}
		return full[:i+3] + bucket, strings.Split(key, "/")
	}
	if strings.HasPrefix(full, "/") {
		return "/", strings.Split(full, "/")[1:]
	}
	// A bare name is in the listed directory.
	return base, strings.Split(full, "/")
}

// urlBase is the deepest folder holding every item of a URL listing.
func urlBase(items []item) string {
	var common []string
	for i, it := range items {
		if !strings.Contains(it.path, "://") {
			return ""
		}
		dir := path.Dir(strings.Replace(it.path, "://", ":/", 1))
		parts := strings.Split(dir, "/")
		if i == 0 {
			common = parts
			continue
		}
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	if len(common) < 2 {
		return ""
	}
	return strings.Replace(strings.Join(common, "/"), ":/", "://", 1)
}

// checkpointPart finds the component of a path that names a checkpoint:
// the first one carrying a step in a framework's naming, or a bare number
// directly in the listed directory (Orbax); topLevel says whether parts
// start there.
func checkpointPart(parts []string, topLevel bool) (int, int64, bool) {
	for i, c := range parts {
		if isMarkerName(c) {
			continue
		}
		if step, ok := stepOf(c); ok {
			return i, step, true
		}
		if i == 0 && topLevel {
			if name := stripTmp(c); bareStep.MatchString(name) {
				if v, err := strconv.ParseInt(name, 10, 64); err == nil {
					return i, v, true
				}
			}
		}
	}
	return 0, 0, false
}

func isMarkerName(name string) bool { return strings.HasSuffix(name, unfinishedSuffix) }

// stripTmp removes a temporary suffix or infix so that an Orbax temporary
// folder "1000.orbax-checkpoint-tmp-17" still reads as step 1000.
func stripTmp(name string) string {
	for _, inf := range tmpInfixes {
		if i := strings.Index(name, inf); i > 0 {
			return name[:i]
		}
	}
	for _, suf := range tmpSuffixes {
		if strings.HasSuffix(name, suf) {
			return strings.TrimSuffix(name, suf)
		}
	}
	return name
}

func temporaryName(name string) bool {
	for _, suf := range tmpSuffixes {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	for _, pre := range tmpPrefixes {
		if strings.HasPrefix(name, pre) {
			return true
		}
	}
	for _, inf := range tmpInfixes {
		if strings.Contains(name, inf) {
			return true
		}
	}
	return false
}

func (p *listingParser) build() *CheckpointListing {
	out := &CheckpointListing{Dir: p.base}
	base := p.base
	if base == "" {
		base = urlBase(p.items)
	}
	if base == "" {
		base = p.trackerDir()
	}
	out.Dir = base
	byPath := map[string]*CheckpointEntry{}
	var order []string
	unfinished := map[string]bool{}
	var trackers []item
	for _, it := range p.items {
		prefix, parts := p.split(it.path, base)
		if len(parts) == 0 {
			continue
		}
		last := parts[len(parts)-1]
		if len(parts) == 1 && isTrackerName(last, it.target != "") {
			trackers = append(trackers, it)
			continue
		}
		if isMarkerName(last) {
			unfinished[joinPath(prefix, append(parts[:len(parts)-1:len(parts)-1], strings.TrimSuffix(last, unfinishedSuffix)))] = true
			continue
		}
		topLevel := base != "" && strings.HasPrefix(it.path, base+"/") ||
			!strings.Contains(it.path, "://") && !strings.HasPrefix(it.path, "/")
		i, step, ok := checkpointPart(parts, topLevel)
		if !ok {
			continue
		}
		entryPath := joinPath(prefix, parts[:i+1])
		e := byPath[entryPath]
		if e == nil {
			e = &CheckpointEntry{Name: parts[i], Path: entryPath, Step: step, Complete: true}
			if prefix == "" {
				// A bare name: the directory is not known.
				e.Path = ""
			}
			byPath[entryPath] = e
			order = append(order, entryPath)
		}
		if i == len(parts)-1 {
			e.Time, e.Dir = cmpOr(it.time, e.Time), it.dir || e.Dir
			continue
		}
		// A file or folder inside the checkpoint; a folder on an object
		// store has no time of its own, its newest object stands for it.
		e.Dir = true
		if it.time > e.latestInside {
			e.latestInside = it.time
		}
		if e.contents == nil {
			e.contents = map[string]bool{}
		}
		e.contents[parts[i+1]] = true
	}
	for _, k := range order {
		e := byPath[k]
		if e.Time == "" {
			e.Time = e.latestInside
		}
		out.Entries = append(out.Entries, *e)
	}
	sort.SliceStable(out.Entries, func(a, b int) bool {
		if out.Entries[a].Step != out.Entries[b].Step {
			return out.Entries[a].Step < out.Entries[b].Step
		}
		return out.Entries[a].Name < out.Entries[b].Name
	})
	out.Tracker = p.tracker(trackers, base)
	p.judge(out, unfinished)
	// The newest complete step wins; among copies of one step (NeMo's
	// "-last" file beside the checkpoint) the first by name.
	for i := range out.Entries {
		e := out.Entries[i]
		if e.Complete && (out.Latest == nil || e.Step > out.Latest.Step) {
			out.Latest = &e
		}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func joinPath(prefix string, parts []string) string {
	rel := strings.Join(parts, "/")
	switch {
	case prefix == "":
		return rel
	case strings.HasSuffix(prefix, "/"):
		return prefix + rel
	}
	return prefix + "/" + rel
}

// isTrackerName tells the files that point at the newest checkpoint.
func isTrackerName(name string, link bool) bool {
	lower := strings.ToLower(name)
	switch {
	case lower == "latest_checkpointed_iteration.txt":
		return true
	case strings.HasPrefix(lower, "latest"):
		return true
	case lower == "last.ckpt" && link:
		return true
	}
	return false
}

// tracker reads the step a tracker names: a symlink's target, or the
// content head printed for it.
func (p *listingParser) tracker(ts []item, base string) *CheckpointTracker {
	var best *CheckpointTracker
	for _, it := range ts {
		name := path.Base(it.path)
		t := &CheckpointTracker{Name: name, Time: it.time}
		switch {
		case it.target != "":
			if s, ok := stepOf(path.Base(strings.TrimSuffix(it.target, "/"))); ok {
				t.Step = &s
			} else if b := path.Base(strings.TrimSuffix(it.target, "/")); bareStep.MatchString(b) {
				if v, err := strconv.ParseInt(b, 10, 64); err == nil {
					t.Step = &v
				}
			}
		default:
			if content, ok := p.content(it.path, name, base); ok {
				if s, ok := stepOf(content); ok {
					t.Step = &s
				} else if bareStep.MatchString(content) {
					if v, err := strconv.ParseInt(content, 10, 64); err == nil {
						t.Step = &v
					}
				}
			}
		}
		// A tracker whose step is known outranks one whose step is not.
		if best == nil || (best.Step == nil && t.Step != nil) {
			best = t
		}
	}
	return best
}

// trackerDir is the directory of a tracker file whose content head
// printed: the listed directory when the listing does not name it.
func (p *listingParser) trackerDir() string {
	var dirs []string
	for f := range p.contents {
		if isTrackerName(path.Base(f), false) && strings.HasPrefix(f, "/") {
			dirs = append(dirs, path.Dir(f))
		}
	}
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return ""
	}
	return dirs[0]
}

// content finds the head section of a tracker file by full path, or by
// name when the listing did not name its directory.
func (p *listingParser) content(full, name, base string) (string, bool) {
	if c, ok := p.contents[full]; ok {
		return c, true
	}
	for f, c := range p.contents {
		if path.Base(f) == name && (base == "" || path.Dir(f) == base) {
			return c, true
		}
	}
	return "", false
}

// judge marks the entries still being written.
func (p *listingParser) judge(l *CheckpointListing, unfinished map[string]bool) {
	markers := map[string]bool{}
	for _, e := range l.Entries {
		for _, m := range completionMarkers {
			if e.contents[m] {
				markers[m] = true
			}
		}
	}
	for i := range l.Entries {
		e := &l.Entries[i]
		why := ""
		switch {
		case temporaryName(e.Name):
			why = "temporary name"
		case unfinished[e.Path] || unfinished[e.Name]:
			why = "an " + unfinishedSuffix + " marker is beside it"
		case e.contents != nil && missingMarker(e.contents, markers) != "":
			why = "no " + missingMarker(e.contents, markers) + " inside"
		case l.Tracker != nil && l.Tracker.Step != nil && e.Step > *l.Tracker.Step:
			why = fmt.Sprintf("newer than %s (step %d)", l.Tracker.Name, *l.Tracker.Step)
		case l.Tracker != nil && l.Tracker.Step == nil && l.Tracker.Time != "" && e.Time != "" && e.Time > l.Tracker.Time:
			why = fmt.Sprintf("modified after %s was written", l.Tracker.Name)
		case p.opts.LastSavedStep != nil && e.Step > *p.opts.LastSavedStep:
			why = fmt.Sprintf("newer than the last save the logs report (step %d)", *p.opts.LastSavedStep)
		}
		if why != "" {
			e.Complete, e.Why = false, why
		}
	}
}

func missingMarker(contents, markers map[string]bool) string {
	for _, m := range completionMarkers {
		if markers[m] && !contents[m] {
			return m
		}
	}
	return ""
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
