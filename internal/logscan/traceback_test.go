package logscan

import (
	"strings"
	"testing"
)

// A launcher's summary (torchrun's ChildFailedError box) only says that a
// child failed; the log reports the child's own traceback printed just
// before it, and the summary only when nothing else explains it.
func TestLauncherSummaryYieldsToRankTraceback(t *testing.T) {
	rankTB := []string{
		"Traceback (most recent call last):",
		`  File "/workspace/train.py", line 40, in <module>`,
		"    main()",
		`  File "/workspace/train.py", line 31, in main`,
		"    ds = load(args.data)",
		"FileNotFoundError: [Errno 2] No such file or directory: '/data/train.jsonl'",
	}
	prefixed := func(p string, lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = p + l
		}
		return out
	}
	summary := []string{
		"Traceback (most recent call last):",
		`  File "/usr/local/bin/torchrun", line 8, in <module>`,
		"    sys.exit(main())",
		`  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 268, in launch_agent`,
		"    raise ChildFailedError(",
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
		"============================================================",
		"train.py FAILED",
		"------------------------------------------------------------",
		"Root Cause (first observed failure):",
		"[0]:",
		"  exitcode  : 1 (pid: 415)",
		"============================================================",
	}
	// PyTorch 1.9/1.10 drew the box with asterisks first.
	oldSummary := append(append([]string{}, summary[:6]...),
		"***************************************",
		"            train.py FAILED            ",
		"=======================================",
		"Root Cause:",
		"[0]:",
		"  exitcode: 1 (pid: 415)",
		"=======================================",
	)
	noise := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "[2026-03-10 15:06:49,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 412 closing signal SIGTERM"
		}
		return out
	}
	join := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, "\n") + "\n"
	}
	const childFailed = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:"
	const notFound = "FileNotFoundError: [Errno 2] No such file or directory: '/data/train.jsonl'"
	tests := []struct {
		name      string
		log       string
		exception string
		frame     string // a line the reported traceback must hold
	}{
		{"rank traceback then summary", join(rankTB, noise(7), summary), notFound, `  File "/workspace/train.py", line 31, in main`},
		{"rank-prefixed traceback then summary", join(prefixed("[rank3]: ", rankTB), noise(3), summary), notFound, `[rank3]:   File "/workspace/train.py", line 31, in main`},
		{"old asterisk box", join(rankTB, oldSummary), notFound, "    ds = load(args.data)"},
		{"summary alone: a child killed by a signal", join(noise(3), summary), childFailed, "train.py FAILED"},
		{"handled traceback long before the summary", join(rankTB, noise(maxSummaryGap+5), summary), childFailed, "  exitcode  : 1 (pid: 415)"},
		{"a later plain traceback still wins", join(summary, noise(2), rankTB), notFound, "    main()"},
	}
	s := mustCompile(t, testSignatures(), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := scanString(t, s, tt.log, Options{})
			if !strings.HasPrefix(lf.Exception, tt.exception) {
				t.Errorf("exception = %q, want prefix %q", lf.Exception, tt.exception)
			}
			found := false
			for _, l := range lf.Traceback {
				found = found || l == tt.frame
			}
			if !found {
				t.Errorf("traceback misses %q:\n%s", tt.frame, strings.Join(lf.Traceback, "\n"))
			}
		})
	}
}

// An exception whose message merely starts on the next line is not a
// launcher's summary: only a ruled box is.
func TestMultilineMessageIsNotSummary(t *testing.T) {
	log := strings.Join([]string{
		"Traceback (most recent call last):",
		`  File "/workspace/prep.py", line 9, in <module>`,
		"    check()",
		"KeyError: 'vocab'",
		"step 1",
		"Traceback (most recent call last):",
		`  File "/workspace/train.py", line 12, in <module>`,
		"    validate(cfg)",
		"ValueError: ",
		"  model.hidden_size must be divisible by num_heads",
		"",
	}, "\n")
	lf := scanString(t, mustCompile(t, testSignatures(), nil), log, Options{})
	if lf.Exception != "ValueError:" {
		t.Errorf("exception = %q, want the last traceback's", lf.Exception)
	}
}

// PyTorch re-raises a DataLoader worker's exception with the worker's own
// traceback after "Original Traceback": its last line is the real error.
func TestOriginalTraceback(t *testing.T) {
	log := strings.Join([]string{
		"Traceback (most recent call last):",
		`  File "/workspace/train.py", line 969, in train`,
		"    trainer.train()",
		`  File "/usr/local/lib/python3.10/dist-packages/torch/_utils.py", line 722, in reraise`,
		"    raise exception",
		"KeyError: Caught KeyError in DataLoader worker process 3.",
		"Original Traceback (most recent call last):",
		`  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop`,
		"    data = fetcher.fetch(index)",
		`  File "/workspace/collate.py", line 48, in __call__`,
		"    images = [x['image'] for x in instances]",
		"KeyError: 'image'",
		"",
		"[2026-05-26 15:21:10,300] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 2110 closing signal SIGTERM",
		"",
	}, "\n")
	lf := scanString(t, mustCompile(t, testSignatures(), nil), log, Options{})
	if lf.Exception != "KeyError: 'image'" {
		t.Errorf("exception = %q", lf.Exception)
	}
	if n := len(lf.Traceback); n != 12 {
		t.Errorf("traceback has %d lines:\n%s", n, strings.Join(lf.Traceback, "\n"))
	}
}
