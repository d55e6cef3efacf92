// Package report is the one result model of traindoc. Everything after the
// rules consumes it: the text, JSON, Markdown, HTML, SARIF and JUnit outputs
// and the static site. A report saved as JSON can be rendered again later
// without the cluster, the rules or the LLM.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/traindoc/traindoc/engine/finding"
)

// SchemaVersion identifies the JSON shape of Report.
const SchemaVersion = "traindoc.report/v1"

// The severities, owners and Text are the rule engine's vocabulary
// (engine/finding); the report names them too so that its readers (render,
// site, the CLI) need only this package.

// Severities from lowest to highest.
const (
	SeverityInfo     = finding.SeverityInfo
	SeverityWarning  = finding.SeverityWarning
	SeverityError    = finding.SeverityError
	SeverityCritical = finding.SeverityCritical
)

// Owners: who acts on a finding.
const (
	OwnerUser     = finding.OwnerUser
	OwnerPlatform = finding.OwnerPlatform
	OwnerHardware = finding.OwnerHardware
)

// CategoryHealthy is the category of the primary finding of a healthy job.
const CategoryHealthy = "healthy"

// Job states.
const (
	StateHealthy   = "healthy"
	StateUnhealthy = "unhealthy"
	StateHeld      = "held"
)

// SeverityRank orders severities; unknown severities rank lowest.
func SeverityRank(s string) int { return finding.SeverityRank(s) }

// ValidSeverity reports whether s is one of the four severities.
func ValidSeverity(s string) bool { return finding.ValidSeverity(s) }

// Report is the result of one diagnosis run.
type Report struct {
	SchemaVersion string `json:"schemaVersion"`
	Tool          Tool   `json:"tool"`
	// CollectedAt is when the snapshot was taken (RFC 3339).
	CollectedAt string `json:"collectedAt"`
	// Source describes where the evidence came from (a snapshot path or a
	// cluster context).
	Source   string   `json:"source,omitempty"`
	Warnings []string `json:"warnings"`
	Jobs     []Job    `json:"jobs"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Job is the diagnosis of one training job.
type Job struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	UID        string `json:"uid,omitempty"`
	// Phase is the normalised phase; KindPhase the kind's own status word.
	Phase     string `json:"phase"`
	KindPhase string `json:"kindPhase,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
	// CollectedAt and Cluster are those of the snapshot this job was read
	// from: a report merged from several snapshots keeps each job's own.
	CollectedAt string `json:"collectedAt,omitempty"`
	Cluster     string `json:"cluster,omitempty"`
	Healthy     bool   `json:"healthy"`
	// State is healthy, unhealthy, or held: someone holds the job on
	// purpose (suspended, debug mode), which is neither.
	State string `json:"state,omitempty"`
	// Retryable is true when the primary cause is one a restart from the
	// newest checkpoint can fix (the taxonomy's retryable categories).
	Retryable bool `json:"retryable"`
	// Summary is the one-line reading of the job: the primary cause and how
	// the other findings group under it, rendered in every language for
	// readers of the JSON. SummaryParts is the same reading as data, which
	// renderers translate themselves.
	Summary      Text      `json:"summary"`
	SummaryParts []Part    `json:"summaryParts,omitempty"`
	Primary      *Finding  `json:"primary"`
	Findings     []Finding `json:"findings"`
	Replicas     []Replica `json:"replicas"`
	// Pods is one row per pod: where it ran and how it ended.
	Pods     []Pod     `json:"pods,omitempty"`
	Timeline []Entry   `json:"timeline"`
	Progress *Progress `json:"progress,omitempty"`
	Nodes    []string  `json:"nodes,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	// Missing lists what the diagnosis had to do without: logs, events or
	// pods that could not be collected or are not in the snapshot, with
	// why. A job with missing evidence was diagnosed from what was read.
	Missing []Missing `json:"missing,omitempty"`
	// Warnings are faults of traindoc's own on this job: a rule that failed
	// to evaluate, a finding that did not decode, a log or exec output that
	// could not be read or was only partly scanned.
	Warnings []string `json:"warnings,omitempty"`
	// Explanation is the optional LLM explanation written after the rules.
	Explanation *Explanation `json:"explanation,omitempty"`
}

// Key is namespace/name.
func (j *Job) Key() string { return j.Namespace + "/" + j.Name }

// Text is a string in every report language.
type Text = finding.Text

// Part is one clause of a structured summary: a catalogue key of
// internal/i18n with its parameters. Role says how the clause relates to
// the job's verdict (healthy, primary, consequence, also, more); Finding
// names the finding whose title fills the {title} placeholder, in the
// reader's language.
type Part struct {
	Role    string            `json:"role"`
	Key     string            `json:"key"`
	Params  map[string]string `json:"params,omitempty"`
	Finding string            `json:"finding,omitempty"`
}

// Roles of summary parts.
const (
	RoleHealthy     = "healthy"
	RolePrimary     = "primary"
	RoleConsequence = "consequence"
	RoleAlso        = "also"
	RoleMore        = "more"
)

// Finding is one conclusion of one rule about one job. Findings from the
// same rule with the same parameters on several pods are merged into one
// finding with several subjects, so a 512-rank job gets one NCCL-timeout
// finding, not 511.
type Finding struct {
	// ID is stable for the same job, rule and parameters; it is the
	// finding's permalink anchor.
	ID          string         `json:"id"`
	Rule        string         `json:"rule"`
	Category    string         `json:"category"`
	Layer       string         `json:"layer"`
	Severity    string         `json:"severity"`
	Owner       string         `json:"owner"`
	Title       Text           `json:"title"`
	Message     Text           `json:"message"`
	Remediation Text           `json:"remediation"`
	Params      map[string]any `json:"params,omitempty"`
	Subjects    []Subject      `json:"subjects,omitempty"`
	Evidence    []Evidence     `json:"evidence"`
	// FirstSeen is the time of the earliest evidence (RFC 3339).
	FirstSeen string `json:"firstSeen,omitempty"`
	// CausedBy is the ID of the finding that explains this one, when this
	// finding is a consequence.
	CausedBy    string `json:"causedBy,omitempty"`
	Consequence bool   `json:"consequence,omitempty"`
	// Risk marks a finding about a configuration likely to bite that has
	// not yet (the taxonomy's risks): an advisory, never the primary while
	// the job has a fault, and never enough to make a job unhealthy.
	Risk bool `json:"risk,omitempty"`
	// Acknowledged marks a known issue someone chose to accept (settings
	// or the job's traindoc.dev/ignore annotation): it is shown, but not
	// counted and never fails --fail-on. AcknowledgedBy says where.
	Acknowledged   bool   `json:"acknowledged,omitempty"`
	AcknowledgedBy string `json:"acknowledgedBy,omitempty"`
	// Retryable is false when the rule knows that a restart repeats this
	// finding although its category is one a restart can fix (NCCL
	// collectives that disagree, a liveness probe that kills every run);
	// nil leaves it to the category.
	Retryable *bool `json:"retryable,omitempty"`
}

// Subject is an object a finding is about: a pod (and container), a node,
// the job itself.
type Subject struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Container string `json:"container,omitempty"`
	// Rank is the global rank or replica index when known.
	Rank *int `json:"rank,omitempty"`
	// Node is the node the pod ran on; for a node finding, the node whose
	// fault the evidence shows.
	Node string `json:"node,omitempty"`
}

// Evidence is one fact that supports a finding.
type Evidence struct {
	// Kind is event, log, field, condition or exec.
	Kind string `json:"kind"`
	// Source says where: "pod ns/name container c", "event", a file path.
	Source string `json:"source"`
	// Object is the object the fact belongs to.
	Object *Object `json:"object,omitempty"`
	// Field is the object field, e.g. status.containerStatuses[main].lastState.terminated.
	Field string `json:"field,omitempty"`
	// File and Line locate a log line in the snapshot.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text"`
	// Before and After are the log lines around a log excerpt, so that a
	// reader sees the line in its context (the traceback above it, what
	// the process printed next).
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
	Time   string   `json:"time,omitempty"`
	// Count is how many times the fact was seen (event count, log matches).
	Count int `json:"count,omitempty"`
}

// Object names a Kubernetes object in evidence.
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// Replica is a row of the replica table.
type Replica struct {
	Type      string `json:"type"`
	Expected  int    `json:"expected"`
	Created   int    `json:"created"`
	Pending   int    `json:"pending"`
	Running   int    `json:"running"`
	Succeeded int    `json:"succeeded"`
	Failed    int    `json:"failed"`
	Restarts  int    `json:"restarts"`
}

// Missing is one piece of evidence a job was diagnosed without.
type Missing struct {
	// What is logs, previous-logs, events, pods, nodes, quotas, exec
	// <command>, jobs or cluster.
	What string `json:"what"`
	// Object names what it was about ("pod ml/w-1 container pytorch",
	// "namespace ml"); empty for the whole cluster.
	Object string `json:"object,omitempty"`
	Reason string `json:"reason"`
}

// Partial reports whether any job was diagnosed without some of its
// evidence.
func (r *Report) Partial() bool {
	for i := range r.Jobs {
		if len(r.Jobs[i].Missing) > 0 {
			return true
		}
	}
	return false
}

// Pod is a row of the per-pod table: the pod's role, where it ran, the
// state of its main container and the last line it logged.
type Pod struct {
	Name  string `json:"name"`
	Role  string `json:"role,omitempty"`
	Index *int   `json:"index,omitempty"`
	// Ranks are the global ranks findings name on this pod.
	Ranks []int  `json:"ranks,omitempty"`
	Node  string `json:"node,omitempty"`
	Phase string `json:"phase,omitempty"`
	// State is the main container's state and reason ("terminated:
	// OOMKilled", "waiting: CrashLoopBackOff", "running").
	State    string `json:"state,omitempty"`
	ExitCode *int   `json:"exitCode,omitempty"`
	Restarts int    `json:"restarts"`
	// LastLine is the last line of the main container's current log.
	LastLine string `json:"lastLine,omitempty"`
	// LastLines are the last lines of the log of the container's last run
	// (the previous instance's when it waits to restart), so that a reader
	// sees what a killed process printed before it died. TailPrevious
	// says they come from the previous instance.
	LastLines    []string `json:"lastLines,omitempty"`
	TailPrevious bool     `json:"tailPrevious,omitempty"`
	// Failing is true when this pod is a subject of a fault finding.
	Failing bool `json:"failing,omitempty"`
}

// Entry is one line of the job timeline.
type Entry struct {
	Time string `json:"time"`
	// Kind is condition, pod, container or event.
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Text   string `json:"text"`
	// TextZh is the Chinese text of entries whose words traindoc wrote
	// (pod created, container terminated); cluster text stays as it was.
	TextZh string `json:"textZh,omitempty"`
	// Key and Params are the words traindoc wrote as data: a catalogue key
	// of internal/i18n and its parameters, which renderers translate. An
	// entry without a key quotes the cluster (an event, a condition);
	// Reason is then the event's reason or the condition's type, which
	// groups routine entries.
	Key    string            `json:"key,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Reason string            `json:"reason,omitempty"`
	// Warning marks entries that are bad news (Warning events, failures).
	Warning bool `json:"warning,omitempty"`
}

// Progress is the training progress shown in reports.
type Progress struct {
	LastStep           *int64   `json:"lastStep,omitempty"`
	TotalSteps         *int64   `json:"totalSteps,omitempty"`
	LastStepTime       string   `json:"lastStepTime,omitempty"`
	Throughput         float64  `json:"throughput,omitempty"`
	ThroughputUnit     string   `json:"throughputUnit,omitempty"`
	BaselineThroughput float64  `json:"baselineThroughput,omitempty"`
	LastLoss           *float64 `json:"lastLoss,omitempty"`
	CheckpointStep     *int64   `json:"checkpointStep,omitempty"`
	CheckpointTime     string   `json:"checkpointTime,omitempty"`
	GPUUtilization     *float64 `json:"gpuUtilization,omitempty"`
}

// Explanation is the LLM's reading of the findings.
type Explanation struct {
	Model    string   `json:"model,omitempty"`
	Language string   `json:"language,omitempty"`
	Healthy  string   `json:"healthy,omitempty"`
	Error    string   `json:"error,omitempty"`
	Analysis string   `json:"analysis,omitempty"`
	Solution []string `json:"solution,omitempty"`
	// Missing says why there is no explanation (timeout, refusal, ...).
	Missing string `json:"missing,omitempty"`
	Cached  bool   `json:"cached,omitempty"`
}

// MaxSeverity is the highest severity among the job's findings.
func (j *Job) MaxSeverity() string {
	best := ""
	for i := range j.Findings {
		if SeverityRank(j.Findings[i].Severity) > SeverityRank(best) {
			best = j.Findings[i].Severity
		}
	}
	return best
}

// AllWarnings are the report's warnings followed by each job's own,
// prefixed with the job: what a one-list view (a terminal, a CI log)
// shows.
func (r *Report) AllWarnings() []string {
	out := append([]string{}, r.Warnings...)
	for i := range r.Jobs {
		for _, w := range r.Jobs[i].Warnings {
			out = append(out, r.Jobs[i].Key()+": "+w)
		}
	}
	return out
}

// Sort orders jobs by namespace and name so that output is deterministic.
func (r *Report) Sort() {
	sort.Slice(r.Jobs, func(a, b int) bool {
		if r.Jobs[a].Namespace != r.Jobs[b].Namespace {
			return r.Jobs[a].Namespace < r.Jobs[b].Namespace
		}
		if r.Jobs[a].Name != r.Jobs[b].Name {
			return r.Jobs[a].Name < r.Jobs[b].Name
		}
		return r.Jobs[a].Kind < r.Jobs[b].Kind
	})
}

// Write writes the report as indented JSON.
func (r *Report) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// Read parses a report written by Write.
func Read(rd io.Reader) (*Report, error) {
	var r Report
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("unsupported schemaVersion %q (want %q)", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

// ReadFile reads a saved JSON report.
func ReadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("read report %s: %w", path, err)
	}
	return r, nil
}

// FailsAt reports whether any job fails a gate at severity.
func (r *Report) FailsAt(severity string) bool {
	for i := range r.Jobs {
		if len(r.Jobs[i].Failing(severity)) > 0 {
			return true
		}
	}
	return false
}

// Failing returns the job's findings that fail a gate at severity: every
// finding at or above it except the healthy verdict, which is not a
// problem whatever severity it carries, and acknowledged findings. A CI gate, JUnit's failure count
// and the exit code all use this one definition.
func (j *Job) Failing(severity string) []*Finding {
	if !ValidSeverity(severity) {
		return nil
	}
	min := SeverityRank(severity)
	var out []*Finding
	for i := range j.Findings {
		f := &j.Findings[i]
		if f.Category != CategoryHealthy && !f.Acknowledged && SeverityRank(f.Severity) >= min {
			out = append(out, f)
		}
	}
	return out
}

// Merge makes one report of several, as one run over several snapshots:
// the jobs of all of them, each keeping its own snapshot's collectedAt and
// cluster; the newest collectedAt; the source when all agree; and every
// warning prefixed with the label of the report it came from (labels[i]
// names reps[i], e.g. the snapshot's path).
func Merge(reps []*Report, labels []string) *Report {
	if len(reps) == 1 {
		return reps[0]
	}
	out := &Report{SchemaVersion: SchemaVersion, Warnings: []string{}, Jobs: []Job{}}
	for i, r := range reps {
		if i == 0 {
			out.Tool, out.Source = r.Tool, r.Source
		}
		if r.Source != out.Source {
			out.Source = ""
		}
		if r.CollectedAt > out.CollectedAt {
			out.CollectedAt = r.CollectedAt
		}
		label := ""
		if i < len(labels) {
			label = labels[i]
		}
		for _, w := range r.Warnings {
			if label != "" {
				w = label + ": " + w
			}
			out.Warnings = append(out.Warnings, w)
		}
		out.Jobs = append(out.Jobs, r.Jobs...)
	}
	out.Sort()
	return out
}
