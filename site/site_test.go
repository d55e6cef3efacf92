package site

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/render"
)

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ml-team.llama13b-sft", "ml-team.llama13b-sft"},
		{"../../etc/passwd", "etc-passwd"},
		{"..", "x"},
		{"", "x"},
		{".hidden", "hidden"},
		{"a/b\\c", "a-b-c"},
		{"Upper.CASE", "upper.case"},
		{"a..b", "a.b"},
		{"<script>alert(1)</script>", "script-alert-1-script"},
		{"训练作业", "x"},
		{strings.Repeat("a", 300), strings.Repeat("a", maxSlug)},
	}
	for _, tt := range tests {
		got := slug(tt.in)
		if got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !safeJoin("en/jobs/" + got + ".html") {
			t.Errorf("slug(%q) = %q is not a safe path", tt.in, got)
		}
	}
}

func TestRelPath(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"index.html", "en/index.html", "en/index.html"},
		{"en/index.html", "assets/site.css", "../assets/site.css"},
		{"en/jobs/a.html", "en/rules/b.html", "../rules/b.html"},
		{"en/rules/index.html", "en/rules/b.html", "b.html"},
		{"en/rules/index.html", "zh/rules/index.html", "../../zh/rules/index.html"},
		{"en/trends.html", "en/index.html", "index.html"},
	}
	for _, tt := range tests {
		if got := relPath(tt.from, tt.to); got != tt.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
}

func TestSluggerUnique(t *testing.T) {
	u := slugger{}
	var got []string
	for _, s := range []string{"a", "a", "a-2", "a"} {
		got = append(got, u.unique(s))
	}
	want := []string{"a", "a-2", "a-2-2", "a-3"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("unique = %v, want %v", got, want)
		}
	}
}

func TestSafeJoin(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"en/index.html", true},
		{"assets/site.css", true},
		{"../x", false},
		{"/etc/passwd", false},
		{"en/../../x", false},
		{"en/./x", false},
		{"a\\b", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := safeJoin(tt.in); got != tt.want {
			t.Errorf("safeJoin(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestHighlightRego(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"comment", "# hi <b>\nx", `<span class="c"># hi &lt;b&gt;</span>` + "\nx"},
		{"string", `x := "a\"<"`, `x <span class="o">:=</span> <span class="s">&#34;a\&#34;&lt;&#34;</span>`},
		{"raw string", "p := `a\\d+`", `p <span class="o">:=</span> <span class="s">` + "`a\\d+`" + `</span>`},
		{"keywords", "findings contains f if {", `findings <span class="k">contains</span> f <span class="k">if</span> {`},
		{"numbers", "x > 1.5e3", `x <span class="o">&gt;</span> <span class="n">1.5e3</span>`},
		{"input", "input.pods", `<span class="b">input</span>.pods`},
		{"identifier with digits", "x1 := 2", `x1 <span class="o">:=</span> <span class="n">2</span>`},
		{"unterminated raw", "`abc", "<span class=\"s\">`abc</span>"},
		{"unicode", "msg := \"显存\"", `msg <span class="o">:=</span> <span class="s">&#34;显存&#34;</span>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(highlightRego(tt.src)); got != tt.want {
				t.Errorf("highlightRego(%q)\n got %s\nwant %s", tt.src, got, tt.want)
			}
		})
	}
}

// TestHighlightKeepsSource: stripping the spans and unescaping gives the
// source back, for every built-in rule.
func TestHighlightKeepsSource(t *testing.T) {
	in := reportsInput(t)
	tag := regexp.MustCompile(`</?span[^>]*>`)
	for _, r := range in.Rules {
		got := tag.ReplaceAllString(string(highlightRego(r.Source)), "")
		got = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&amp;", "&").Replace(got)
		if got != r.Source {
			t.Errorf("rule %s: highlighted source does not round-trip", r.ID)
		}
	}
}

// TestDeterministic builds the site twice from the same saved reports,
// through files on disk, and wants identical trees.
func TestDeterministic(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		if err := Build(reportsInput(t), d); err != nil {
			t.Fatal(err)
		}
	}
	a, b := readTree(t, dirs[0]), readTree(t, dirs[1])
	if len(a) != len(b) {
		t.Fatalf("builds wrote %d and %d files", len(a), len(b))
	}
	for p, content := range a {
		if !bytes.Equal(content, b[p]) {
			t.Errorf("%s differs between two builds of the same reports", p)
		}
	}
	if len(a) < 100 {
		t.Errorf("only %d files written", len(a))
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunOrderDoesNotMatter(t *testing.T) {
	in := reportsInput(t)
	a, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	rev := in
	rev.Runs = []*report.Report{in.Runs[1], in.Runs[0]}
	b, err := Render(rev)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range a.Paths() {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s depends on the order the reports were given in", p)
		}
	}
}

// TestUserPolicyInCatalogue: a rule from a user policy directory gets a
// page in both languages, with its Chinese METADATA text on the Chinese
// page, and is listed in its category.
func TestUserPolicyInCatalogue(t *testing.T) {
	files, err := Render(reportsInput(t))
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		path string
		want []string
	}{
		{"zh/rules/site-ckpt-throttled.html", []string{
			"检查点写入被对象存储限流", "对象存储对检查点上传返回 SlowDown", "错开检查点写入时间", "用户策略",
			`<span class="k">package</span>`, "写检查点时对象存储返回 {{.count}} 次 SlowDown",
		}},
		{"en/rules/site-ckpt-throttled.html", []string{
			"Checkpoint writes throttled by the object store", "user policy", "Spread checkpoint writes",
			"testdata/policies/ckpt_throttled.rego",
		}},
		{"en/rules/index.html", []string{`href="site-ckpt-throttled.html"`}},
		{"zh/categories/exec.python-error.html", []string{`href="../rules/site-ckpt-throttled.html"`, "检查点写入被对象存储限流"}},
	}
	for _, c := range checks {
		page := string(files[c.path])
		if page == "" {
			t.Errorf("%s not written", c.path)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s lacks %q", c.path, w)
			}
		}
	}
}

// TestLinksResolve: every relative link and asset of every page points at
// a file of the site, and every fragment at an id on its page. This is
// what makes the site work from file:// and from a sub-path.
func TestLinksResolve(t *testing.T) {
	files, err := Render(reportsInput(t))
	if err != nil {
		t.Fatal(err)
	}
	attr := regexp.MustCompile(`(?:href|src)="([^"]*)"`)
	ids := map[string]map[string]bool{}
	idAttr := regexp.MustCompile(`\sid="([^"]*)"`)
	for _, p := range htmlPaths(files) {
		ids[p] = map[string]bool{}
		for _, m := range idAttr.FindAllStringSubmatch(string(files[p]), -1) {
			ids[p][m[1]] = true
		}
	}
	for _, p := range htmlPaths(files) {
		for _, m := range attr.FindAllStringSubmatch(string(files[p]), -1) {
			link := strings.ReplaceAll(m[1], "&amp;", "&")
			u, err := url.Parse(link)
			if err != nil {
				t.Errorf("%s: bad link %q", p, link)
				continue
			}
			if u.Scheme == "data" || (u.Scheme == "https" || u.Scheme == "http") && strings.Contains(p, "/rules/") {
				continue // icons; related resources of rules
			}
			if u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
				t.Errorf("%s: link %q is not relative", p, link)
				continue
			}
			target := p
			if u.Path != "" {
				if strings.HasSuffix(u.Path, "/") {
					t.Errorf("%s: link %q names a folder; file:// would show a listing", p, link)
					continue
				}
				target = path.Join(path.Dir(p), u.Path)
				if _, ok := files[target]; !ok {
					t.Errorf("%s: link %q points at missing %s", p, link, target)
					continue
				}
			}
			if u.Fragment != "" && strings.HasSuffix(target, ".html") && !strings.Contains(u.Fragment, "=") {
				if !ids[target][u.Fragment] {
					t.Errorf("%s: link %q: no id %q in %s", p, link, u.Fragment, target)
				}
			}
		}
	}
}

// TestPageSize: no page is over 256 KB once evidence and source listings
// are left out. The largest is a 64-pod job whose pod table and whole
// timeline (400 entries, folded) stay on its page.
func TestPageSize(t *testing.T) {
	files, err := Render(fixtureSiteInput(t))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 256 << 10
	for _, p := range htmlPaths(files) {
		if n := len(withoutEvidence(files[p])); n > limit {
			t.Errorf("%s is %d bytes without evidence (limit %d)", p, n, limit)
		}
	}
	for _, lang := range languages {
		if n := len(files["assets/search-index."+lang+".js"]); n > limit {
			t.Errorf("search index %s is %d bytes", lang, n)
		}
	}
}

// TestUntrustedText: object names and messages that look like markup stay
// text, and file names made from them stay inside the site.
func TestUntrustedText(t *testing.T) {
	evil := `<script>alert(1)</script>`
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion, CollectedAt: "2026-05-12T00:00:00Z",
		Source: evil, Warnings: []string{evil},
		Jobs: []report.Job{{
			Kind: "PyTorchJob" + evil, Namespace: "../../" + evil, Name: "../../../etc/passwd" + evil,
			Phase: "Failed", Nodes: []string{evil, evil + "2"},
			Summary: report.Text{En: evil, Zh: evil},
			Primary: &report.Finding{ID: "x" + evil, Rule: "made-up" + evil, Category: "exec." + evil, Severity: "error",
				Owner: evil, Title: report.Text{En: evil, Zh: evil}, Message: report.Text{En: evil}, Remediation: report.Text{En: evil}},
		}},
	}
	rep.Jobs[0].Findings = []report.Finding{*rep.Jobs[0].Primary}
	in := reportsInput(t)
	in.Runs = []*report.Report{rep, rep}
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files.Paths() {
		if !safeJoin(p) || strings.ContainsAny(p, "<>\"'") {
			t.Errorf("unsafe output path %q", p)
		}
		if strings.HasSuffix(p, ".html") && bytes.Contains(files[p], []byte(evil)) {
			t.Errorf("%s contains the markup unescaped", p)
		}
		if strings.HasSuffix(p, ".js") && strings.HasPrefix(p, "assets/search-index") && bytes.Contains(files[p], []byte("<script>")) {
			t.Errorf("%s contains raw <script>", p)
		}
	}
	if _, ok := files["en/rules/made-up-script-alert-1-script.html"]; !ok {
		t.Errorf("no page for the report-only rule; pages: %v", files.Paths())
	}
}

func TestWriteRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "precious.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(reportsInput(t), dir); !errors.Is(err, ErrNotSite) {
		t.Fatalf("Build into a foreign folder: %v, want ErrNotSite", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "precious.txt")); err != nil {
		t.Fatal("Build touched a foreign file")
	}
	// A second build over an earlier site replaces it, dropping stale pages.
	site := t.TempDir()
	if err := Build(reportsInput(t), site); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(site, "en", "jobs", "stale.html")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(reportsInput(t), site); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale page survived the rebuild")
	}
}

func TestTrends(t *testing.T) {
	in := reportsInput(t)
	tr := buildTrends(in.Runs)
	if len(tr.Runs) != 2 {
		t.Fatalf("runs = %d", len(tr.Runs))
	}
	for i, r := range tr.Runs {
		// Suspended and debug-mode jobs are held, not failing.
		unhealthy := 0
		for _, j := range in.Runs[i].Jobs {
			if render.JobState(&j) == render.StateUnhealthy {
				unhealthy++
			}
		}
		if r.Unhealthy != unhealthy || r.Jobs != len(in.Runs[i].Jobs) {
			t.Errorf("run %d: %d/%d unhealthy, want %d/%d", i, r.Unhealthy, r.Jobs, unhealthy, len(in.Runs[i].Jobs))
		}
		sum := 0
		for _, row := range tr.Table {
			sum += row.Counts[i]
		}
		if sum != unhealthy {
			t.Errorf("run %d: categories sum to %d, want %d", i, sum, unhealthy)
		}
	}
	if len(tr.HotNodes) == 0 || tr.HotNodes[0].Name != "gpu-a100-07" {
		t.Errorf("hot nodes = %+v, want gpu-a100-07 first", tr.HotNodes)
	}
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "trends.en.html", files["en/trends.html"])
	golden(t, "trends.zh.html", files["zh/trends.html"])
}

func TestScale(t *testing.T) {
	tests := []struct{ max, top, step int }{
		{0, 1, 1}, {1, 1, 1}, {5, 5, 1}, {6, 6, 2}, {9, 10, 2}, {23, 25, 5}, {65, 80, 20}, {1234, 1250, 250},
	}
	for _, tt := range tests {
		top, step := scale(tt.max)
		if top != tt.top || step != tt.step {
			t.Errorf("scale(%d) = %d, %d; want %d, %d", tt.max, top, step, tt.top, tt.step)
		}
	}
}

func TestSingleRunTrends(t *testing.T) {
	in := reportsInput(t)
	in.Runs = in.Runs[1:]
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["en/trends.html"])
	if !strings.Contains(page, "Only one run was given") || strings.Contains(page, "<svg viewBox=\"0 0 720") {
		t.Error("a single run should explain how to get trends and draw no chart")
	}
}

func TestExpandReports(t *testing.T) {
	got, err := ExpandReports([]string{filepath.Join("testdata", "history"), filepath.Join("testdata", "history", "run-2025-01-10.json")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join("testdata", "history", "run-2025-01-10.json"),
		filepath.Join("testdata", "history", "run-2025-01-11.json"),
		filepath.Join("testdata", "history", "run-2025-01-10.json"),
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ExpandReports = %v, want %v", got, want)
	}
	for _, bad := range [][]string{{"testdata/nope.json"}, {"testdata/policies"}} {
		if _, err := ExpandReports(bad); err == nil {
			t.Errorf("ExpandReports(%v) succeeded", bad)
		}
	}
}

// TestWithoutScripts: everything is in the HTML; scripts only filter. The
// index lists every job with no row hidden, the filter form (useless
// without scripts) starts hidden, and the charts are inline SVG.
func TestWithoutScripts(t *testing.T) {
	in := reportsInput(t)
	files, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	latest := in.Runs[len(in.Runs)-1]
	for _, lang := range languages {
		index := string(files[lang+"/index.html"])
		if n := strings.Count(index, `<tr id="job-`); n != len(latest.Jobs) {
			t.Errorf("%s index lists %d jobs, want %d", lang, n, len(latest.Jobs))
		}
		if strings.Contains(index, "<tr hidden") || !strings.Contains(index, `role="search" aria-label=`) {
			t.Errorf("%s index: rows hidden or filter form missing", lang)
		}
		if !regexp.MustCompile(`<form id="filters"[^>]* hidden`).MatchString(index) {
			t.Errorf("%s index: filter form is not hidden until scripts run", lang)
		}
		trends := string(files[lang+"/trends.html"])
		if strings.Count(trends, "<svg viewBox=\"0 0 720 260\"") != 2 || !strings.Contains(trends, `<g class="series bad">`) {
			t.Errorf("%s trends: charts missing", lang)
		}
	}
}

// TestDeterministicFromSnapshots: diagnosing the same snapshots twice
// (concurrently, inside the engine) gives the same site.
func TestDeterministicFromSnapshots(t *testing.T) {
	if testing.Short() {
		t.Skip("diagnoses the fixtures a second time")
	}
	a, err := Render(fixtureSiteInput(t))
	if err != nil {
		t.Fatal(err)
	}
	in, err := collectSnapshots(context.Background(), historyReports(t), fixtureDirs(), []string{filepath.Join("testdata", "policies")})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d and %d files", len(a), len(b))
	}
	for _, p := range a.Paths() {
		if !bytes.Equal(a[p], b[p]) {
			t.Errorf("%s differs between two diagnoses of the same snapshots", p)
		}
	}
}
