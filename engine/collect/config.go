package collect

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// InClusterContext is the context name reported when running inside a pod.
const InClusterContext = "in-cluster"

func clientConfig(kubeconfig, context string) clientcmd.ClientConfig {
	// The default rules read $KUBECONFIG (a list) or ~/.kube/config; an
	// explicit path replaces them, as kubectl's --kubeconfig does.
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
}

// BuildConfig resolves the REST config the way kubectl does: --kubeconfig,
// else $KUBECONFIG, else ~/.kube/config, with --context overriding the
// current context. When none of those exist and the process runs in a pod, it
// uses the pod's service account. It returns the config and the context name.
func BuildConfig(kubeconfig, context string) (*rest.Config, string, error) {
	cc := clientConfig(kubeconfig, context)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("load kubeconfig: %w", err)
	}
	name := context
	if name == "" {
		raw, err := cc.RawConfig()
		if err == nil {
			name = raw.CurrentContext
		}
	}
	if name == "" {
		// Deferred loading fell back to the in-cluster config.
		name = InClusterContext
	}
	cfg.UserAgent = "traindoc"
	return cfg, name, nil
}

// DefaultNamespace returns the namespace of the selected context (or of the
// pod's service account in a cluster), "default" when none is set.
func DefaultNamespace(kubeconfig, context string) string {
	ns, _, err := clientConfig(kubeconfig, context).Namespace()
	if err != nil || ns == "" {
		return "default"
	}
	return ns
}
