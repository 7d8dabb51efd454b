#!/bin/sh
# CPython's own thread-heavy test suites (Debian's python3.11 and
# libpython3.11-testsuite), run on plain glibc and with fthr preloaded in
# the same run. fthr must give exactly glibc's results: the same tests run,
# the same tests pass. CPython is a client of nearly everything fthr has:
# semaphores for its locks, a mutex and condition variable for the GIL,
# thread-specific keys for thread states, named semaphores and fork in
# multiprocessing.
set -u
lib=${FTHR_LIB:?FTHR_LIB must name libfthr.so.0}
py=/usr/bin/python3.11
TESTS=${FTHR_PY_TESTS:-"test_threading test_thread test_queue test_threading_local
test_threadsignals test_sched test_concurrent_futures test_logging test_contextlib
test_importlib test_sys test_multiprocessing_fork"}
[ -x $py ] && $py -c 'import test.test_threading' 2>/dev/null ||
	{ echo "SKIP: needs python3.11 and libpython3.11-testsuite"; exit 77; }
LD_PRELOAD=$lib $py -c 'import sys; sys.exit("libfthr" not in open("/proc/self/maps").read())' ||
	{ echo "FAIL: fthr is not mapped into a preloaded python3.11"; exit 1; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# Counts from the JUnit report: "tests failures errors skipped".
counts() {
	$py - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
t = f = e = s = 0
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    t += 1
    f += tc.find("failure") is not None
    e += tc.find("error") is not None
    s += tc.find("skipped") is not None
print(t, f, e, s)
PY
}

rc=0
for how in glibc fthr; do
	pre=; [ $how = fthr ] && pre=$lib
	# shellcheck disable=SC2086
	LD_PRELOAD=$pre timeout 1200 $py -m test -j2 --timeout 600 \
		--junit-xml "$tmp/$how.xml" $TESTS >"$tmp/$how.log" 2>&1
	echo "$? $(counts "$tmp/$how.xml")" >"$tmp/$how.res"
	grep -E '^[0-9:]+ .*\[ *[0-9]+/[0-9]+' "$tmp/$how.log" | sed 's/.*\] //; s/ (.*//; s/ -- running: .*//' |
		sort >"$tmp/$how.tests"
	read -r st n f e s <"$tmp/$how.res"
	echo "$how: exit $st, $n test cases, $f failures, $e errors, $s skipped"
done
read -r gst gn gf ge gs <"$tmp/glibc.res"
read -r fst fn ff fe fs <"$tmp/fthr.res"
if ! diff -u "$tmp/glibc.tests" "$tmp/fthr.tests"; then
	echo "FAIL: per-suite results differ"; rc=1
fi
if [ "$fst" != "$gst" ] || [ "$ff" != "$gf" ] || [ "$fe" != "$ge" ]; then
	echo "FAIL: fthr's results differ from glibc's"; tail -40 "$tmp/fthr.log"; rc=1
fi
[ "$fst" = 0 ] || { echo "FAIL: the suites do not pass under fthr"; rc=1; }
[ "$fn" -gt 0 ] || { echo "FAIL: no test ran"; rc=1; }
exit $rc
