package site

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traindoc/traindoc/internal/browser"
)

// screenshotEnv, when set to a folder, makes TestSiteScreenshots write
// PNGs there (make site-screenshots sets it).
const screenshotEnv = "TRAINDOC_SCREENSHOTS"

// builtSite builds the fixture site into a temporary folder.
func builtSite(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "site")
	if err := Build(fixtureSiteInput(t), dir); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func startBrowser(t *testing.T) *browser.Browser {
	t.Helper()
	bin := browser.ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// tab wraps a page with the steps a reader takes.
type tab struct {
	t    *testing.T
	p    *browser.Page
	site string
}

func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	v, err := browser.Eval[T](tb.p, expr)
	if err != nil {
		tb.t.Fatal(err)
	}
	return v
}

// waitFor polls a boolean expression; evaluation errors during navigation
// (the old document is gone) count as "not yet".
func (tb *tab) waitFor(what, expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := browser.Eval[bool](tb.p, expr); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.t.Fatalf("timed out waiting for %s (%s)", what, expr)
}

// path is the current page relative to the site folder.
func (tb *tab) path() string {
	tb.t.Helper()
	href := eval[string](tb, "location.href")
	u, err := url.Parse(href)
	if err != nil {
		tb.t.Fatal(err)
	}
	rel, err := filepath.Rel(tb.site, filepath.FromSlash(u.Path))
	if err != nil || strings.HasPrefix(rel, "..") {
		tb.t.Fatalf("left the site: %s", href)
	}
	return filepath.ToSlash(rel)
}

// click follows the link matched by selector and waits for the page it
// leads to to load.
func (tb *tab) click(selector, wantPathSuffix string) {
	tb.t.Helper()
	js := fmt.Sprintf(`(() => { const a = document.querySelector(%s); if (!a) return ""; window.__left = true; a.click(); return a.getAttribute("href"); })()`, strconv.Quote(selector))
	href := eval[string](tb, js)
	if href == "" {
		tb.t.Fatalf("no element %s on %s", selector, tb.path())
	}
	tb.waitFor("navigation to "+href, `!window.__left && document.readyState === "complete"`)
	if got := tb.path(); !strings.HasSuffix(got, wantPathSuffix) {
		tb.t.Fatalf("followed %s (%s) to %s, want …%s", selector, href, got, wantPathSuffix)
	}
}

func (tb *tab) text() string {
	tb.t.Helper()
	s, err := tb.p.Text()
	if err != nil {
		tb.t.Fatal(err)
	}
	return s
}

func (tb *tab) wantText(step string, wants ...string) {
	tb.t.Helper()
	// Compare case-insensitively: innerText applies text-transform.
	text := strings.ToLower(tb.text())
	for _, w := range wants {
		if !strings.Contains(text, strings.ToLower(w)) {
			tb.t.Errorf("%s: page %s does not show %q", step, tb.path(), w)
		}
	}
}

// visibleRows returns data-id and data-cat of the index rows not hidden.
func (tb *tab) visibleRows() [][2]string {
	return eval[[][2]string](tb, `Array.from(document.querySelectorAll("#jobs tbody tr")).filter(r => !r.hidden && r.offsetParent !== null).map(r => [r.dataset.id, r.dataset.cat])`)
}

// TestBrowserSite walks the fixture site the way a reader does, from
// file://: index, category filter, Chinese search, a job, the language
// switch, a rule. Any console error, exception or request that leaves the
// site fails the test.
func TestBrowserSite(t *testing.T) {
	b := startBrowser(t)
	site := builtSite(t)
	p, err := b.Open(filepath.Join(site, "index.html"), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tb := &tab{t: t, p: p, site: site}

	// 1. The root page sends an English browser to the English index.
	tb.waitFor("redirect to the English index", `location.pathname.endsWith("/en/index.html") && document.readyState === "complete"`)
	tb.waitFor("filters ready", `document.getElementById("count").textContent !== ""`)
	all := tb.visibleRows()
	if len(all) < len(testFixtures) {
		t.Fatalf("index shows %d jobs, want at least %d", len(all), len(testFixtures))
	}
	tb.wantText("index", "Training jobs", "Not healthy", "Primary category")

	// 2. Filter to one category: only its jobs remain, and the count says so.
	eval[bool](tb, `(() => { const s = document.getElementById("f-cat"); s.value = "exec.cuda-oom"; s.dispatchEvent(new Event("change")); return true; })()`)
	rows := tb.visibleRows()
	if len(rows) == 0 || len(rows) >= len(all) {
		t.Fatalf("category filter shows %d of %d jobs", len(rows), len(all))
	}
	for _, r := range rows {
		if r[1] != "exec.cuda-oom" {
			t.Errorf("category filter shows job %s of category %s", r[0], r[1])
		}
	}
	if got, want := eval[string](tb, `document.getElementById("count").textContent`), fmt.Sprintf("%d of %d jobs shown", len(rows), len(all)); got != want {
		t.Errorf("count = %q, want %q", got, want)
	}
	if h := eval[string](tb, "location.hash"); h != "#cat=exec.cuda-oom" {
		t.Errorf("filter state not in the fragment: %q", h)
	}

	// 3. Search a Chinese word that only occurs inside sentences.
	eval[bool](tb, `(() => { document.getElementById("filters").reset(); const q = document.getElementById("q"); q.value = "镜像"; q.dispatchEvent(new Event("input")); return true; })()`)
	tb.waitFor("reset applied", `document.getElementById("f-cat").value === ""`)
	rows = tb.visibleRows()
	if len(rows) == 0 || len(rows) >= len(all) {
		t.Fatalf("search 镜像 shows %d of %d jobs", len(rows), len(all))
	}
	for _, r := range rows {
		if r[1] != "pod.image-pull" {
			t.Errorf("search 镜像 shows job %s of category %s", r[0], r[1])
		}
	}
	more := eval[string](tb, `document.getElementById("more").hidden ? "" : document.getElementById("more-list").innerText`)
	if !strings.Contains(more, "image") {
		t.Errorf("search 镜像 lists no matching rule or category: %q", more)
	}
	// A CJK word and a Latin prefix together.
	eval[bool](tb, `(() => { const q = document.getElementById("q"); q.value = "显存 llam"; q.dispatchEvent(new Event("input")); return true; })()`)
	if rows = tb.visibleRows(); len(rows) != 1 || rows[0][1] != "exec.cuda-oom" {
		t.Errorf("search 显存 llam shows %v, want the one CUDA OOM job named llama…", rows)
	}
	// The tokenizer and ranking on their own: each query finds its job.
	searches := []struct{ q, wantID string }{
		{"显存", "ml-team.llama13b-sft"},
		{"GPU 显存", "ml-team.llama13b-sft"},
		{"exec-cuda-oom", "ml-team.llama13b-sft"},
		{"llama13", "ml-team.llama13b-sft"},
		{"镜像无法", "nlp.bert-squad-tf"},
		{"image pull", "nlp.bert-squad-tf"},
		{"集合通信超时", "asr.conformer-xl"},
	}
	for _, s := range searches {
		ids := eval[[]string](tb, fmt.Sprintf(`TRAINDOC.search(TRAINDOC.buildIndex(TRAINDOC_SEARCH), %s).filter(h => h.entry.type === "job").map(h => h.entry.id)`, strconv.Quote(s.q)))
		found := false
		for _, id := range ids {
			found = found || id == s.wantID
		}
		if !found {
			t.Errorf("search %q finds %v, want %s among them", s.q, ids, s.wantID)
		}
	}
	if n := eval[int](tb, `TRAINDOC.search(TRAINDOC.buildIndex(TRAINDOC_SEARCH), "显卡驱动程序不存在的词").length`); n != 0 {
		t.Errorf("a query with no match finds %d entries", n)
	}
	eval[bool](tb, `(() => { const q = document.getElementById("q"); q.value = "显存"; q.dispatchEvent(new Event("input")); return true; })()`)

	// 4. Open the first job found.
	tb.click(`#jobs tbody tr:not([hidden]) th a`, ".html")
	jobPath := tb.path()
	if !strings.HasPrefix(jobPath, "en/jobs/") {
		t.Fatalf("job link led to %s", jobPath)
	}
	tb.wantText("job page", "Not healthy", "Where", "Who acts", "Primary cause", "CUDA")
	if first := eval[string](tb, `document.querySelector("main h1, main h2").tagName`); first != "H1" {
		t.Errorf("the first heading of the job page is %s, want the job's h1", first)
	}
	links := eval[int](tb, `document.querySelectorAll("article a[href^='#']").length`)
	resolved := eval[int](tb, `Array.from(document.querySelectorAll("article a[href^='#']")).filter(a => document.getElementById(decodeURIComponent(a.getAttribute("href").slice(1)))).length`)
	if links == 0 || links != resolved {
		t.Errorf("in-page links: %d, %d resolve", links, resolved)
	}
	eval[bool](tb, `(() => { location.hash = "primary-cause"; return true; })()`)

	// 5. Switch language: same job, in Chinese, same place on the page.
	hash := eval[string](tb, "location.hash")
	tb.click("#lang-switch", strings.Replace(jobPath, "en/", "zh/", 1))
	if got := eval[string](tb, "document.documentElement.lang"); got != "zh-CN" {
		t.Errorf("lang = %q after switching", got)
	}
	if got := eval[string](tb, "location.hash"); got != hash {
		t.Errorf("language switch dropped the anchor: %q, want %q", got, hash)
	}
	tb.wantText("Chinese job page", "不健康", "位置", "处理方", "主要原因", "显存")

	// 6. Follow the primary finding's rule link.
	tb.click("article a.rule-link", ".html")
	if rp := tb.path(); !strings.HasPrefix(rp, "zh/rules/") {
		t.Fatalf("rule link led to %s", rp)
	}
	tb.wantText("rule page", "处理建议", "Rego 源码", "最新一次运行中有此发现的作业", "修改这条规则", "测试", "policies/rules/")
	if n := eval[int](tb, `document.querySelectorAll("pre.rego span.k").length`); n == 0 {
		t.Error("rule source is not highlighted")
	}
	if n := eval[int](tb, `document.querySelectorAll("pre.rego .l[data-n]").length`); n < 10 {
		t.Errorf("rule source has %d numbered lines", n)
	}
	if n := eval[int](tb, `document.querySelectorAll("ul.mono li").length`); n == 0 {
		t.Error("rule page lists no snapshot that exercises it")
	}

	// Trends render as SVG without scripts.
	tb.click(`nav.bar a[href$="trends.html"]`, "zh/trends.html")
	if n := eval[int](tb, `document.querySelectorAll("figure.chart svg polyline").length`); n == 0 {
		t.Error("trends page draws no lines")
	}
	tb.wantText("trends", "热点节点", "gpu-a100-07", "与上一次运行相比", "按命名空间")

	checkQuiet(t, p, site)
}

// checkQuiet fails on console errors and on requests outside the site.
func checkQuiet(t *testing.T, p *browser.Page, site string) {
	t.Helper()
	for _, pr := range p.Problems() {
		t.Errorf("browser: %s", pr)
	}
	prefix := (&url.URL{Scheme: "file", Path: filepath.ToSlash(site) + "/"}).String()
	for _, r := range p.Requests() {
		if !strings.HasPrefix(r, prefix) {
			t.Errorf("request outside the site: %s", r)
		}
	}
}

// TestBrowserKeyboardAndPhone opens the Chinese index as a phone in dark
// mode: nothing overflows sideways, the skip link comes first, "/" jumps
// to search, and the dark palette applies.
func TestBrowserKeyboardAndPhone(t *testing.T) {
	b := startBrowser(t)
	site := builtSite(t)
	p, err := b.Open(filepath.Join(site, "zh", "index.html"), browser.Options{Width: 390, Height: 844, Scale: 2, Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tb := &tab{t: t, p: p, site: site}
	tb.waitFor("filters ready", `document.getElementById("count").textContent !== ""`)
	// Nothing sticks out sideways on a phone.
	if w := eval[int](tb, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("index is %dpx wide on a 390px phone", w)
	}
	// The first focusable element is the skip link, and it targets main.
	first := eval[string](tb, `(() => { const el = document.querySelector("a[href], button, input, select, [tabindex]"); return el.className + " " + el.getAttribute("href"); })()`)
	if first != "skip #main" {
		t.Errorf("first focusable element is %q, want the skip link", first)
	}
	// "/" focuses the search box.
	eval[bool](tb, `(() => { document.dispatchEvent(new KeyboardEvent("keydown", {key: "/", bubbles: true})); return true; })()`)
	if id := eval[string](tb, "document.activeElement.id"); id != "q" {
		t.Errorf("'/' focused %q, want the search box", id)
	}
	// Dark mode is honoured.
	if bg := eval[string](tb, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(13, 17, 23)" {
		t.Errorf("dark mode background = %s", bg)
	}
	checkQuiet(t, p, site)
}

// TestSiteScreenshots writes the index, a failed job, a running job, a
// rule page, the rule catalogue and the trends in both languages at
// desktop (1400 px) and phone (390 px) width, when TRAINDOC_SCREENSHOTS
// names a folder (make screenshots).
func TestSiteScreenshots(t *testing.T) {
	dir := os.Getenv(screenshotEnv)
	if dir == "" {
		t.Skipf("set %s to a folder to write screenshots", screenshotEnv)
	}
	b := startBrowser(t)
	site := builtSite(t)
	pages := []struct{ name, page string }{
		{"index", "index.html"},
		{"job-failed", "jobs/pretrain.gpt-7b-pretrain.html"},
		{"job-running", "jobs/foundation.llama3-70b-sft.html"},
		{"rule", "rules/exec-cuda-oom.html"},
		{"rules", "rules/index.html"},
		{"trends", "trends.html"},
	}
	widths := []struct {
		name string
		opts browser.Options
	}{
		{"1400", browser.Options{Width: 1400, Height: 900}},
		{"390", browser.Options{Width: 390, Height: 844, Scale: 2}},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pg := range pages {
		for _, lang := range languages {
			for _, w := range widths {
				file := filepath.Join(site, lang, filepath.FromSlash(pg.page))
				p, err := b.Open(file, w.opts)
				if err != nil {
					t.Fatal(err)
				}
				png, err := p.Screenshot()
				p.Close()
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "site-"+pg.name+"."+lang+"."+w.name+".png")
				if err := os.WriteFile(out, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", out)
			}
		}
	}
}

// TestBrowserReader checks what a reader met on a phone and in search:
// nothing scrolls sideways on a 64-pod job page or the index, the counts
// on the index stay on one line, error text, exit codes, pods and nodes
// find their job, and following a link to a folded finding opens it.
func TestBrowserReader(t *testing.T) {
	b := startBrowser(t)
	site := builtSite(t)
	phone := browser.Options{Width: 390, Height: 844, Scale: 2}
	for _, page := range []string{"en/jobs/foundation.llm70b-pt.html", "zh/jobs/foundation.llm70b-pt.html", "zh/index.html", "en/trends.html", "zh/rules/exec-cuda-oom.html"} {
		p, err := b.Open(filepath.Join(site, filepath.FromSlash(page)), phone)
		if err != nil {
			t.Fatal(err)
		}
		tb := &tab{t: t, p: p, site: site}
		tb.waitFor("load", `document.readyState === "complete"`)
		// Open every fold: what is inside must fit too.
		eval[bool](tb, `(() => { document.querySelectorAll("details").forEach(d => d.open = true); return true; })()`)
		if w := eval[int](tb, `document.documentElement.scrollWidth`); w > 390 {
			wide := eval[string](tb, `Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > 391).slice(0, 3).map(e => e.tagName + "." + e.className).join(", ")`)
			t.Errorf("%s is %dpx wide on a 390px phone (%s)", page, w, wide)
		}
		if strings.HasSuffix(page, "index.html") {
			// A count is one line, however narrow its box.
			tall := eval[int](tb, `Array.from(document.querySelectorAll(".stat .num")).filter(n => n.getBoundingClientRect().height > 2.2 * parseFloat(getComputedStyle(n).fontSize)).length`)
			if tall > 0 {
				t.Errorf("%s: %d counts wrap", page, tall)
			}
		}
		checkQuiet(t, p, site)
		p.Close()
	}

	p, err := b.Open(filepath.Join(site, "en", "index.html"), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tb := &tab{t: t, p: p, site: site}
	tb.waitFor("filters ready", `document.getElementById("count").textContent !== ""`)
	for _, s := range []struct{ q, wantID string }{
		{"DistBackendError", "ml-research.bert-large-pretrain"},
		{"137", "ml-research.bert-large-pretrain"},
		{"OOMKilled", "ml-research.bert-large-pretrain"},
		{"llm70b-pt-worker-4", "foundation.llm70b-pt"},
		{"ip-10-1-57-202", "foundation.llm70b-pt"},
		{"不健康 显存", "foundation.llm70b-pt"},
	} {
		ids := eval[[]string](tb, fmt.Sprintf(`TRAINDOC.search(TRAINDOC.buildIndex(TRAINDOC_SEARCH), %s).filter(h => h.entry.type === "job").map(h => h.entry.id)`, strconv.Quote(s.q)))
		found := false
		for _, id := range ids {
			found = found || id == s.wantID
		}
		if !found {
			t.Errorf("search %q finds %v, want %s among them", s.q, ids, s.wantID)
		}
	}
	if ph := eval[string](tb, `document.getElementById("q").placeholder`); !strings.Contains(ph, "error text") || !strings.Contains(ph, "exit code") {
		t.Errorf("the search box does not say what it finds: %q", ph)
	}

	// A link to a consequence folded under the primary opens its fold.
	job, err := b.Open(filepath.Join(site, "en", "jobs", "pretrain.gpt-7b-pretrain.html"), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer job.Close()
	jt := &tab{t: t, p: job, site: site}
	jt.waitFor("load", `document.readyState === "complete"`)
	if eval[bool](jt, `document.getElementById("consequence-collective-operation-timed-out").closest("details").open`) {
		t.Fatal("the consequence is open before anyone asked")
	}
	eval[bool](jt, `(() => { location.hash = "consequence-collective-operation-timed-out"; return true; })()`)
	jt.waitFor("the fold of the linked finding to open", `document.getElementById("consequence-collective-operation-timed-out").closest("details").open`)
	checkQuiet(t, job, site)
}
