package collect

import (
	"context"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// savePrompts copies the *.tmpl keys of the prompt ConfigMap to prompts/.
func (c *collector) savePrompts(ctx context.Context) {
	ns, name, ok := strings.Cut(c.opts.PromptConfigMap, "/")
	if !ok {
		ns, name = c.opts.Namespace, c.opts.PromptConfigMap
	}
	rctx, cancel := c.reqCtx(ctx)
	cm, err := c.c.core.CoreV1().ConfigMaps(ns).Get(rctx, name, metav1.GetOptions{})
	cancel()
	if err != nil {
		c.failed(ctx, err, "prompt configmap %s/%s not readable", ns, name)
		return
	}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		if strings.HasSuffix(k, ".tmpl") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, err := safeJoin(c.out, "prompts", k)
		if err != nil {
			c.note("prompt %s skipped: %v", k, err)
			continue
		}
		if err := writeFile(p, []byte(cm.Data[k])); err != nil {
			c.note("prompt %s not written: %v", k, err)
		}
	}
}
