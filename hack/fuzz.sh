#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one at a time, for FUZZTIME
# each (default 1m). Targets are discovered, not listed: any
# `func FuzzX(f *testing.F)` in a package's test files is run, so a new one
# needs no change here.
#
#   hack/fuzz.sh                 # every target, FUZZTIME each
#   FUZZTIME=5s hack/fuzz.sh     # the short run `make fuzz-short` does
#   hack/fuzz.sh ./render/       # only the targets of these packages
#   FUZZLIST=1 hack/fuzz.sh      # list the targets, run nothing
#
# A failing input is written by `go test` to <pkg>/testdata/fuzz/FuzzX/;
# commit it with the fix, it then runs in every `go test` as a regression.
set -euo pipefail
cd "$(dirname "$0")/.."

GO="${GO:-go}"
FUZZTIME="${FUZZTIME:-1m}"
# go test spends up to 60 s shrinking each new interesting input, counted
# in FUZZTIME but not in the executions; for a target that is slow per
# input (FuzzReport) that was most of a run.
FUZZMINIMIZETIME="${FUZZMINIMIZETIME:-10s}"
pkgs=("$@")
[ ${#pkgs[@]} -gt 0 ] || pkgs=(./...)

# "<import path> <file>..." for each package with test files. go list
# applies build constraints and stays inside this module.
targets=()
while read -r pkg dir files; do
	for f in ${files//,/ }; do
		while read -r name; do
			targets+=("$pkg $name")
		done < <(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)([A-Za-z0-9_]* *\*testing\.F).*/\1/p' "$dir/$f")
	done
done < <("$GO" list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}} {{join .TestGoFiles ","}},{{join .XTestGoFiles ","}}{{end}}' "${pkgs[@]}")

if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz targets found in ${pkgs[*]}" >&2
	exit 1
fi
if [ -n "${FUZZLIST:-}" ]; then
	printf '%s\n' "${targets[@]}"
	exit 0
fi
echo "${#targets[@]} fuzz targets, ${FUZZTIME} each"

failed=()
for t in "${targets[@]}"; do
	pkg=${t% *} name=${t#* }
	log=$(mktemp)
	if "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME" "$pkg" >"$log" 2>&1; then
		# The last progress line carries the execution count.
		last=$(grep -o 'execs: [0-9]*' "$log" | tail -n1 || true)
		printf 'ok    %-28s %s (%s)\n' "$name" "${pkg#github.com/traindoc/traindoc/}" "${last:-no progress line}"
	else
		printf 'FAIL  %-28s %s\n' "$name" "${pkg#github.com/traindoc/traindoc/}"
		sed 's/^/      /' "$log" | grep -v '^      fuzz: elapsed' | tail -n 40
		failed+=("$name")
	fi
	rm -f "$log"
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "failed: ${failed[*]}" >&2
	exit 1
fi
