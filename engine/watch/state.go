package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// StateVersion identifies the state file's shape.
const StateVersion = 1

// Bounds on what the state keeps per job, so that a long watch and a
// ConfigMap-backed state stay small.
const (
	maxHistory   = 24
	maxDecisions = 32
	// forgetAfter drops a job not seen for this long.
	forgetAfter = 7 * 24 * time.Hour
)

// State is what a watcher remembers between rounds and across its own
// restarts: each job's recent observations, the failures it already
// answered and the restarts it made.
type State struct {
	Version int                  `json:"version"`
	Jobs    map[string]*JobState `json:"jobs"`
}

// NewState returns an empty state.
func NewState() *State { return &State{Version: StateVersion, Jobs: map[string]*JobState{}} }

// JobState is one job's memory, keyed by namespace/name: a job recreated
// by a restart keeps its name and its memory.
type JobState struct {
	Kind string `json:"kind,omitempty"`
	// History are the latest observations, oldest first.
	History []Observation `json:"history,omitempty"`
	// Attempts counts the restarts made for this job.
	Attempts    int    `json:"attempts,omitempty"`
	LastRestart string `json:"lastRestart,omitempty"`
	// Failures are the failures seen, by "uid@time": a failure with a
	// final decision is never acted on again.
	Failures map[string]*Failure `json:"failures,omitempty"`
	// Decisions are the latest decisions, oldest first.
	Decisions []Decision `json:"decisions,omitempty"`
	// Pending is a restart decided and not yet known to be done: written
	// before the job is deleted, so a watcher killed in between finishes
	// it instead of losing the job or restarting twice.
	Pending *Pending `json:"pending,omitempty"`
	// Summarized is the UID whose final summary was given.
	Summarized string `json:"summarized,omitempty"`
	// Announced is the diagnosis last published as an Event ("uid
	// primary"); Annotated the category last written as an annotation.
	Announced string `json:"announced,omitempty"`
	Annotated string `json:"annotated,omitempty"`
	LastSeen  string `json:"lastSeen,omitempty"`
}

// Failure is a failure of one instance of a job.
type Failure struct {
	FirstSeen string `json:"firstSeen"`
	Category  string `json:"category"`
	// Action is the final decision taken ("" while waiting).
	Action string `json:"action,omitempty"`
	// Waited is set once a wait was announced.
	Waited bool `json:"waited,omitempty"`
}

// Pending is a restart in progress.
type Pending struct {
	Request RestartRequest `json:"request"`
	Since   string         `json:"since"`
}

// last returns the newest observation of the instance uid, or nil.
func (js *JobState) last(uid string) *Observation {
	if js == nil {
		return nil
	}
	for i := len(js.History) - 1; i >= 0; i-- {
		if js.History[i].UID == uid {
			return &js.History[i]
		}
	}
	return nil
}

// first returns the oldest kept observation of the instance uid that
// matches keep, or nil.
func (js *JobState) first(uid string, keep func(*Observation) bool) *Observation {
	if js == nil {
		return nil
	}
	for i := range js.History {
		if js.History[i].UID == uid && keep(&js.History[i]) {
			return &js.History[i]
		}
	}
	return nil
}

func (js *JobState) record(o Observation) {
	js.History = append(js.History, o)
	if n := len(js.History) - maxHistory; n > 0 {
		js.History = append([]Observation(nil), js.History[n:]...)
	}
	js.LastSeen = o.Time
}

func (js *JobState) decided(d Decision) {
	js.Decisions = append(js.Decisions, d)
	if n := len(js.Decisions) - maxDecisions; n > 0 {
		js.Decisions = append([]Decision(nil), js.Decisions[n:]...)
	}
}

// job returns the memory of key, creating it.
func (s *State) job(key string) *JobState {
	js := s.Jobs[key]
	if js == nil {
		js = &JobState{Failures: map[string]*Failure{}}
		s.Jobs[key] = js
	}
	if js.Failures == nil {
		js.Failures = map[string]*Failure{}
	}
	return js
}

// maxFailures bounds the failures remembered per job; old instances'
// failures cannot come back.
const maxFailures = 32

// prune forgets jobs not seen for a week, unless a restart is pending,
// and the oldest failures of a job beyond maxFailures.
func (s *State) prune(now time.Time) {
	for k, js := range s.Jobs {
		if n := len(js.Failures) - maxFailures; n > 0 {
			keys := make([]string, 0, len(js.Failures))
			for fk := range js.Failures {
				keys = append(keys, fk)
			}
			sort.Slice(keys, func(a, b int) bool { return js.Failures[keys[a]].FirstSeen < js.Failures[keys[b]].FirstSeen })
			for _, fk := range keys[:n] {
				delete(js.Failures, fk)
			}
		}
		if js.Pending != nil {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, js.LastSeen)
		if err == nil && now.Sub(t) > forgetAfter {
			delete(s.Jobs, k)
		}
	}
}

// Keys are the jobs in the state, sorted.
func (s *State) Keys() []string { return slices.Sorted(maps.Keys(s.Jobs)) }

// Store keeps the state between runs.
type Store interface {
	Load(ctx context.Context) (*State, error)
	Save(ctx context.Context, s *State) error
}

// MemoryStore keeps the state in memory (no --state).
type MemoryStore struct{ s *State }

// Load returns the state saved last, or an empty one.
func (m *MemoryStore) Load(context.Context) (*State, error) {
	if m.s == nil {
		return NewState(), nil
	}
	return clone(m.s)
}

// Save keeps a copy of s.
func (m *MemoryStore) Save(_ context.Context, s *State) error {
	c, err := clone(s)
	m.s = c
	return err
}

func clone(s *State) (*State, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return Decode(b)
}

// FileStore keeps the state in a JSON file, replaced atomically.
type FileStore struct{ Path string }

// Load reads the file; a missing file is an empty state.
func (f FileStore) Load(context.Context) (*State, error) {
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	s, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", f.Path, err)
	}
	return s, nil
}

// Save writes the state to a temporary file beside the target, syncs it
// and renames it over the target, so a crash leaves the old state or the
// new one, never half of one.
func (f FileStore) Save(_ context.Context, s *State) error {
	b, err := Encode(s)
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.Path)+".*")
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Encode serialises a state.
func Encode(s *State) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return append(b, '\n'), nil
}

// Decode parses a state; an unknown version is an error rather than a
// guess, so that an older traindoc never misreads what a newer one wrote.
func Decode(b []byte) (*State, error) {
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if s.Version != StateVersion {
		return nil, fmt.Errorf("decode state: version %d, want %d", s.Version, StateVersion)
	}
	if s.Jobs == nil {
		s.Jobs = map[string]*JobState{}
	}
	for _, js := range s.Jobs {
		if js.Failures == nil {
			js.Failures = map[string]*Failure{}
		}
	}
	return &s, nil
}
