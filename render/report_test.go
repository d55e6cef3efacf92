package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/traindoc/traindoc/engine/report"
)

// These tests pin what a person reading a report needs in the first
// seconds; each names the problem a reader met before.

func md(t *testing.T, name, lang string) string {
	t.Helper()
	rep := loadReport(t, name)
	return string(ReportMarkdown(rep, lang, "test"))
}

// before returns the part of s before the first occurrence of marker.
func before(s, marker string) string {
	if i := strings.Index(s, marker); i >= 0 {
		return s[:i]
	}
	return s
}

// A 512-rank job: the verdict names the failing pod, its rank and its
// node before anything else, and no list of the job's 64 nodes comes
// first.
func TestVerdictSaysWhereFirst(t *testing.T) {
	doc := md(t, "cascade-512-ranks", "en")
	top := before(doc, "## Primary cause")
	for _, want := range []string{
		"**❌ Not healthy: GPU out of memory**",
		"**Where:** pod `llm70b-pt-worker-4` (rank 37) on node `ip-10-1-57-202.us-east-2.compute.internal`",
		"**Since:** 2026-03-15 06:45:28 UTC, 45 min after the job was created",
		"**How it ended:** exit code 1",
		"**Who acts:** the job's owner (code or configuration)",
		"**Confidence:** high",
		"**Then:** 63 pods: Collective operation timed out",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("the top of the report lacks %q:\n%s", want, top)
		}
	}
	if n := strings.Count(top, ".compute.internal"); n > 1 {
		t.Errorf("the top of the report names %d nodes; only the failing pod's belongs there", n)
	}
	if strings.HasPrefix(strings.TrimSpace(doc), "#") == false || !strings.HasPrefix(doc, "# ") {
		t.Errorf("the document does not open with the job's h1")
	}
}

// Every job has a pod table with where each pod ran and how it ended,
// the primary's pod first; 64 pods fold after the first rows.
func TestPodTable(t *testing.T) {
	doc := md(t, "cascade-512-ranks", "en")
	table := before(doc[strings.Index(doc, "## Pods"):], "## Replicas")
	for _, col := range []string{"Pod", "Role", "Ranks", "Node", "State", "Exit code", "Restarts", "Last log line"} {
		if !strings.Contains(strings.SplitN(table, "\n", 4)[2], col) {
			t.Errorf("pod table lacks the column %q", col)
		}
	}
	rows := regexp.MustCompile("(?m)^\\| .*`llm70b-pt-worker-\\d+`.*$").FindAllString(table, -1)
	if len(rows) != 64 {
		t.Errorf("pod table has %d pod rows, want 64", len(rows))
	}
	if !strings.Contains(rows[0], "llm70b-pt-worker-4`") || !strings.Contains(rows[0], "| 37 |") || !strings.Contains(rows[0], "ip-10-1-57-202") {
		t.Errorf("the primary's pod is not the first row: %s", rows[0])
	}
	if !strings.Contains(table, "<summary>52 more pods</summary>") {
		t.Errorf("the pods after the first 12 are not folded")
	}
}

// Log evidence shows the lines around the match, the match marked, and
// the traceback frame the error was raised in.
func TestEvidenceInContext(t *testing.T) {
	doc := md(t, "cascade-cuda-oom-nccl-timeout", "en")
	primary := before(doc[strings.Index(doc, "## Primary cause"):], "<details>")
	fence := regexp.MustCompile("(?s)```log hl=(\\d+)\\n(.*?)\\n```").FindStringSubmatch(primary)
	if fence == nil {
		t.Fatalf("no log excerpt with a marked line:\n%s", primary)
	}
	lines := strings.Split(fence[2], "\n")
	if len(lines) < 4 {
		t.Errorf("the excerpt has %d lines, want the match with the lines around it", len(lines))
	}
	if fence[1] != "4" || !strings.Contains(lines[3], "OutOfMemoryError") {
		t.Errorf("line %s is marked, want the OutOfMemoryError line (4): %q", fence[1], lines)
	}
	if !strings.Contains(primary, "**Failing frame:** `File \"/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py\", line 152, in custom_backward`") {
		t.Errorf("the failing frame is not named:\n%s", primary)
	}
	page, err := JobHTML(&loadReport(t, "cascade-cuda-oom-nccl-timeout").Jobs[0], loadReport(t, "cascade-cuda-oom-nccl-timeout"), "en")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<mark>[rank13]: torch.cuda.OutOfMemoryError") {
		t.Error("the HTML does not mark the matched line")
	}
}

// A killed container's last log lines are shown when no evidence quotes
// its log.
func TestKilledContainerLastLines(t *testing.T) {
	doc := md(t, "seed-master-oom-137", "en")
	primary := before(doc[strings.Index(doc, "## Primary cause"):], "**What to do:**")
	if !strings.Contains(primary, "Last lines of the log of pod `bert-large-pretrain-master-0`") ||
		!strings.Contains(primary, "concatenating buffered sequences") {
		t.Errorf("the OOM-killed pod's last lines are missing:\n%s", primary)
	}
}

// Consequences are folded under the primary; extra evidence is folded,
// not dropped with a count.
func TestFoldedNotDropped(t *testing.T) {
	rep := loadReport(t, "cascade-cuda-oom-nccl-timeout")
	doc := string(ReportMarkdown(rep, "en", "test"))
	if !strings.Contains(doc, "<summary>3 pods: Collective operation timed out (consequence)</summary>") {
		t.Errorf("the consequence is not folded under a summary")
	}
	if strings.Contains(doc, "not shown") {
		t.Errorf("something is 'not shown' instead of folded")
	}
	var evidence int
	for _, f := range rep.Jobs[0].Findings {
		for _, e := range f.Evidence {
			if strings.Contains(doc, strings.SplitN(e.Text, "\n", 2)[0]) {
				evidence++
			}
		}
	}
	if total := len(rep.Jobs[0].Findings[0].Evidence) + len(rep.Jobs[0].Findings[1].Evidence); evidence != total {
		t.Errorf("%d of %d evidence items are in the report", evidence, total)
	}
}

// The timeline lists what matters and counts routine entries; the whole
// list is one click away, and there is one note, not two.
func TestTimelineCollapsesRoutine(t *testing.T) {
	doc := md(t, "cascade-cuda-oom-nccl-timeout", "en")
	tl := doc[strings.Index(doc, "## Timeline"):]
	main := before(tl, "<details>")
	if n := strings.Count(main, "\n| 2026-"); n > 14 {
		t.Errorf("the timeline shows %d rows before the full list; routine entries are not collapsed", n)
	}
	for _, want := range []string{"routine entries", "⚠️ container", "Failed=True"} {
		if !strings.Contains(main, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	if !strings.Contains(tl, "<summary>All 53 entries</summary>") {
		t.Errorf("the full timeline is not one click away")
	}
	if strings.Count(main, "*") == 0 || strings.Count(main, "entries are") > 1 {
		t.Errorf("the timeline has no note, or more than one")
	}
}

// The title is said once at the top, in the verdict; the primary section
// does not repeat it as its heading.
func TestTitleNotRepeated(t *testing.T) {
	doc := md(t, "cascade-cuda-oom-nccl-timeout", "en")
	top := before(doc, "**Evidence:**")
	if n := strings.Count(top, "GPU out of memory"); n != 1 {
		t.Errorf("the title appears %d times before the evidence, want once", n)
	}
}

// Every in-page link of every saved report leads to a heading, by the id
// GitHub gives it.
func TestLinksResolveOnGitHub(t *testing.T) {
	for _, name := range append([]string{"handwritten"}, fixtureNames()...) {
		rep := loadReport(t, name)
		for _, lang := range Languages {
			checkMarkdown(t, rep, lang, ReportMarkdown(rep, lang, "test"))
			for i := range rep.Jobs {
				checkMarkdown(t, rep, lang, JobMarkdown(&rep.Jobs[i], rep, lang))
			}
		}
	}
}

func TestGitHubSlugs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Primary cause", "primary-cause"},
		{"主要原因", "主要原因"},
		{"PyTorchJob pretrain/gpt-7b-pretrain", "pytorchjob-pretraingpt-7b-pretrain"},
		{"🔴 Features", "-features"},
		{"Consequence: Collective operation timed out", "consequence-collective-operation-timed-out"},
		{"a_b  c", "a_b--c"},
	}
	for _, tc := range tests {
		if got := githubSlug(tc.in); got != tc.want {
			t.Errorf("githubSlug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	u := slugs{}
	var got []string
	for _, h := range []string{"Evidence", "Evidence", "Evidence-1", "Evidence"} {
		got = append(got, u.next(h))
	}
	if want := "evidence evidence-1 evidence-1-1 evidence-2"; strings.Join(got, " ") != want {
		t.Errorf("repeated headings get %v, want %s", got, want)
	}
}

// Suspended and debug-mode jobs are held, not failing: their own state
// and colour, no restart advice.
func TestHeldStates(t *testing.T) {
	rep := loadReport(t, "job-suspended")
	for i := range rep.Jobs {
		j := &rep.Jobs[i]
		if got := JobState(j); got != StateSuspended {
			t.Errorf("%s: state %s, want suspended", j.Key(), got)
		}
	}
	doc := string(ReportMarkdown(rep, "en", "test"))
	if strings.Contains(doc, "Not healthy") || strings.Contains(doc, "**Restart:**") {
		t.Errorf("a suspended job reads as failing")
	}
	page, err := reportHTML(rep, "en", "test")
	if err != nil {
		t.Fatal(err)
	}
	body := string(page)[strings.Index(string(page), "<body>"):]
	if !strings.Contains(body, `class="badge state-suspended"`) || strings.Contains(body, "state-unhealthy") {
		t.Errorf("the suspended state is not shown as its own state")
	}
	for _, tc := range []struct {
		job  report.Job
		want string
	}{
		{report.Job{Healthy: true}, StateHealthy},
		{report.Job{Primary: &report.Finding{Category: "job.debug-mode"}}, StateDebug},
		{report.Job{Phase: "Suspended", Primary: &report.Finding{Category: "sched.quota-exceeded"}}, StateUnhealthy},
		{report.Job{Primary: &report.Finding{Category: "exec.cuda-oom"}}, StateUnhealthy},
	} {
		if got := JobState(&tc.job); got != tc.want {
			t.Errorf("JobState(%+v) = %s, want %s", tc.job, got, tc.want)
		}
	}
}

// Advice fits the case: bullets for other exit codes are left out, and
// placeholders take the finding's pod and node.
func TestAdviceFitsTheCase(t *testing.T) {
	code := 1
	j := &report.Job{Namespace: "ml", Name: "llama", Pods: []report.Pod{{Name: "llama-worker-3", Node: "gpu-node-7", ExitCode: &code}}}
	f := &report.Finding{
		Params:   map[string]any{"code": 1.0},
		Subjects: []report.Subject{{Kind: "Pod", Name: "llama-worker-3", Container: "pytorch"}},
		Remediation: report.Text{En: "- Read the end of the log (`kubectl logs <pod> -c <container> --previous`).\n" +
			"- 127/126: check the command and image.\n- 2: check the arguments.\n" +
			"- \"were unschedulable\": the nodes are cordoned.\n- \"Insufficient nvidia.com/gpu\": ask for fewer GPUs.\n" +
			"- Cordon the node (`kubectl cordon <node>`)."},
		Evidence: []report.Evidence{{Kind: "event", Text: "0/7 nodes are available: 7 Insufficient nvidia.com/gpu."}},
	}
	got := adviceMarkdown(j, f, "en")
	for _, want := range []string{"`kubectl logs llama-worker-3 -c pytorch --previous`", "`kubectl cordon gpu-node-7`", "Insufficient nvidia.com/gpu"} {
		if !strings.Contains(got, want) {
			t.Errorf("advice lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"127/126", "2: check", "were unschedulable"} {
		if strings.Contains(got, not) {
			t.Errorf("advice keeps %q, which does not apply:\n%s", not, got)
		}
	}
	// An unsafe name is not put into a command.
	j.Pods[0].Node = "gpu`; rm -rf /"
	if got := adviceMarkdown(j, f, "en"); !strings.Contains(got, "`kubectl cordon <node>`") {
		t.Errorf("an unsafe node name was filled in:\n%s", got)
	}
	// Without a known code, every bullet stays.
	f.Params, j.Pods[0].ExitCode = nil, nil
	if got := adviceMarkdown(j, f, "en"); !strings.Contains(got, "127/126") {
		t.Errorf("advice dropped a bullet without a known exit code:\n%s", got)
	}
}

// A failing pod whose log was not collected says so.
func TestMissingLogNotice(t *testing.T) {
	code := 137
	j := report.Job{Kind: "PyTorchJob", Namespace: "ml", Name: "x", Primary: &report.Finding{ID: "a", Rule: "r", Severity: "error",
		Subjects: []report.Subject{{Kind: "Pod", Name: "x-master-0"}}}, Pods: []report.Pod{{Name: "x-master-0", ExitCode: &code, State: "terminated: OOMKilled"}}}
	j.Findings = []report.Finding{*j.Primary}
	doc := string(JobMarkdown(&j, &report.Report{}, "en"))
	if !strings.Contains(doc, "No log was collected from pod `x-master-0`") {
		t.Errorf("no notice of the missing log:\n%s", doc)
	}
}

// A consequence's owner is the primary's: the verdict and its consequence
// must not send the reader to two teams.
func TestConsequenceOwnerFollowsVerdict(t *testing.T) {
	rep := loadReport(t, "cascade-cuda-oom-nccl-timeout")
	rep.Jobs[0].Primary.Owner = report.OwnerHardware
	rep.Jobs[0].Findings[0].Owner = report.OwnerHardware
	doc := string(ReportMarkdown(rep, "en", "test"))
	cons := doc[strings.Index(doc, "### Consequence"):]
	if !strings.Contains(before(cons, "\n\n---"), "who acts: as for the primary cause (Hardware team)") {
		t.Errorf("the consequence names another owner:\n%s", before(cons, "**Evidence"))
	}
}

// Risks are advisories and acknowledged findings known issues: shown,
// marked, never the verdict.
func TestAdvisoriesAndKnownIssues(t *testing.T) {
	rep := loadReport(t, "risk-running-no-shm")
	doc := string(ReportMarkdown(rep, "en", "test"))
	if !strings.Contains(doc, "## Advisories") || !strings.Contains(doc, "💡 advisory: not a fault yet") || !strings.Contains(doc, "**✅ Healthy") {
		t.Errorf("the risk is not an advisory of a healthy job:\n%s", before(doc, "## Pods"))
	}
	rep.Jobs[0].Findings[1].Acknowledged, rep.Jobs[0].Findings[1].AcknowledgedBy = true, "settings.acknowledge"
	doc = string(ReportMarkdown(rep, "en", "test"))
	if !strings.Contains(doc, "## Known issues") || !strings.Contains(doc, "acknowledged by `settings.acknowledge`") {
		t.Errorf("the acknowledged finding is not a known issue:\n%s", before(doc, "## Pods"))
	}
}

// The terminal output says what [phase] means, uses the reports' words
// for who acts, and shows an LLM failure.
func TestTextOutput(t *testing.T) {
	rep := loadReport(t, "seed-master-oom-137")
	rep.Jobs[0].Explanation = &report.Explanation{Missing: "the LLM request timed out after 1m0s"}
	var b bytes.Buffer
	if err := Write(&b, "text", rep, Options{Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Who acts:", OwnerLabel("en", report.OwnerUser),
		"phase Failed",
		"No explanation: the LLM request timed out after 1m0s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if regexp.MustCompile(`\[\w+, \w+\]`).MatchString(out) {
		t.Errorf("text output has an unexplained [x, y]:\n%s", out)
	}
	mdDoc := string(ReportMarkdown(rep, "en", "test"))
	if !strings.Contains(mdDoc, "**Who acts:** "+OwnerLabel("en", report.OwnerUser)) {
		t.Errorf("Markdown words who acts differently")
	}
}

// Chinese tables line up in a terminal: columns are padded by display
// cells, so every row's columns start at the same cell.
func TestChineseTableAligned(t *testing.T) {
	rep := loadReport(t, "job-suspended")
	var b bytes.Buffer
	if err := Write(&b, "table", rep, Options{Lang: "zh"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("table:\n%s", b.String())
	}
	starts := func(l string) []int {
		var out []int
		cells, prevSpace := 0, true
		for _, r := range l {
			if r != ' ' && prevSpace && cells > 0 {
				out = append(out, cells)
			}
			prevSpace = r == ' '
			cells += runeCells(r)
		}
		return out
	}
	want := starts(lines[0])
	for _, l := range lines[1:] {
		got := starts(l)
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("column %d starts at cell %d, header at %d:\n%s", i+1, got[i], want[i], b.String())
				break
			}
		}
	}
	if cellWidth("不健康") != 6 || cellWidth("ok") != 2 || cellWidth("é") != 1 {
		t.Errorf("cellWidth counts wrong")
	}
}
