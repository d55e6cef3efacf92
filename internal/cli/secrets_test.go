package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/traindoc/traindoc/engine/explain/explaintest"
	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/render"
)

// seededSecret is one entry of engine/redact/testdata/seeded-secrets.yaml.
type seededSecret struct {
	Form   string   `json:"form"`
	Env    string   `json:"env"`
	Secret string   `json:"secret"`
	Also   []string `json:"also"`
	Text   string   `json:"text"`
}

func loadSecretCorpus(t *testing.T) []seededSecret {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "engine", "redact", "testdata", "seeded-secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []seededSecret
	if err := yaml.UnmarshalStrict(b, &corpus); err != nil {
		t.Fatal(err)
	}
	for _, s := range corpus {
		if s.Secret == "" || !strings.Contains(s.Text, s.Secret) {
			t.Fatalf("corpus entry %q: the secret must be part of the text", s.Form)
		}
	}
	return corpus
}

// secretJobs plants each corpus entry in a failing job of its own: log
// lines just before the error a rule quotes (and among the last lines the
// pod table shows), an event, the termination message, exec outputs, a
// container argument, an annotation and the environment.
func secretJobs(corpus []seededSecret) []hostileJob {
	var jobs []hostileJob
	for i, s := range corpus {
		var log strings.Builder
		log.WriteString("2026-03-14T11:00:05Z starting\n")
		if s.Env != "" {
			fmt.Fprintf(&log, "%s=%s\n", s.Env, s.Secret)
		}
		log.WriteString(s.Text + "\nTraceback (most recent call last):\n  File \"/workspace/train.py\", line 3, in <module>\n")
		log.WriteString(s.Text + "\nModuleNotFoundError: No module named 'deepspeed'\n" + s.Text + "\n")
		j := hostileJob{
			Namespace: "ml", Name: fmt.Sprintf("sec-%02d", i),
			Events:             []string{s.Text, "Back-off restarting failed container: " + s.Text},
			Log:                log.String(),
			TerminationMessage: s.Text,
			Exec:               map[string]string{"env.txt": s.Text + "\n", "nvidia-smi.txt": s.Text + "\n", "checkpoints.txt": s.Text + "\n"},
			Annotations:        map[string]string{"launch/command": s.Text},
			Args:               []string{"python", "train.py", s.Text},
		}
		if s.Env != "" {
			j.Env = [][2]string{{s.Env, s.Secret}}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

// secretsOf lists every value that must not appear.
func secretsOf(corpus []seededSecret) []string {
	var out []string
	for _, s := range corpus {
		out = append(out, s.Secret)
		out = append(out, s.Also...)
	}
	return out
}

// leaks returns the secrets that occur in text.
func leaks(text string, secrets []string) []string {
	var found []string
	for _, s := range secrets {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// checkNoLeak fails for every secret in text, and when text holds fewer
// than minMasks redaction marks (the evidence must be there, masked, for
// the absence of secrets to mean anything).
func checkNoLeak(t *testing.T, where, text string, secrets []string, minMasks int) {
	t.Helper()
	for _, s := range leaks(text, secrets) {
		i := strings.Index(text, s)
		t.Errorf("%s: secret %q leaks: …%s…", where, s, text[max(0, i-80):min(len(text), i+len(s)+20)])
	}
	if n := strings.Count(text, redact.Mask); n < minMasks {
		t.Errorf("%s: %d redaction marks, want at least %d (is the evidence there?)", where, n, minMasks)
	}
}

// checkTreeNoLeak checks every file under root.
func checkTreeNoLeak(t *testing.T, root string, secrets []string, minMasks int) {
	t.Helper()
	var all strings.Builder
	for _, rel := range treeOf(t, root) {
		if strings.HasSuffix(rel, "/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range leaks(string(b), secrets) {
			t.Errorf("%s: secret %q leaks", rel, s)
		}
		all.Write(b)
	}
	if n := strings.Count(all.String(), redact.Mask); n < minMasks {
		t.Errorf("%s: %d redaction marks in all files, want at least %d", root, n, minMasks)
	}
}

// TestSeededSecrets plants every secret form of the corpus in objects,
// events, logs and exec outputs, and proves that none appears in any
// output: every report format in every language, the report files, the
// site, the LLM request, the LLM cache and answer, the prompt command, and
// the watch command's output, state file and site.
func TestSeededSecrets(t *testing.T) {
	corpus := loadSecretCorpus(t)
	secrets := secretsOf(corpus)
	snap := t.TempDir()
	writeHostileSnapshot(t, snap, secretJobs(corpus)...)
	// A Secret object, as a careless "kubectl get all -o yaml" would save.
	var data strings.Builder
	for i, s := range secrets {
		fmt.Fprintf(&data, "  k%d: %q\n", i, s)
	}
	mustWrite(t, filepath.Join(snap, "secret.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: ml}\nstringData:\n"+data.String()))
	minMasks := len(corpus)

	for _, format := range render.Names() {
		t.Run("-o "+format, func(t *testing.T) {
			t.Parallel()
			langs := render.Languages
			if format != "markdown" && format != "html" {
				// The evidence is the same in every language; the
				// formats that word it differently run in all of them.
				langs = langs[:1]
			}
			for _, lang := range langs {
				r := runBounded(t, false, "diagnose", "--snapshot", snap, "-o", format, "--lang", lang, "--fail-on", "error")
				if r.code != exitFindings {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				want := minMasks
				if format == "text" || format == "table" || format == "junit" || format == "sarif" {
					want = 0 // summaries: the evidence lines are not all there
				}
				checkNoLeak(t, "-o "+format+" --lang "+lang, r.stdout, secrets, want)
				checkNoLeak(t, "stderr", r.stderr, secrets, 0)
			}
		})
	}
	t.Run("report --out", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "reports")
		r := runBounded(t, false, "report", "--snapshot", snap, "--out", out)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkTreeNoLeak(t, out, secrets, minMasks)
	})
	t.Run("site --out", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "site")
		saved := t.TempDir()
		r := runBounded(t, false, "site", "--snapshot", snap, "--out", out, "--save-report", saved)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkTreeNoLeak(t, out, secrets, minMasks)
		checkTreeNoLeak(t, saved, secrets, minMasks)
	})
	t.Run("llm", func(t *testing.T) {
		t.Parallel()
		srv := explaintest.New(t, explaintest.JSON)
		// The fake model repeats the prompt's user message back, so
		// that a secret in the prompt would also reach the answer, the
		// cache and the report.
		srv.Answer = func(req explaintest.ChatRequest) string {
			return fmt.Sprintf(`{"healthy":"No","error":"missing module","analysis":%q,"solution":["fix it"]}`, req.User())
		}
		cache := t.TempDir()
		r := runBounded(t, false, "diagnose", "--snapshot", snap, "-o", "json", "--llm",
			"--llm-base-url", srv.URL(), "--llm-model", "test-model", "--llm-api-key", "sk-test-key", "--llm-cache", cache)
		if r.code != exitOK && r.code != exitPartial {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		reqs := srv.Requests()
		if len(reqs) != len(corpus) {
			t.Errorf("%d requests for %d jobs", len(reqs), len(corpus))
		}
		var bodies strings.Builder
		for _, q := range reqs {
			bodies.Write(q.Body)
		}
		checkNoLeak(t, "LLM requests", bodies.String(), secrets, minMasks)
		checkNoLeak(t, "report with explanations", r.stdout, secrets, minMasks)
		checkTreeNoLeak(t, cache, secrets, 1)
	})
	t.Run("prompt", func(t *testing.T) {
		t.Parallel()
		r := runBounded(t, false, "prompt", "--snapshot", snap)
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkNoLeak(t, "prompt", r.stdout, secrets, minMasks)
	})
	t.Run("watch", func(t *testing.T) {
		t.Parallel()
		// Two rounds of the same snapshot, replayed.
		replay := t.TempDir()
		for _, round := range []string{"r1", "r2"} {
			if err := os.CopyFS(filepath.Join(replay, round), os.DirFS(snap)); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		state, site := filepath.Join(dir, "state.json"), filepath.Join(dir, "site")
		r := runBounded(t, false, "watch", "--replay", replay, "--state", state, "--site", site, "-o", "json")
		if r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkNoLeak(t, "watch output", r.stdout, secrets, 0)
		checkNoLeak(t, "watch log", r.stderr, secrets, 0)
		b, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		checkNoLeak(t, "watch state", string(b), secrets, 0)
		checkTreeNoLeak(t, site, secrets, minMasks)
	})
}
