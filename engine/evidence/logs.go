package evidence

// LogFile is what one streaming pass over one container log found. Rules
// never see a whole log: they see the lines that matched the signatures the
// rules declared, a few lines of context around them, match counts and
// times, the last lines, and the last Python traceback.
type LogFile struct {
	// File is the snapshot-relative path, e.g. logs/pod/container.log.
	File string `json:"file"`
	// Previous is true for the instance before the last restart.
	Previous bool `json:"previous"`
	// Exec is true for the output of a command run in the pod (a kernel
	// log, a notebook's output) scanned like a log: it never counts as
	// training progress.
	Exec  bool  `json:"exec,omitempty"`
	Lines int   `json:"lines"`
	Bytes int64 `json:"bytes"`
	// Binary is true when the file looked like binary data; such lines are
	// counted but not matched.
	Binary bool `json:"binary,omitempty"`
	// SkippedBytes counts the bytes that were read but not matched (all of
	// a binary file, the middle of over-long lines, NUL bytes); Skipped
	// says why. Every other byte of the file was matched.
	SkippedBytes int64        `json:"skippedBytes,omitempty"`
	Skipped      []SkipReason `json:"skipped,omitempty"`
	// LongLines counts lines longer than the scanner's line limit: their
	// head and tail were matched, their middle skipped.
	LongLines int `json:"longLines,omitempty"`
	// FirstTime and LastTime are the first and last --timestamps prefixes.
	FirstTime string `json:"firstTime,omitempty"`
	LastTime  string `json:"lastTime,omitempty"`
	// Matches maps a signature id to what matched it.
	Matches map[string]SignatureMatch `json:"matches"`
	// Tail is the last lines of the file (timestamps stripped).
	Tail []string `json:"tail"`
	// Traceback is the last Python traceback block, whole, when there is one.
	Traceback []string `json:"traceback,omitempty"`
	// Exception is the final "Type: message" line of that traceback.
	Exception string `json:"exception,omitempty"`
	// Progress is what the progress patterns extracted from this file.
	Progress *LogProgress `json:"progress,omitempty"`
}

// SkipReason is why some bytes of a log were not matched.
type SkipReason struct {
	// Reason is "binary", "long-line" or "nul".
	Reason string `json:"reason"`
	Bytes  int64  `json:"bytes"`
	// Lines is how many lines the bytes belong to, when known.
	Lines int `json:"lines,omitempty"`
}

// SignatureMatch aggregates the matches of one signature in one file.
type SignatureMatch struct {
	Count int `json:"count"`
	// FirstLine and LastLine are 1-based line numbers.
	FirstLine int    `json:"firstLine"`
	LastLine  int    `json:"lastLine"`
	FirstTime string `json:"firstTime,omitempty"`
	LastTime  string `json:"lastTime,omitempty"`
	// Samples are the first few matches (and the last one) with context.
	Samples []LogLine `json:"samples"`
	// Groups are the named capture groups of the first match.
	Groups map[string]string `json:"groups,omitempty"`
}

// LogLine is one matched line with its surroundings.
type LogLine struct {
	Line   int      `json:"line"`
	Time   string   `json:"time,omitempty"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// LogProgress is the training progress one log shows.
type LogProgress struct {
	FirstStep    *int64   `json:"firstStep,omitempty"`
	LastStep     *int64   `json:"lastStep,omitempty"`
	LastStepTime string   `json:"lastStepTime,omitempty"`
	LastStepLine int      `json:"lastStepLine,omitempty"`
	TotalSteps   *int64   `json:"totalSteps,omitempty"`
	StepSamples  int      `json:"stepSamples"`
	LastLoss     *float64 `json:"lastLoss,omitempty"`
	// NonFiniteLoss counts loss values that were nan or inf.
	NonFiniteLoss int `json:"nonFiniteLoss"`
	// Throughput is the series of the one throughput unit seen most.
	Throughput *Throughput `json:"throughput,omitempty"`
	// LastSavedStep is the step of the last checkpoint save the log
	// reports, LastSavedLine and LastSavedTime where and when.
	LastSavedStep *int64 `json:"lastSavedStep,omitempty"`
	LastSavedLine int    `json:"lastSavedLine,omitempty"`
	LastSavedTime string `json:"lastSavedTime,omitempty"`
	// Metrics track the values progress patterns read besides the step,
	// by the name of the group that read them (loss, grad_norm,
	// nan_iters...). What a value means is the rules' business.
	Metrics map[string]MetricTrack `json:"metrics,omitempty"`
}

// MetricTrack is what one log's reports of one metric show, in bounded
// space however long the log: how many there were, where the value was
// last finite, where it was not, and how the reports end. A report is a
// line (or carriage-return segment) that gave the metric a value.
type MetricTrack struct {
	Reports int `json:"reports"`
	// NonFinite counts the reports whose value was nan or inf.
	NonFinite int `json:"nonFinite"`
	// Last is the last report; its value is absent when it was not
	// finite.
	Last MetricPoint `json:"last"`
	// LastFinite is the last report with a finite value (without text).
	LastFinite *MetricPoint `json:"lastFinite,omitempty"`
	// FirstNonFinite and LastNonFinite are the first and last reports
	// whose value was nan or inf.
	FirstNonFinite *MetricPoint `json:"firstNonFinite,omitempty"`
	LastNonFinite  *MetricPoint `json:"lastNonFinite,omitempty"`
	// NonFiniteRun is how many reports in a row, up to the last one,
	// were not finite; NonFiniteSince is the first of them.
	NonFiniteRun   int          `json:"nonFiniteRun"`
	NonFiniteSince *MetricPoint `json:"nonFiniteSince,omitempty"`
	// NonZeroRun is how many reports in a row, up to the last one, were
	// not zero (nan and inf included); NonZeroSince is the first of them.
	NonZeroRun   int          `json:"nonZeroRun"`
	NonZeroSince *MetricPoint `json:"nonZeroSince,omitempty"`
}

// MetricPoint is one report of a metric.
type MetricPoint struct {
	// Line is 1-based; Time is the line's time when known.
	Line int    `json:"line"`
	Time string `json:"time,omitempty"`
	// Step is the step the same line reported, when it did.
	Step *int64 `json:"step,omitempty"`
	// Value is absent when the value was nan or inf.
	Value *float64 `json:"value,omitempty"`
	// Text is the line (timestamp stripped, cut like samples).
	Text string `json:"text,omitempty"`
}

// Throughput summarises a throughput series (samples/s, tokens/s, it/s).
type Throughput struct {
	Unit    string `json:"unit"`
	Samples int    `json:"samples"`
	// Baseline is the median of the first part of the series; Recent the
	// median of the last part; Last the last value.
	Baseline float64 `json:"baseline"`
	Recent   float64 `json:"recent"`
	Last     float64 `json:"last"`
	// RecentSince is when the recent window starts.
	RecentSince string `json:"recentSince,omitempty"`
}

// Progress is the job-level view: the most advanced log, and the in-pod
// outputs that say whether the job is really training.
type Progress struct {
	// Known is true when any log showed steps or throughput.
	Known        bool   `json:"known"`
	LastStep     *int64 `json:"lastStep,omitempty"`
	LastStepTime string `json:"lastStepTime,omitempty"`
	TotalSteps   *int64 `json:"totalSteps,omitempty"`
	Source       string `json:"source,omitempty"`
	// LastLogTime is the newest timestamp in any log of the job.
	LastLogTime string      `json:"lastLogTime,omitempty"`
	Throughput  *Throughput `json:"throughput,omitempty"`
	LastLoss    *float64    `json:"lastLoss,omitempty"`
	// LastSavedStep is the newest checkpoint save any log reports, and
	// LastSavedTime when the log that reports it says it was.
	LastSavedStep *int64 `json:"lastSavedStep,omitempty"`
	LastSavedTime string `json:"lastSavedTime,omitempty"`
	// Checkpoint is the newest checkpoint seen in a checkpoint listing.
	Checkpoint *Checkpoints `json:"checkpoint,omitempty"`
}

// ExecOutputs are parsed outputs of commands run inside a pod.
type ExecOutputs struct {
	NvidiaSMI   *NvidiaSMI   `json:"nvidiaSmi,omitempty"`
	RayStatus   *RayStatus   `json:"rayStatus,omitempty"`
	RayJobs     []RayJobInfo `json:"rayJobs,omitempty"`
	Checkpoints *Checkpoints `json:"checkpoints,omitempty"`
	// Other are outputs of other commands, kept as evidence (trimmed).
	Other []ExecText `json:"other,omitempty"`
}

// NvidiaSMI is parsed nvidia-smi output (plain table or CSV).
type NvidiaSMI struct {
	File string `json:"file"`
	GPUs []GPU  `json:"gpus"`
	// AvgUtilization is the mean utilization.gpu over GPUs, in percent.
	AvgUtilization float64 `json:"avgUtilization"`
	Processes      int     `json:"processes"`
	// Error is set when nvidia-smi itself reported a failure (e.g. "Unable
	// to determine the device handle", "GPU is lost").
	Error string `json:"error,omitempty"`
}

// GPU is one GPU row of nvidia-smi.
type GPU struct {
	Index       int     `json:"index"`
	Name        string  `json:"name,omitempty"`
	Utilization float64 `json:"utilization"`
	MemoryUsed  float64 `json:"memoryUsedMiB"`
	MemoryTotal float64 `json:"memoryTotalMiB"`
	// ErrCells names the cells of the GPU's table rows that read "ERR!"
	// (the driver could not read that value): "name", "fan", "temp", "perf",
	// "power", "disp", "ecc", "memory", "util", "compute". What they mean
	// is for the rules to judge.
	ErrCells []string `json:"errCells,omitempty"`
}

// RayStatus is parsed `ray status` output.
type RayStatus struct {
	File         string  `json:"file"`
	GPUsUsed     float64 `json:"gpusUsed"`
	GPUsTotal    float64 `json:"gpusTotal"`
	CPUsUsed     float64 `json:"cpusUsed"`
	CPUsTotal    float64 `json:"cpusTotal"`
	ActiveNodes  int     `json:"activeNodes"`
	PendingNodes int     `json:"pendingNodes"`
	// Demands are the "Demands:" lines (pending resource requests).
	Demands []string `json:"demands,omitempty"`
}

// RayJobInfo is one entry of `ray job list`.
type RayJobInfo struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Entrypoint string `json:"entrypoint,omitempty"`
	Message    string `json:"message,omitempty"`
}

// Checkpoints is a parsed checkpoint listing.
type Checkpoints struct {
	File       string  `json:"file"`
	Steps      []int64 `json:"steps"`
	LatestStep *int64  `json:"latestStep,omitempty"`
	// LatestTime is the modification time of the newest checkpoint, when
	// the listing shows it.
	LatestTime string `json:"latestTime,omitempty"`
}

// ExecText is an unparsed command output.
type ExecText struct {
	Name string `json:"name"`
	File string `json:"file"`
	Text string `json:"text"`
}
