#!/bin/sh
# Runs every native Go fuzz target of gbench, one after another, each for
# FUZZTIME, and reports per target how long it took (wall_s, building
# included) and fuzzed, how many inputs it executed, how many new
# interesting inputs it found and whether it failed.
#
#   bench/fuzz.sh                          # every target, 10 minutes each
#   FUZZTIME=30s bench/fuzz.sh Conninfo    # the targets whose name matches
#   PARALLEL=2 NICE=19 bench/fuzz.sh       # workers per target, priority
#   FUZZTIME=5000x bench/fuzz.sh           # a count of inputs per target (CI)
#
# New interesting inputs stay in Go's fuzz cache (printed below); copy the
# ones worth keeping into the package's testdata/fuzz/TARGET to make them
# seeds. A failing input is written to testdata/fuzz/TARGET by go test
# itself: fix the bug and commit the file, so that every `go test` (and
# .ci/test.sh) runs it from then on. Exit status 1 when a target failed.
set -eu
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-10m}
# Go minimizes every new interesting input before it fuzzes on (60 s by
# default): on the large inputs of the merge and report targets (two 12 KB
# results, where new coverage is found every few inputs) a 10-minute run of
# FuzzMerge executed 19 inputs, and 5 s each still only 36 in 45 s. With
# at most 10 executions per minimization it ran 66,000 in 30 s. A failing
# input is then kept less minimized, which still reproduces it.
MINIMIZE=${MINIMIZE:-10x}
PARALLEL=${PARALLEL:-1}
NICE=${NICE:-0}
pattern=${1:-.}

log=$(mktemp -d "${TMPDIR:-/tmp}/gbench-fuzz.XXXXXX")
cache="$(go env GOCACHE)/fuzz/$(go list -m)"
summary="$log/summary"
printf '%-22s %-14s %8s %8s %12s %6s  %s\n' target package wall_s fuzzed execs new result >"$summary"
failed=0

# targets lists "package target" for every fuzz target matching pattern,
# read from the test files (quicker than building every package's tests).
targets() {
	grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . | sort |
		sed 's|^\./\(.*\)/[^/]*_test\.go:func |./\1 |' | grep -E -- " .*$pattern" || true
}

targets >"$log/targets"
[ -s "$log/targets" ] || { echo "no fuzz target matches $pattern" >&2; exit 1; }
echo "fuzzing $(wc -l <"$log/targets") targets for $FUZZTIME each, -parallel $PARALLEL; logs in $log" >&2

while read -r pkg target; do
	out="$log/$target.log"
	start=$(date +%s)
	status=ok
	nice -n "$NICE" go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$MINIMIZE" \
		-parallel "$PARALLEL" >"$out" 2>&1 </dev/null || status=FAIL
	secs=$(($(date +%s) - start))
	# The last progress line has the totals: "execs: N (...), new interesting: M (total: T)".
	last=$(grep 'execs:' "$out" | tail -n 1)
	fuzzed=$(echo "$last" | sed -n 's/.*elapsed: \([0-9hms.]*\),.*/\1/p')
	execs=$(echo "$last" | sed -n 's/.*execs: \([0-9]*\).*/\1/p')
	new=$(echo "$last" | sed -n 's/.*new interesting: \([0-9]*\).*/\1/p')
	# Go 1.26's fuzzing coordinator can report its own -fuzztime deadline
	# as a failure ("context deadline exceeded", nothing else, no input
	# written) when a worker is mid-call as the time runs out: a race in
	# internal/fuzz (go.dev/issue/75804, fixed in Go 1.27), not a finding.
	# It is reported as such; counts (FUZZTIME=5000x) cannot hit it.
	if [ "$status" = FAIL ] && ! grep -q 'Failing input written to\|^\s*--- FAIL: .*/\|panic:\|fuzz_test.go:\|_test.go:[0-9]' "$out" &&
		grep -q '^    context deadline exceeded$' "$out"; then
		status="ok (stopped by Go's fuzztime race, go.dev/issue/75804)"
	fi
	if [ "${status%% *}" = FAIL ]; then
		failed=1
		input=$(sed -n 's/.*Failing input written to \(.*\)$/\1/p' "$out" | tail -n 1)
		status="FAIL ${input:-(see $out)}"
		# The log stays in a temporary folder that a CI machine does not
		# keep: print why it failed, and the failing input, here.
		{
			echo "== $target failed; the end of $out:"
			grep -v '^fuzz: elapsed:' "$out" | tail -n 40
			if [ -n "$input" ] && [ -f "$pkg/$input" ]; then
				echo "== the failing input, $pkg/$input (first 2 KB, as go test wrote it):"
				head -c 2048 "$pkg/$input"
				echo
			fi
		} >&2
	fi
	printf '%-22s %-14s %8s %8s %12s %6s  %s\n' "$target" "${pkg#./}" "$secs" "${fuzzed:--}" \
		"${execs:-0}" "${new:-0}" "$status" >>"$summary"
	echo "$target: $status" >&2
done <"$log/targets"

cat "$summary"
echo "new interesting inputs are kept in $cache/TARGET" >&2
exit "$failed"
