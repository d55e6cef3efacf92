# Helpers for reading Python failures out of a log: which exception a log
# reports, and whether a matched line is the failure itself or something
# the program printed, handled and moved on from (an optional import that
# falls back, a cache file that is recreated, a download that is retried).
# This package emits no findings.
package traindoc.lib.python

import data.traindoc.lib.exec

# exception(lf) is the exception a log reports: the final line of its last
# traceback unless that is a launcher's wrapper (ChildFailedError,
# SignalException, ...), else the last rank exception line the scanner
# sampled that is not a wrapper.
exception(lf) := e if {
	e := object.get(lf, "exception", "")
	e != ""
	not exec.exception_type(e) in exec.wrapper_exceptions
} else := e if {
	es := [s.text |
		some s in lf.matches["launcher.exception"].samples
		not exec.exception_type(s.text) in exec.wrapper_exceptions
	]
	count(es) > 0
	e := es[count(es) - 1]
} else := ""

# exception_line holds for a line that is itself a raised exception
# ("KeyError: 'x'", "[rank3]: OSError: ...", "(RayTrainWorker pid=1) ValueError: ..."),
# as opposed to a message that mentions one.
exception_line(text) if regex.match(_exception_re, text)

_exception_re := `^(?:\[(?:default)?rank\d+\]:\s*|\[\d+,\d+\]<std(?:out|err)>:\s*|\([\w.:]+ pid=\d+[^)]*\)\s*)?(?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception|Interrupt|Exit|Failure)(?:\([\w.]+\))?: `

# rank_line holds for a line a launcher forwarded from one of its ranks.
rank_line(text) if regex.match(`^(?:\[(?:default)?rank\d+\]:|\[\d+,\d+\]<std(?:out|err)>:)`, text)

# in_final holds when a line belongs to the exception the log reports: it
# is a line of the reported traceback, or the exception line itself.
in_final(lf, text) if {
	t := trim_space(text)
	t != ""
	some l in object.get(lf, "traceback", [])
	contains(l, t)
}

in_final(lf, text) if {
	e := exception(lf)
	e != ""
	t := trim_space(text)
	t != ""
	_overlap(e, t)
}

_overlap(a, b) if contains(a, b)

_overlap(a, b) if contains(b, a)

# in_tail holds when a line is among the last lines of its log.
in_tail(lf, text) if {
	t := trim_space(text)
	t != ""
	some l in object.get(lf, "tail", [])
	contains(l, t)
}

# other_final holds when the log ends with an exception that is not this
# line: then a message printed earlier was not what stopped the program.
# An exception whose message ends with a colon continues on the next
# lines ("Failed to import X because of the following error (look up to
# see its traceback):"), which may be this one.
other_final(lf, text) if {
	e := trim_space(exception(lf))
	e != ""
	not endswith(e, ":")
	not in_final(lf, text)
}

# decisive(pod, c, h, s) holds when sample s of hit h (see exec.hits) is
# the failure of its container rather than a message the program handled:
# - the container is still running, training did not carry on after it in
#   its log (exec.hits already keeps only such matches) nor, for a rank
#   that logs no steps, anywhere in the job (see job_survived), or
# - it is part of the exception the log reports, or
# - it is among the last lines and no other exception ended the log, or
# - it is a raised exception that training did not survive, from a rank
#   or in a log that no other exception ended.
decisive(pod, c, _, s) if {
	not ended(pod, c)
	not job_survived(s)
}

decisive(pod, c, h, s) if {
	ended(pod, c)
	in_final(h.log, s.text)
}

decisive(pod, c, h, s) if {
	ended(pod, c)
	in_tail(h.log, s.text)
	not other_final(h.log, s.text)
}

decisive(pod, c, h, s) if {
	ended(pod, c)
	exception_line(s.text)
	not exec.survived(h.log, h.m)
	rank_line(s.text)
}

decisive(pod, c, h, s) if {
	ended(pod, c)
	exception_line(s.text)
	not exec.survived(h.log, h.m)
	not other_final(h.log, s.text)
}

# job_survived holds when the job logged steps well after the line: ranks
# other than the first often print no progress of their own, so their
# handled warnings are judged by the job's progress.
job_survived(s) if {
	t := object.get(s, "time", "")
	t != ""
	last := object.get(input, ["progress", "lastStepTime"], "")
	last != ""
	time.parse_rfc3339_ns(last) - time.parse_rfc3339_ns(t) > _survival_ns
}

# Five minutes of steps after a line.
_survival_ns := (5 * 60) * 1000000000

# ended holds when the container or the whole job ended badly.
ended(pod, c) if exec.failed_container(pod, c)

ended(_, _) if input.phase == "Failed"

# decisive_hits keeps, of a container's hits, those with a decisive sample,
# each reduced to its decisive samples (so that evidence shows them).
decisive_hits(pod, c, hs) := [object.union(h, {"m": object.union(h.m, {"samples": ss})}) |
	some h in hs
	ss := [s | some s in object.get(h.m, "samples", []); decisive(pod, c, h, s)]
	count(ss) > 0
]
