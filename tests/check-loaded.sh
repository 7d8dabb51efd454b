#!/bin/sh
# make check-loaded: the threaded Check suites (LOADED_TESTS, from the
# Makefile) run ROUNDS times in a row, make check TESTS=..., while as many
# busy loops as there are CPUs run in other processes, so that the suites'
# threads are preempted in the middle of their protocols. It fails if any
# round fails. Per round it prints the # PASS/# FAIL summary and the failing
# tests by name, with Check's messages; a failing round's test-suite.log is
# kept as check-loaded-round-N.log. The per-test logs and results it
# overwrites (those of a make check just before: scripts/ci-totals reads
# them) are put back when it ends.
# Environment: MAKE, LOADED_TESTS; CHECK_LOADED_ROUNDS (3),
# CHECK_LOADED_HOGS (the number of CPUs, nproc).
set -u
make=${MAKE:-make}
tests=${LOADED_TESTS:?LOADED_TESTS: the tests to run}
rounds=${CHECK_LOADED_ROUNDS:-3}
nhogs=${CHECK_LOADED_HOGS:-$(nproc 2>/dev/null || echo 2)}
stash=$(mktemp -d "${TMPDIR:-/tmp}/fthr-check-loaded.XXXXXX") || exit 99
hogs=

# The files the rounds overwrite: each test's .log and .trs, test-suite.log.
files=test-suite.log
for t in $tests; do
	b=${t%.preload}; b=${b%.sh}
	files="$files $b.log $b.trs"
done
for f in $files; do
	[ -f "$f" ] || continue
	mkdir -p "$stash/$(dirname "$f")" && cp -p "$f" "$stash/$f"
done
restore() {
	for f in $files; do
		if [ -f "$stash/$f" ]; then cp -p "$stash/$f" "$f"; else rm -f "$f"; fi
	done
}

# Every exit (a failed round, an interrupt, a closed output, the end) stops
# the busy loops.
# Should this shell die without running its trap (SIGKILL), each loop
# notices within a tenth of a second that it is gone and stops.
cleanup() {
	for p in $hogs; do kill "$p" 2>/dev/null; done
	for p in $hogs; do wait "$p" 2>/dev/null; done
	hogs=
	restore
	rm -rf "$stash"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE

hog() { # busy while process $1 lives
	while kill -0 "$1" 2>/dev/null; do
		i=0; while [ $i -lt 50000 ]; do i=$((i + 1)); done
	done
}
n=0
while [ $n -lt "$nhogs" ]; do
	hog $$ &
	hogs="$hogs $!"
	n=$((n + 1))
done
echo "check-loaded: $rounds rounds, $nhogs busy loops (pids$hogs), tests: $(echo $tests)"

rm -f check-loaded-round-*.log
failed=
r=1
while [ $r -le "$rounds" ]; do
	for p in $hogs; do
		kill -0 "$p" 2>/dev/null || { echo "check-loaded: busy loop $p is gone"; exit 99; }
	done
	t0=$(date +%s)
	st=0
	$make check TESTS="$tests" >"$stash/out" 2>&1 || st=$?
	t1=$(date +%s)
	echo "round $r/$rounds ($((t1 - t0)) s): $(grep -E '^# [A-Z]+: ' "$stash/out" | tr -s ' \n' ' ')"
	grep -E '^(FAIL|XPASS|ERROR):' "$stash/out" | sed "s/\$/ (round $r)/"
	if [ $st != 0 ]; then
		failed="$failed $r"
		log=check-loaded-round-$r.log
		if [ -f test-suite.log ]; then
			cp test-suite.log "$log"
			# Check's failure lines: file:line:F|E:tcase:test:iteration: message
			grep -E '^[^ :]+:[0-9]+:[EF]:' "$log" | sed 's/^/	/'
		else
			cp "$stash/out" "$log"; tail -20 "$log" | sed 's/^/	/'
		fi
		echo "	(round $r failed, make exit $st; log: $log)"
	fi
	r=$((r + 1))
done
if [ -n "$failed" ]; then
	echo "check-loaded: round(s)$failed of $rounds failed"
	exit 1
fi
echo "check-loaded: all $rounds rounds passed"
