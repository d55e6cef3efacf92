package explain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/traindoc/traindoc/engine/report"
)

// cacheVersion is part of every key; bump it when the cached shape or the
// meaning of a cached answer changes.
const cacheVersion = "traindoc-llm-cache/v1"

// cache stores explanations on disk keyed by what determines them: the
// endpoint, the model and the exact prompts. Same evidence, same prompts,
// same key, so a second run sends nothing. Only successful explanations are
// stored; a failure is retried on the next run.
type cache struct {
	dir string // empty: no cache
}

type cacheEntry struct {
	Version     string             `json:"version"`
	Model       string             `json:"model"`
	Explanation report.Explanation `json:"explanation"`
}

func cacheKey(endpoint, model, system, user string) string {
	h := sha256.New()
	for _, s := range []string{cacheVersion, endpoint, model, system, user} {
		// Length-prefixed so that no two different tuples hash alike.
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// get returns the cached explanation for key, if any. An unreadable or
// foreign entry is a miss.
func (c cache) get(key string) (*report.Explanation, bool) {
	if c.dir == "" {
		return nil, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Version != cacheVersion || e.Explanation.Missing != "" {
		return nil, false
	}
	x := e.Explanation
	x.Cached = true
	return &x, true
}

// put stores x atomically (write then rename), so a concurrent run never
// reads half an entry.
func (c cache) put(key string, x *report.Explanation) error {
	if c.dir == "" {
		return nil
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	e := cacheEntry{Version: cacheVersion, Model: x.Model, Explanation: *x}
	e.Explanation.Cached = false
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("llm cache: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("llm cache: write %s: %v", p, firstErr(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("llm cache: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
