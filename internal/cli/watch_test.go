package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const replays = "../../engine/watch/testdata/replay/"

func TestWatchReplayJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := runWith([]string{"watch", "--replay", replays + "nccl-restart", "-o", "json", "--restart",
		"--resume-arg", "exp_manager.resume_from_checkpoint={{.Checkpoint}}", "--log-level", "warn"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var types []string
	var restart map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		types = append(types, m["type"].(string))
		if m["action"] == "restart" {
			restart = m
		}
	}
	if got := strings.Join(types, ","); got != "observation,observation,observation,decision,observation,observation,decision" {
		t.Errorf("lines = %s", got)
	}
	if restart == nil || restart["job"] != "asr/conformer-xl" || restart["attempt"] != float64(1) {
		t.Errorf("restart decision = %v", restart)
	}
	// The warning-level log shows the restart, the info lines are gone.
	if !strings.Contains(errb.String(), "level=WARN msg=decision") || strings.Contains(errb.String(), "level=INFO") {
		t.Errorf("log:\n%s", errb.String())
	}
}

func TestWatchReplayStateAndSite(t *testing.T) {
	dir := t.TempDir()
	state, site := filepath.Join(dir, "state.json"), filepath.Join(dir, "site")
	var out, errb bytes.Buffer
	if code := runWith([]string{"watch", "--replay", replays + "stall", "--state", state, "--site", site}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(state)
	if err != nil || !strings.Contains(string(b), `"asr/conformer-xl"`) {
		t.Fatalf("state: %v %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(site, "index.html")); err != nil {
		t.Errorf("no site: %v", err)
	}
	// One line per job per change, in the text log.
	if n := strings.Count(errb.String(), "msg=\"job changed\""); n != 1 {
		t.Errorf("%d change lines:\n%s", n, errb.String())
	}
}

func TestWatchUsage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"command and resume arg", []string{"watch", "--replay", replays + "stall", "--restart", "--restart-command", "true", "--resume-arg", "x"}, "--restart-command"},
		{"replay and leader election", []string{"watch", "--replay", replays + "stall", "--leader-elect"}, "--replay reads saved rounds"},
		{"bad output", []string{"watch", "--replay", replays + "stall", "-o", "yaml"}, `-o "yaml"`},
		{"bad log level", []string{"watch", "--replay", replays + "stall", "--log-level", "loud"}, "--log-level"},
		{"template field", []string{"watch", "--replay", replays + "stall", "--restart", "--resume-arg", "{{.Secret}}"}, "Secret"},
		{"no replay folder", []string{"watch", "--replay", "testdata/nope"}, "testdata/nope"},
		{"no cluster", []string{"watch", "--kubeconfig", "testdata/nope.kubeconfig"}, "no cluster to watch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := runWith(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, errb.String(), tc.want)
			}
		})
	}
}

func TestWatchLogLevelFromEnvironment(t *testing.T) {
	t.Setenv("TRAINDOC_LOG_LEVEL", "error")
	var out, errb bytes.Buffer
	if code := runWith([]string{"watch", "--replay", replays + "missing-module"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if errb.Len() != 0 {
		t.Errorf("log at error level:\n%s", errb.String())
	}
}

func TestHealth(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runWith([]string{"health", "--snapshot", replays + "nccl-restart/r2", "conformer-xl"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"asr/conformer-xl (PyTorchJob, Running) healthy", "8 GPU(s), average 96.3%", "InfiniBand/RoCE", "step 10000 at /results/conformer-xl/checkpoints/", "Issues      none"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := runWith([]string{"health", "--snapshot", replays + "gpu-idle/r2", "-o", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var hs []map[string]any
	if err := json.Unmarshal(out.Bytes(), &hs); err != nil || len(hs) != 1 || hs[0]["primary"] != "progress.gpu-idle" {
		t.Errorf("json = %v %s", err, out.String())
	}
	if code := runWith([]string{"health", "--snapshot", replays + "gpu-idle/r2", "nope"}, &out, &errb); code != 2 {
		t.Errorf("unknown job: exit %d", code)
	}
}
