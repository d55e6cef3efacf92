package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/traindoc/traindoc/engine/explain/explaintest"
	"github.com/traindoc/traindoc/internal/clustertest"
)

// TestLivePromptConfigMap: `diagnose --prompt-configmap` against a live
// cluster saves the ConfigMap's templates in the snapshot it takes; the LLM
// step must render with them, so the snapshot has to outlive the diagnosis
// and be one of the snapshots the step reads. The temporary snapshot is
// still removed when the command ends.
func TestLivePromptConfigMap(t *testing.T) {
	clustertest.RequireBin(t)
	c := clustertest.Start(t, clustertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := clustertest.InstallCRDs(ctx, c.Config, "../../engine/collect/testdata/crds"); err != nil {
		t.Fatal(err)
	}
	if _, err := clustertest.LoadIntoCluster(ctx, c.Config, llmTestFixture, clustertest.LoadOptions{
		KubeletPort: c.KubeletPort, LogDir: filepath.Join(c.Dir, "cri-logs"),
	}); err != nil {
		t.Fatal(err)
	}
	const marker = "PROMPT FROM THE CONFIGMAP"
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ml-research", Name: "traindoc-prompts"},
		Data:       map[string]string{"pytorchjob.tmpl": marker + " for {{.Name}}"},
	}
	if _, err := kubernetes.NewForConfigOrDie(c.Config).CoreV1().ConfigMaps("ml-research").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	srv := explaintest.New(t, explaintest.JSON)
	srv.Delay = 0
	_, stderr, code := llmRun(t, "diagnose", "--kubeconfig", c.Kubeconfig, "-n", "ml-research",
		"--prompt-configmap", "ml-research/traindoc-prompts",
		"--llm", "--llm-base-url", srv.URL(), "--llm-model", "test-model", "--llm-api-key", "sk-test-key",
		"--llm-cache", "off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatalf("no LLM request; stderr: %s", stderr)
	}
	for _, r := range reqs {
		if want := marker + " for bert-large-pretrain"; !strings.Contains(r.Chat.User(), want) {
			t.Errorf("the prompt does not come from the ConfigMap (want %q):\n%.300s", want, r.Chat.User())
		}
	}
	// The temporary snapshot is gone once the command is done.
	left, _ := filepath.Glob(filepath.Join(tmp, "traindoc-snapshot-*"))
	if len(left) > 0 {
		t.Errorf("temporary snapshots left behind: %v", left)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal(err)
	}
}

func TestAtEnd(t *testing.T) {
	var order []int
	ctx, release := withCleanups(context.Background())
	atEnd(ctx, func() { order = append(order, 1) })
	atEnd(ctx, func() { order = append(order, 2) })
	if len(order) != 0 {
		t.Fatalf("ran before the end: %v", order)
	}
	release()
	release() // a second call finds nothing left to do
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Errorf("order = %v, want [2 1]", order)
	}
	ran := false
	atEnd(context.Background(), func() { ran = true })
	if !ran {
		t.Error("without a command context the cleanup must run at once")
	}
}
