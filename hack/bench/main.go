// Command bench measures traindoc on generated inputs and prints a table
// for the README: log scanning against GNU grep and ripgrep with the same
// patterns, whole commands on large jobs and fleets, the static site, and
// Rego per job. Inputs come from internal/benchgen with fixed seeds and
// are written once to a cache directory outside the repository
// ($TRAINDOC_BENCH_CACHE, else the user cache directory); later runs reuse
// them.
//
//	go run ./hack/bench            # everything, about ten minutes on 2 cores
//	go run ./hack/bench -quick     # small inputs, to try the harness
//	go run ./hack/bench -only scan,site
//
// Commands run in a fresh process each: the CLI compiled as its test
// binary (BenchmarkCLI runs the command line as main does), so that wall
// and CPU time and the peak resident set come from the operating system
// and the allocations from the Go runtime.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/internal/benchgen"
	"github.com/traindoc/traindoc/internal/logscan"
	"github.com/traindoc/traindoc/internal/regfile"
)

// genVersion names the generated data; bump it when a generator changes.
const genVersion = "v2"

type config struct {
	cache string
	quick bool
	only  map[string]bool
	root  string // repository root
	bin   string // CLI test binary
}

func main() {
	if len(os.Args) > 3 && os.Args[1] == "-child-gen" {
		if err := childGen(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "-child-scan" {
		if err := childScan(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	var only string
	flag.StringVar(&c.cache, "cache", "", "cache directory for generated inputs (default $TRAINDOC_BENCH_CACHE or the user cache directory)")
	flag.BoolVar(&c.quick, "quick", false, "small inputs (minutes become seconds), to try the harness")
	flag.StringVar(&only, "only", "", "comma-separated benchmarks: scan,rank512,fleet,snapshots,bigjob,site,rego")
	flag.Parse()
	if err := run(&c, only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// result is one row of the table.
type result struct {
	name, input        string
	wall, cpu          time.Duration
	throughput         string
	allocBytes, allocs int64 // -1 when not measured
	rssKiB             int64 // -1 when not measured
	note               string
}

func run(c *config, only string) error {
	var err error
	if c.root, err = repoRoot(); err != nil {
		return err
	}
	if c.cache == "" {
		c.cache = os.Getenv("TRAINDOC_BENCH_CACHE")
	}
	if c.cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no cache directory: %w (set TRAINDOC_BENCH_CACHE)", err)
		}
		c.cache = filepath.Join(base, "traindoc-bench")
	}
	if abs, _ := filepath.Abs(c.cache); strings.HasPrefix(abs+"/", c.root+"/") {
		return fmt.Errorf("cache %s is inside the repository; generated data never goes there", c.cache)
	}
	if c.quick {
		c.cache = filepath.Join(c.cache, "quick")
	}
	c.only = map[string]bool{}
	for _, o := range strings.Split(only, ",") {
		if o = strings.TrimSpace(o); o != "" {
			c.only[o] = true
		}
	}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return err
	}
	logf("cache: %s", c.cache)
	c.bin = filepath.Join(c.cache, "bin", "traindoc.test")
	logf("building the CLI test binary")
	if err := runIn(c.root, "go", "test", "-c", "-o", c.bin, "./internal/cli"); err != nil {
		return err
	}
	steps := []struct {
		name string
		fn   func(*config) ([]result, error)
	}{
		{"scan", benchScan}, {"rank512", benchRank512}, {"fleet", benchFleet}, {"snapshots", benchSnapshots},
		{"bigjob", benchBigJob}, {"site", benchSite}, {"rego", benchRego},
	}
	var rows []result
	start := time.Now()
	for _, s := range steps {
		if len(c.only) > 0 && !c.only[s.name] {
			continue
		}
		rs, err := s.fn(c)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		rows = append(rows, rs...)
		printTable(os.Stderr, rs)
	}
	fmt.Printf("`go run ./hack/bench%s` on %s, %d CPUs, %s, %s (whole run %s)\n\n",
		map[bool]string{true: " -quick", false: ""}[c.quick], runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(),
		runtime.Version(), time.Now().UTC().Format("2006-01-02"), time.Since(start).Round(time.Second))
	printTable(os.Stdout, rows)
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("find the module root: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func runIn(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// cached generates the data of spec (a JSON generator spec) in a child
// process unless a stamp says it is already there. Generating in a child
// keeps this process small: a child's peak RSS, as the kernel reports it,
// starts from the size of the process that started it.
func cached(c *config, key string, spec genSpec) (string, error) {
	dir := filepath.Join(c.cache, genVersion, key)
	stamp := dir + ".done"
	if _, err := os.Stat(stamp); err == nil {
		return dir, nil
	}
	logf("generating %s", key)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	t := time.Now()
	raw, err := json.Marshal(spec)
	if err != nil {
		return "", err
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(self, "-child-gen", dir, string(raw))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("generate %s: %w", key, err)
	}
	if spec.Report {
		snaps := []string{filepath.Join(dir, "snapshot")}
		if spec.Snapshots > 0 {
			snaps = snaps[:0]
			for i := range spec.Snapshots {
				snaps = append(snaps, filepath.Join(dir, fmt.Sprintf("snap-%04d", i)))
			}
		}
		if err := diagnoseToFile(c, snaps, filepath.Join(dir, "report.json")); err != nil {
			return "", err
		}
	}
	logf("generated %s in %s", key, time.Since(t).Round(time.Millisecond))
	return dir, os.WriteFile(stamp, nil, 0o644)
}

// genSpec says what to generate: a log, a snapshot, or many snapshots.
type genSpec struct {
	Log       *benchgen.LogOptions `json:",omitempty"`
	Fleet     *benchgen.Fleet      `json:",omitempty"`
	Snapshots int                  `json:",omitempty"` // this many snapshots of Fleet, seeds and names varied
	// Report also saves the diagnosis of the snapshot as report.json
	// (the fleet is then written to <dir>/snapshot).
	Report bool `json:",omitempty"`
}

func childGen(dir, raw string) error {
	var spec genSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		return err
	}
	switch {
	case spec.Log != nil:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, "train.log"))
		if err != nil {
			return err
		}
		err = benchgen.WriteLog(f, *spec.Log)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	case spec.Snapshots > 0:
		for i := range spec.Snapshots {
			f := *spec.Fleet
			f.Seed += uint64(i)
			f.JobPrefix = fmt.Sprintf("%s%04d", f.JobPrefix, i)
			if i%10 == 9 {
				f.FailEvery = 1
			}
			if err := benchgen.WriteSnapshot(filepath.Join(dir, fmt.Sprintf("snap-%04d", i)), f); err != nil {
				return err
			}
		}
		return nil
	case spec.Report:
		return benchgen.WriteSnapshot(filepath.Join(dir, "snapshot"), *spec.Fleet)
	}
	return benchgen.WriteSnapshot(dir, *spec.Fleet)
}

// diagnoseToFile saves the JSON report of snapshots, diagnosed together.
func diagnoseToFile(c *config, snaps []string, path string) error {
	logf("diagnosing %d snapshots for a saved report", len(snaps))
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	args := []string{"run", "./cmd/traindoc", "diagnose", "-o", "json"}
	for _, s := range snaps {
		args = append(args, "--snapshot", s)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = c.root, out, os.Stderr
	if err := cmd.Run(); err != nil && (cmd.ProcessState == nil || !slices.Contains([]int{1, 3}, cmd.ProcessState.ExitCode())) {
		return err
	}
	return nil
}

// --- Log scanning ---------------------------------------------------------

func benchScan(c *config) ([]result, error) {
	size := int64(1 << 30)
	if c.quick {
		size = 64 << 20
	}
	dir, err := cached(c, fmt.Sprintf("scan-%d", size), genSpec{Log: &benchgen.LogOptions{
		Size: size, Seed: 42, Host: "llama-worker-3", RankBase: 24, Ending: benchgen.CUDAOOM, Timestamps: true,
	}})
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "train.log")
	st, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	mb := float64(st.Size()) / 1e6
	input := fmt.Sprintf("%.0f MB log, full signature set + progress patterns", mb)
	patterns, rgPatterns := filepath.Join(c.cache, "patterns.txt"), filepath.Join(c.cache, "patterns-rg.txt")
	if err := writePatterns(c, patterns, "grep"); err != nil {
		return nil, err
	}
	if err := writePatterns(c, rgPatterns, "rg"); err != nil {
		return nil, err
	}
	n := countLines(patterns)
	// Warm the page cache so that every reader starts alike (the output
	// goes to the null device, never into this process: a child's peak
	// RSS starts from this process's size).
	if err := exec.Command("cat", file).Run(); err != nil {
		logf("warming the page cache: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	td, err := measure(self, []string{"-child-scan", file}, nil)
	if err != nil {
		return nil, err
	}
	var stats childStats
	if err := json.Unmarshal(td.stdout, &stats); err != nil {
		return nil, fmt.Errorf("child scan said %q: %w", td.stdout, err)
	}
	rows := []result{{
		name: "scan: traindoc", input: input, wall: td.wall, cpu: td.cpu,
		throughput: fmt.Sprintf("%.0f MB/s", mb/td.wall.Seconds()), allocBytes: stats.AllocBytes, allocs: stats.Allocs, rssKiB: td.rssKiB,
		note: fmt.Sprintf("%d signatures and progress patterns", n),
	}}
	tools := []struct {
		name, bin string
		args      []string
		env       []string
	}{
		{"scan: GNU grep -E -c -f (C locale)", "grep", []string{"-E", "-c", "-f", patterns, file}, []string{"LC_ALL=C"}},
		{"scan: ripgrep -c -f", "rg", []string{"--no-config", "-c", "-f", rgPatterns, file}, nil},
	}
	ensureRipgrep()
	for _, t := range tools {
		bin, err := exec.LookPath(t.bin)
		if err != nil {
			rows = append(rows, result{name: t.name, input: input, allocBytes: -1, allocs: -1, rssKiB: -1, note: "not installed: skipped"})
			continue
		}
		m, err := measure(bin, t.args, t.env)
		if err != nil && m.exit != 1 { // 1: no line matched
			return nil, fmt.Errorf("%s: %w: %s", t.name, err, m.stderr)
		}
		rows = append(rows, result{
			name: t.name, input: input, wall: m.wall, cpu: m.cpu, throughput: fmt.Sprintf("%.0f MB/s", mb/m.wall.Seconds()),
			allocBytes: -1, allocs: -1, rssKiB: m.rssKiB,
			note: fmt.Sprintf("traindoc takes %.2fx its time (%s lines)", td.wall.Seconds()/m.wall.Seconds(), strings.TrimSpace(string(m.stdout))),
		})
	}
	return rows, nil
}

// ensureRipgrep installs Debian's ripgrep when it is missing and this runs
// as root; otherwise the ripgrep row says it was skipped.
func ensureRipgrep() {
	if _, err := exec.LookPath("rg"); err == nil {
		return
	}
	if os.Geteuid() != 0 {
		logf("ripgrep is not installed and this is not root: its row is skipped (apt-get install ripgrep)")
		return
	}
	logf("installing ripgrep from Debian")
	if err := runIn("/", "apt-get", "install", "-y", "ripgrep"); err != nil {
		_ = runIn("/", "apt-get", "update")
		if err := runIn("/", "apt-get", "install", "-y", "ripgrep"); err != nil {
			logf("ripgrep could not be installed: %v", err)
		}
	}
}

// writePatterns writes the signatures and progress patterns in the syntax
// grep -E (or ripgrep) reads, through the CLI itself.
func writePatterns(c *config, path, dialect string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gen := exec.Command("go", "run", "./cmd/traindoc", "rules", "signatures", "-o", dialect, "--progress")
	gen.Dir, gen.Stdout, gen.Stderr = c.root, f, os.Stderr
	return gen.Run()
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), "\n")
}

// childStats is what a child process reports about itself.
type childStats struct {
	AllocBytes int64 `json:"allocBytes"`
	Allocs     int64 `json:"allocs"`
	Lines      int   `json:"lines"`
}

// childScan scans one file with the rules' signatures and progress
// patterns, as diagnose does, and prints its allocations.
func childScan(path string) error {
	e, err := policy.Load(context.Background(), policy.Options{})
	if err != nil {
		return err
	}
	sc, err := logscan.Compile(e.Signatures, e.ProgressPatterns)
	if err != nil {
		return err
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := sc.ScanFiles(context.Background(), []logscan.FileJob{{FS: regfile.DirFS(filepath.Dir(path)), Name: filepath.Base(path)}}, 1)
	runtime.ReadMemStats(&after)
	if res[0].Err != nil {
		return res[0].Err
	}
	return json.NewEncoder(os.Stdout).Encode(childStats{
		AllocBytes: int64(after.TotalAlloc - before.TotalAlloc), Allocs: int64(after.Mallocs - before.Mallocs), Lines: res[0].Log.Lines,
	})
}

// --- Whole commands -------------------------------------------------------

// measured is one child process run.
type measured struct {
	wall, cpu      time.Duration
	rssKiB         int64
	stdout, stderr []byte
	exit           int
}

func measure(bin string, args, env []string) (measured, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	t := time.Now()
	err := cmd.Run()
	m := measured{wall: time.Since(t), stdout: []byte(out.String()), stderr: []byte(errb.String())}
	if cmd.ProcessState != nil {
		m.exit = cmd.ProcessState.ExitCode()
		m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.rssKiB = int64(ru.Maxrss) // KiB on Linux
		}
	}
	return m, err
}

var benchLine = regexp.MustCompile(`BenchmarkCLI\S*\s+\d+\s+\d+ ns/op\s+(\d+) B/op\s+(\d+) allocs/op`)

// cli runs one traindoc command line through the CLI test binary.
func cli(c *config, name, input string, args []string) (result, error) {
	raw, _ := json.Marshal(args)
	logf("%s: traindoc %s", name, shortArgs(args))
	m, err := measure(c.bin, []string{"-test.run=^$", "-test.bench=^BenchmarkCLI$", "-test.benchtime=1x", "-test.benchmem"},
		[]string{"TRAINDOC_BENCH_ARGS=" + string(raw)})
	if err != nil {
		return result{}, fmt.Errorf("%s: %w\n%s%s", name, err, m.stdout, m.stderr)
	}
	r := result{name: name, input: input, wall: m.wall, cpu: m.cpu, rssKiB: m.rssKiB, allocBytes: -1, allocs: -1}
	if g := benchLine.FindSubmatch(m.stdout); g != nil {
		r.allocBytes, _ = strconv.ParseInt(string(g[1]), 10, 64)
		r.allocs, _ = strconv.ParseInt(string(g[2]), 10, 64)
	} else {
		return result{}, fmt.Errorf("%s: no benchmark line in\n%s%s", name, m.stdout, m.stderr)
	}
	return r, nil
}

func shortArgs(args []string) string {
	if len(args) > 8 {
		return strings.Join(args[:6], " ") + fmt.Sprintf(" ... (%d arguments)", len(args))
	}
	return strings.Join(args, " ")
}

func benchRank512(c *config) ([]result, error) {
	per := int64(20 << 20)
	if c.quick {
		per = 256 << 10
	}
	f := benchgen.Fleet{Jobs: 1, PodsPerJob: 64, EventsPerJob: 64 * 6, Nodes: 64, LogBytes: 8 * per, LogVariants: 8, FailEvery: 1, Seed: 512, JobPrefix: "llm70b"}
	dir, err := cached(c, fmt.Sprintf("rank512-%d", per), genSpec{Fleet: &f})
	if err != nil {
		return nil, err
	}
	total := float64(64*8*per) / 1e6
	r, err := cli(c, "512-rank job", fmt.Sprintf("64 pods × 8 ranks, %.0f MB of logs (%d MB per rank)", total, per>>20), []string{"diagnose", "--snapshot", dir, "-o", "json"})
	if err != nil {
		return nil, err
	}
	r.throughput = fmt.Sprintf("%.0f MB/s", total/r.wall.Seconds())
	return []result{r}, nil
}

func benchFleet(c *config) ([]result, error) {
	jobs := 2000
	if c.quick {
		jobs = 100
	}
	f := benchgen.Fleet{Jobs: jobs, PodsPerJob: 8, EventsPerJob: 8 * 6, Nodes: jobs * 8 / 4, LogBytes: 16 << 10, LogVariants: 8, FailEvery: 10, Seed: 2000}
	dir, err := cached(c, fmt.Sprintf("fleet-%d", jobs), genSpec{Fleet: &f})
	if err != nil {
		return nil, err
	}
	r, err := cli(c, fmt.Sprintf("%d jobs, one snapshot", jobs), fmt.Sprintf("%d jobs × 8 pods, %d events, 16 KB logs", jobs, jobs*48), []string{"diagnose", "--snapshot", dir, "-o", "json"})
	if err != nil {
		return nil, err
	}
	r.throughput = fmt.Sprintf("%.0f jobs/s", float64(jobs)/r.wall.Seconds())
	return []result{r}, nil
}

func benchSnapshots(c *config) ([]result, error) {
	n := 1000
	if c.quick {
		n = 50
	}
	f := benchgen.Fleet{Jobs: 1, PodsPerJob: 4, EventsPerJob: 24, Nodes: 4, LogBytes: 16 << 10, LogVariants: 4, Seed: 10000, JobPrefix: "run"}
	root, err := cached(c, fmt.Sprintf("snapshots-%d", n), genSpec{Fleet: &f, Snapshots: n})
	if err != nil {
		return nil, err
	}
	args := []string{"diagnose", "-o", "json"}
	for i := range n {
		args = append(args, "--snapshot", filepath.Join(root, fmt.Sprintf("snap-%04d", i)))
	}
	r, err := cli(c, fmt.Sprintf("%d snapshots, one run", n), fmt.Sprintf("%d snapshots of 1 job × 4 pods", n), args)
	if err != nil {
		return nil, err
	}
	r.throughput = fmt.Sprintf("%.0f jobs/s", float64(n)/r.wall.Seconds())
	return []result{r}, nil
}

func benchBigJob(c *config) ([]result, error) {
	pods, events := 4000, 100000
	if c.quick {
		pods, events = 400, 10000
	}
	f := benchgen.Fleet{Jobs: 1, PodsPerJob: pods, EventsPerJob: events, Nodes: pods, LogBytes: 4 << 10, LogVariants: 8, Seed: 4000, JobPrefix: "huge"}
	dir, err := cached(c, fmt.Sprintf("bigjob-%d-%d", pods, events), genSpec{Fleet: &f})
	if err != nil {
		return nil, err
	}
	r, err := cli(c, fmt.Sprintf("one job, %d pods", pods), fmt.Sprintf("%d pods, %d events, %d nodes, 4 KB logs", pods, events, pods), []string{"diagnose", "--snapshot", dir, "-o", "json"})
	if err != nil {
		return nil, err
	}
	r.throughput = fmt.Sprintf("%.0f pods/s", float64(pods)/r.wall.Seconds())
	return []result{r}, nil
}

func benchSite(c *config) ([]result, error) {
	jobs := 10000
	if c.quick {
		jobs = 300
	}
	// The jobs come from snapshots of 100 jobs each, diagnosed together
	// into one report: how the site's input is made is not measured.
	per := min(jobs, 100)
	f := benchgen.Fleet{Jobs: per, PodsPerJob: 1, EventsPerJob: 3, Nodes: per, FailEvery: 5, Seed: 10000, JobPrefix: "site"}
	dir, err := cached(c, fmt.Sprintf("site-%d", jobs), genSpec{Fleet: &f, Snapshots: jobs / per, Report: true})
	if err != nil {
		return nil, err
	}
	outDir := filepath.Join(c.cache, "site-out")
	_ = os.RemoveAll(outDir)
	r, err := cli(c, fmt.Sprintf("site of %d jobs", jobs), fmt.Sprintf("one saved report of %d jobs", jobs), []string{"site", "--reports", filepath.Join(dir, "report.json"), "--out", outDir})
	if err != nil {
		return nil, err
	}
	r.throughput = fmt.Sprintf("%.0f jobs/s", float64(jobs)/r.wall.Seconds())
	return []result{r}, nil
}

// --- Rego -----------------------------------------------------------------

var regoMetric = regexp.MustCompile(`([\d.]+) (cpu-ms-median/job|cpu-ms-p90/job|ms-median/job|ms-p90/job|jobs)`)

func benchRego(c *config) ([]result, error) {
	logf("rego: go test -bench BenchmarkRegoPerJob ./engine/diagnose/")
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkRegoPerJob$", "-benchtime", "3x", "-benchmem", "./engine/diagnose/")
	cmd.Dir = c.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w\n%s", err, out)
	}
	var line string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "BenchmarkRegoPerJob") {
			line = sc.Text()
		}
	}
	m := map[string]string{}
	for _, g := range regoMetric.FindAllStringSubmatch(line, -1) {
		m[g[2]] = g[1]
	}
	f := func(k string) time.Duration {
		v, _ := strconv.ParseFloat(m[k], 64)
		return time.Duration(v * float64(time.Millisecond))
	}
	r := result{
		name: "Rego per job (median)", input: strings.TrimSuffix(m["jobs"], ".0") + " fixture jobs, full rule set", wall: f("ms-median/job"), cpu: f("cpu-ms-median/job"),
		allocBytes: -1, allocs: -1, rssKiB: -1,
		note: fmt.Sprintf("p90: %s wall, %s CPU", f("ms-p90/job"), f("cpu-ms-p90/job")),
	}
	if g := regexp.MustCompile(`(\d+) B/op\s+(\d+) allocs/op`).FindStringSubmatch(line); g != nil {
		jobs, _ := strconv.ParseFloat(m["jobs"], 64)
		b, _ := strconv.ParseInt(g[1], 10, 64)
		a, _ := strconv.ParseInt(g[2], 10, 64)
		if n := int64(jobs); n > 0 {
			r.allocBytes, r.allocs = b/n, a/n
			r.note += " (allocations: mean per job)"
		}
	}
	return []result{r}, nil
}

// --- Output ---------------------------------------------------------------

func printTable(w io.Writer, rows []result) {
	fmt.Fprintln(w, "| benchmark | input | wall | CPU | throughput | allocated | allocations | peak RSS | note |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.name, r.input, dur(r.wall), dur(r.cpu), r.throughput,
			bytesOr(r.allocBytes), countOr(r.allocs), kibOr(r.rssKiB), r.note)
	}
}

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func bytesOr(n int64) string {
	if n < 0 {
		return "–"
	}
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func countOr(n int64) string {
	if n < 0 {
		return "–"
	}
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}

func kibOr(n int64) string {
	if n < 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(n)/1024)
}
