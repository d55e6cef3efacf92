// Package diagnose is the offline pipeline: snapshot → evidence → log scan
// → Rego rules → findings → primary cause → report. A live diagnosis runs
// the same pipeline over a snapshot the collector wrote.
package diagnose

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"

	"github.com/traindoc/traindoc/engine/evidence"
	"github.com/traindoc/traindoc/engine/policy"
	"github.com/traindoc/traindoc/engine/redact"
	"github.com/traindoc/traindoc/engine/report"
	"github.com/traindoc/traindoc/engine/snapshot"
	"github.com/traindoc/traindoc/internal/adapt"
)

// Options configure a diagnosis.
type Options struct {
	// Policies are user policy directories; DataFiles are data files
	// merged into the rules' data (thresholds).
	Policies  []string
	DataFiles []string
	// Rules and SkipRules select rules by id for this run.
	Rules     []string
	SkipRules []string
	// Jobs filters by name or namespace/name; empty means every job.
	Jobs []string
	// Version is written into the report.
	Version string
	// Concurrency bounds the jobs diagnosed at once (default: CPUs).
	Concurrency int
}

// Diagnoser holds compiled policies so that several snapshots can be
// diagnosed without compiling twice.
type Diagnoser struct {
	engine *policy.Engine
	logs   *logScanner
	opts   Options
}

// New compiles the policies.
func New(ctx context.Context, opts Options) (*Diagnoser, error) {
	e, err := policy.Load(ctx, policy.Options{Dirs: opts.Policies, DataFiles: opts.DataFiles, Rules: opts.Rules, SkipRules: opts.SkipRules})
	if err != nil {
		return nil, err
	}
	ls, err := newLogScanner(e)
	if err != nil {
		return nil, err
	}
	return &Diagnoser{engine: e, logs: ls, opts: opts}, nil
}

// Engine returns the compiled rules.
func (d *Diagnoser) Engine() *policy.Engine { return d.engine }

// Run diagnoses the snapshot at dir with freshly compiled policies.
func Run(ctx context.Context, dir string, opts Options) (*report.Report, error) {
	d, err := New(ctx, opts)
	if err != nil {
		return nil, err
	}
	return d.Diagnose(ctx, dir)
}

// Observer sees each job's evidence after its logs and in-pod outputs are
// read and before the rules run. A watcher uses it to add what one
// snapshot cannot show (when a step was first observed in an earlier
// round) and to keep facts the report does not carry (per-GPU
// utilisation, the job's stored object). It is called concurrently for
// different jobs.
type Observer func(snap *snapshot.Snapshot, job *evidence.Job)

// Diagnose reads and diagnoses one snapshot: a folder or a zip archive of one.
func (d *Diagnoser) Diagnose(ctx context.Context, dir string) (*report.Report, error) {
	return d.DiagnoseObserved(ctx, dir, nil)
}

// All diagnoses several snapshot directories, a few at a time
// (Concurrency), and returns their reports in the order of dirs. A run
// over many small snapshots would otherwise use one core: each snapshot's
// jobs are diagnosed concurrently, but a snapshot of one job has nothing
// to share. The error is the first one in the order of dirs.
func (d *Diagnoser) All(ctx context.Context, dirs []string) ([]*report.Report, error) {
	reps := make([]*report.Report, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, d.concurrency())
	for i, dir := range dirs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			reps[i], errs[i] = d.Diagnose(ctx, dir)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return reps, nil
}

// DiagnoseFS diagnoses a snapshot held in fsys, rooted at the snapshot
// folder: an archive, an embedded fixture, a test's fstest.MapFS. name
// stands for it in messages. Every file is read through fsys.
func (d *Diagnoser) DiagnoseFS(ctx context.Context, fsys fs.FS, name string) (*report.Report, error) {
	snap, err := snapshot.ReadFS(fsys, name)
	if err != nil {
		return nil, err
	}
	return d.diagnoseSnapshot(ctx, snap, nil)
}

// DiagnoseObserved is Diagnose with an observer (nil for none).
func (d *Diagnoser) DiagnoseObserved(ctx context.Context, dir string, observe Observer) (*report.Report, error) {
	snap, err := snapshot.Read(dir)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	return d.diagnoseSnapshot(ctx, snap, observe)
}

func (d *Diagnoser) diagnoseSnapshot(ctx context.Context, snap *snapshot.Snapshot, observe Observer) (*report.Report, error) {
	jobs, err := selectJobs(adapt.Build(snap), d.opts.Jobs)
	if err != nil {
		return nil, err
	}
	if observe == nil {
		// The snapshot was read here and its objects are now evidence;
		// letting them go keeps a 100,000-event snapshot's objects out of
		// the peak, which comes later, when the rules read the evidence.
		// An observer may still look at them.
		snap.Objects = nil
	}
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		Tool:          report.Tool{Name: "traindoc", Version: d.opts.Version},
		CollectedAt:   snap.CollectedAt,
		Source:        snapshotSource(snap),
		Warnings:      redact.Lines(append([]string{}, snap.Warnings...)),
		Jobs:          make([]report.Job, len(jobs)),
	}
	if rep.CollectedAt == "" && len(jobs) > 0 {
		rep.CollectedAt = jobs[0].Now
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, d.concurrency())
	for i, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, job *evidence.Job) {
			defer func() { <-sem; wg.Done() }()
			job.Events = aggregateEvents(job.Events)
			warnings := d.logs.attach(ctx, snap, job, d.concurrency())
			if observe != nil {
				observe(snap, job)
			}
			rj, err := d.diagnoseJob(ctx, job)
			rj.CollectedAt, rj.Cluster = cmp.Or(snap.CollectedAt, job.Now), snap.Cluster
			rj.Warnings = append(redact.Lines(warnings), rj.Warnings...)
			rj.Missing = missing(snap, job)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("diagnose %s %s/%s: %w", job.Kind, job.Namespace, job.Name, err)
			}
			rep.Jobs[i] = rj
		}(i, job)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	rep.Sort()
	sortStrings(rep.Warnings)
	return rep, nil
}

func (d *Diagnoser) concurrency() int {
	if d.opts.Concurrency > 0 {
		return d.opts.Concurrency
	}
	return runtime.GOMAXPROCS(0)
}

func snapshotSource(s *snapshot.Snapshot) string {
	if s.Context != "" {
		return "context " + s.Context
	}
	if s.Cluster != "" {
		return "cluster " + s.Cluster
	}
	return ""
}

// selectJobs keeps the jobs named by name or namespace/name; a name that
// matches nothing is an error.
func selectJobs(jobs []*evidence.Job, names []string) ([]*evidence.Job, error) {
	if len(names) == 0 {
		return jobs, nil
	}
	var out []*evidence.Job
	for _, n := range names {
		found := false
		for _, j := range jobs {
			if n == j.Name || n == j.Namespace+"/"+j.Name {
				out = append(out, j)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no job %q in the snapshot", n)
		}
	}
	return out, nil
}

// diagnoseJob evaluates the rules on one job and builds its report.
func (d *Diagnoser) diagnoseJob(ctx context.Context, job *evidence.Job) (report.Job, error) {
	raw, problems, err := d.engine.Eval(ctx, job)
	if err != nil {
		return report.Job{}, err
	}
	findings, more := assemble(d.engine, job, raw)
	rj := report.Job{
		Kind: job.Kind, APIVersion: job.APIVersion, Namespace: job.Namespace, Name: job.Name, UID: job.UID,
		Phase: job.Phase, KindPhase: kindPhase(job), CreatedAt: job.CreatedAt,
		Findings: findings, Notes: job.Notes,
		Replicas: replicas(job), Timeline: timeline(job), Progress: progress(job),
	}
	for _, p := range append(problems, more...) {
		rj.Warnings = append(rj.Warnings, p.String())
	}
	for _, n := range job.Nodes {
		rj.Nodes = append(rj.Nodes, n.Name)
	}
	for i := range rj.Findings {
		f := &rj.Findings[i]
		f.Acknowledged, f.AcknowledgedBy = d.engine.Acknowledged(f.Rule, job.Namespace, job.Name, job.Annotations)
	}
	choosePrimary(d.engine, &rj)
	rj.Pods = pods(job, rj.Findings)
	rj.Summary = summary(&rj)
	redactJob(&rj)
	return rj, nil
}

func kindPhase(job *evidence.Job) string {
	parts := []string{}
	for _, s := range []string{job.Status.Phase, job.Status.DeploymentStatus} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "/")
}
