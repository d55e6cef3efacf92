// Package clustertest starts a real, throw-away Kubernetes control plane
// (etcd, kube-apiserver and kwok for kubelet behaviour) on random loopback
// ports and loads snapshot directories into it. The integration tests of the
// collector and the demo use it; the binaries come from hack/k8s-tools.
package clustertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// EnvBin names the directory holding kube-apiserver, etcd, kubectl and kwok.
const EnvBin = "TRAINDOC_K8S_BIN"

// EnvRequire, when set, turns a missing control plane into a test failure
// (and lets FindBin run the 5-minute build) instead of a skip.
const EnvRequire = "TRAINDOC_REQUIRE_CLUSTER"

// repoRoot walks up from the working directory to the directory holding
// hack/k8s-tools/go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "k8s-tools", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/k8s-tools/go.mod not found above the working directory")
		}
		dir = parent
	}
}

func hasBinaries(dir string) bool {
	for _, f := range []string{"kube-apiserver", "etcd", "kwok", "kwok-stages.yaml", "kwok-logs-crds.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// FindBin locates the control-plane binaries: $TRAINDOC_K8S_BIN, else the
// directory hack/k8s-tools/build.sh prints when it has nothing to do. It only
// runs a real build when $TRAINDOC_REQUIRE_CLUSTER is set, because a cold
// build takes minutes and a plain `go test ./...` should not.
func FindBin() (string, error) {
	if dir := os.Getenv(EnvBin); dir != "" {
		if !hasBinaries(dir) {
			return "", fmt.Errorf("%s=%s lacks kube-apiserver, etcd or kwok", EnvBin, dir)
		}
		return dir, nil
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "hack", "k8s-tools", "build.sh")
	if os.Getenv(EnvRequire) == "" {
		// Work out the directory without building: it is .cache/k8s-bin/<k8s version>.
		mod, err := os.ReadFile(filepath.Join(root, "hack", "k8s-tools", "go.mod"))
		if err != nil {
			return "", err
		}
		for _, line := range strings.Split(string(mod), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 && f[0] == "k8s.io/kubernetes" {
				dir := filepath.Join(root, ".cache", "k8s-bin", f[1])
				if hasBinaries(dir) {
					return dir, nil
				}
				return "", fmt.Errorf("no binaries in %s: run %s or set %s", dir, script, EnvBin)
			}
		}
		return "", errors.New("k8s.io/kubernetes version not found in hack/k8s-tools/go.mod")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s: %w\n%s", script, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// RequireBin returns the binaries directory, or skips the test under
// -short, or when they are missing and $TRAINDOC_REQUIRE_CLUSTER is not
// set.
func RequireBin(t testing.TB) string {
	t.Helper()
	// -short never starts a control plane, whatever is installed: it is
	// the quick loop, and these tests take minutes.
	if testing.Short() {
		t.Skip("skipping the real API server in -short mode")
	}
	dir, err := FindBin()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("control plane required (%s is set): %v", EnvRequire, err)
		}
		t.Skipf("skipping: no control-plane binaries (%v); set %s to require them", err, EnvRequire)
	}
	return dir
}

// User is an extra token-authenticated user, for RBAC tests.
type User struct {
	Name   string
	Groups []string
}

// Options configure Start.
type Options struct {
	// Users are created in the token file next to the admin; their tokens
	// are available through Cluster.ConfigFor.
	Users []User
	// NoKwok skips starting kwok (no node lifecycles, no container logs).
	NoKwok bool
}

// Cluster is a running control plane.
type Cluster struct {
	Bin, Dir string
	// Config authenticates as a member of system:masters.
	Config *rest.Config
	// Kubeconfig is a file for Config, for kubectl and kwok.
	Kubeconfig string
	// KubeletPort is where kwok serves the kubelet API (logs) on 127.0.0.1.
	KubeletPort int

	tokens map[string]string
	mu     sync.Mutex
	procs  map[string]*exec.Cmd
	// exited is closed when a component's process ends, so that waiting
	// for it stops at once instead of at the deadline.
	exited map[string]chan struct{}
}

// handedOut holds every port given to a control plane by this process.
// Parallel tests each start one, and a port the kernel frees when its probe
// listener closes could otherwise be handed to two of them.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePorts returns n distinct loopback ports no earlier call returned. The
// probe listeners stay open until all n are chosen, so the kernel cannot
// return one twice. Another process may still take a port before the
// component binds it; start notices that and retries.
func freePorts(n int) ([]int, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 100*n {
			return nil, errors.New("no free loopback port not handed out before")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		held = append(held, l)
		p := l.Addr().(*net.TCPAddr).Port
		if handedOut.ports[p] {
			continue
		}
		handedOut.ports[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}

// errExited marks a start that failed because a component ended early,
// almost always because another process took its port first: start is
// worth retrying on fresh ports.
var errExited = errors.New("component exited")

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start launches etcd, kube-apiserver and (unless NoKwok) kwok in a fresh
// temporary directory on free loopback ports, and stops them when the test
// ends. Parallel tests each get their own control plane.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bin := RequireBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for attempt := 1; ; attempt++ {
		c, err := start(ctx, bin, t.TempDir(), opts)
		if c != nil {
			t.Cleanup(c.Stop)
		}
		if err == nil {
			return c
		}
		if !errors.Is(err, errExited) || attempt == 3 {
			t.Fatalf("start control plane: %v", err)
		}
		t.Logf("start control plane, attempt %d: %v; retrying on other ports", attempt, err)
		c.Stop()
	}
}

func start(ctx context.Context, bin, dir string, opts Options) (*Cluster, error) {
	c := &Cluster{Bin: bin, Dir: dir, tokens: map[string]string{}, procs: map[string]*exec.Cmd{}, exited: map[string]chan struct{}{}}
	ports, err := freePorts(4)
	if err != nil {
		return nil, fmt.Errorf("free port: %w", err)
	}
	etcdPort, peerPort, apiPort := ports[0], ports[1], ports[2]
	c.KubeletPort = ports[3]

	if err := c.writeKeys(); err != nil {
		return nil, err
	}
	// token,user,uid,"group1,group2"
	admin := randomToken()
	c.tokens["admin"] = admin
	lines := []string{admin + ",admin,admin,system:masters"}
	for _, u := range opts.Users {
		tok := randomToken()
		c.tokens[u.Name] = tok
		line := tok + "," + u.Name + "," + u.Name
		if len(u.Groups) > 0 {
			line += `,"` + strings.Join(u.Groups, ",") + `"`
		}
		lines = append(lines, line)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}

	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	if err := c.spawn("etcd", filepath.Join(bin, "etcd"),
		"--name=t", "--data-dir="+filepath.Join(dir, "etcd"), "--log-level=warn",
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=t="+peerURL,
		// Tests write little; a small backend and no fsync pressure keep it light.
		"--quota-backend-bytes=1073741824", "--unsafe-no-fsync",
	); err != nil {
		return c, err
	}
	if err := c.spawn("kube-apiserver", filepath.Join(bin, "kube-apiserver"),
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(apiPort), "--cert-dir="+filepath.Join(dir, "certs"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(dir, "sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--token-auth-file="+filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		// Nothing creates the default ServiceAccount (no controller-manager).
		"--disable-admission-plugins=ServiceAccount",
		// 127.0.0.1 is not a valid endpoint address for the kubernetes service.
		"--endpoint-reconciler-type=none",
		// Node hostnames do not resolve; kwok's nodes advertise 127.0.0.1.
		"--kubelet-preferred-address-types=InternalIP",
	); err != nil {
		return c, err
	}

	c.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(apiPort),
		BearerToken:     admin,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             100,
		Burst:           200,
	}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, c.Config.Host, admin); err != nil {
		return c, err
	}
	if err := c.waitReady(ctx); err != nil {
		return c, err
	}
	if opts.NoKwok {
		return c, nil
	}
	crds, err := os.ReadFile(filepath.Join(bin, "kwok-logs-crds.yaml"))
	if err != nil {
		return c, err
	}
	if _, err := ApplyYAML(ctx, c.Config, crds); err != nil {
		return c, fmt.Errorf("install kwok CRDs: %w", err)
	}
	if err := WaitForResources(ctx, c.Config, "kwok.x-k8s.io/v1alpha1", "logs", "clusterlogs"); err != nil {
		return c, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(c.KubeletPort)
	if err := c.spawn("kwok", filepath.Join(bin, "kwok"),
		"--kubeconfig="+c.Kubeconfig, "--config="+filepath.Join(bin, "kwok-stages.yaml"),
		// Only nodes annotated as fake get kwok's lifecycle; fixture nodes keep
		// the status they were loaded with, but kwok still serves their logs.
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--node-ip=127.0.0.1", "--node-port="+strconv.Itoa(c.KubeletPort), "--server-address="+addr,
		"--tls-cert-file="+filepath.Join(dir, "kwok.crt"), "--tls-private-key-file="+filepath.Join(dir, "kwok.key"),
		"--enable-crds=Logs,ClusterLogs",
	); err != nil {
		return c, err
	}
	// A listening port is not enough: if another process took it first,
	// kwok has exited and the API server would proxy log requests to a
	// stranger. Only kwok holds the key for kwok.crt.
	if err := c.waitKwok(ctx, addr); err != nil {
		return c, fmt.Errorf("kwok: %w\n%s", err, c.Log("kwok"))
	}
	return c, nil
}

// writeKeys creates the service-account key pair and kwok's serving cert.
func (c *Cluster) writeKeys() error {
	run := func(args ...string) error {
		out, err := exec.Command("openssl", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("openssl %s: %w\n%s", args[0], err, out)
		}
		return nil
	}
	d := c.Dir
	if err := os.MkdirAll(filepath.Join(d, "certs"), 0o755); err != nil {
		return err
	}
	if err := run("genrsa", "-out", filepath.Join(d, "sa.key"), "2048"); err != nil {
		return err
	}
	if err := run("rsa", "-in", filepath.Join(d, "sa.key"), "-pubout", "-out", filepath.Join(d, "sa.pub")); err != nil {
		return err
	}
	return run("req", "-x509", "-newkey", "rsa:2048", "-nodes",
		"-keyout", filepath.Join(d, "kwok.key"), "-out", filepath.Join(d, "kwok.crt"),
		"-days", "2", "-subj", "/CN=kwok", "-addext", "subjectAltName=IP:127.0.0.1")
}

func writeKubeconfig(path, host, token string) error {
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: test, user: {token: %q}}]
contexts: [{name: test, context: {cluster: test, user: test}}]
current-context: test
`, host, token)
	return os.WriteFile(path, []byte(kc), 0o600)
}

func (c *Cluster) spawn(name, path string, args ...string) error {
	logf, err := os.Create(filepath.Join(c.Dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// kwok's informers use WatchList streams; etcd 3.7 supports them, so no
	// KUBE_FEATURE_WatchListClient override is needed.
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	done := make(chan struct{})
	c.mu.Lock()
	c.procs[name] = cmd
	c.exited[name] = done
	c.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	return nil
}

// running returns errExited (naming the component) once it has ended.
func (c *Cluster) running(name string) error {
	c.mu.Lock()
	done := c.exited[name]
	c.mu.Unlock()
	select {
	case <-done:
		return fmt.Errorf("%s: %w", name, errExited)
	default:
		return nil
	}
}

// Log returns the tail of a component's log, for failure messages.
func (c *Cluster) Log(name string) string {
	data, _ := os.ReadFile(filepath.Join(c.Dir, name+".log"))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return string(data)
}

func (c *Cluster) waitReady(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	var last error
	for {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			// An etcd that lost its port to another one exits within
			// milliseconds, and the API server would be using a stranger's.
			if err := c.running("etcd"); err != nil {
				return fmt.Errorf("%w\n%s", err, c.Log("etcd"))
			}
			return nil
		}
		last = err
		for _, name := range []string{"etcd", "kube-apiserver"} {
			if err := c.running(name); err != nil {
				return fmt.Errorf("%w (last: %v)\n%s", err, last, c.Log(name))
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready: %v\n%s", last, c.Log("kube-apiserver"))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitKwok waits until addr completes a TLS handshake with a certificate
// signed by kwok.crt, which only this cluster's kwok can present.
func (c *Cluster) waitKwok(ctx context.Context, addr string) error {
	pem, err := os.ReadFile(filepath.Join(c.Dir, "kwok.crt"))
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return errors.New("kwok.crt holds no certificate")
	}
	dialer := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}}
	for {
		conn, err := dialer.DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		if err := c.running("kwok"); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s does not serve kwok's certificate: %w", addr, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ConfigFor returns a REST config authenticating as one of Options.Users.
func (c *Cluster) ConfigFor(user string) *rest.Config {
	cfg := rest.CopyConfig(c.Config)
	cfg.BearerToken = c.tokens[user]
	return cfg
}

// Kill stops one component at once (SIGKILL), e.g. to simulate a lost API server.
func (c *Cluster) Kill(name string) {
	c.mu.Lock()
	cmd := c.procs[name]
	delete(c.procs, name)
	c.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// Stop kills every component. The data directory is temporary, so there is
// nothing to shut down cleanly, and SIGKILL saves seconds per test.
func (c *Cluster) Stop() {
	for _, name := range []string{"kwok", "kube-apiserver", "etcd"} {
		c.Kill(name)
	}
}
