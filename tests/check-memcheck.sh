#!/bin/sh
# make check-memcheck: every Check suite with fthr preloaded, under
# Valgrind's memcheck (each test's forked child too): no invalid access, no
# use of an uninitialised value, no definite or indirect leak. About half
# an hour on 2 cpus, so not part of make check (tests/tools.sh runs memcheck
# on the small programs there). Logs: memcheck-logs/SUITE/PID.log. The
# verdict is memcheck's: a suite must run to its summary, and its own
# failures under Valgrind's one-thread-at-a-time pace are listed.
# Env: FTHR_LIB, FTHR_BUILDDIR, FTHR_SRCDIR; MEMCHECK_SUITES to choose
# suites (default: every suite of tests/suites.list).
set -u
lib=${FTHR_LIB:?}
b=${FTHR_BUILDDIR:-.}
srcdir=${FTHR_SRCDIR:-$(dirname "$0")/..}
suites=${MEMCHECK_SUITES:-$(sed '/^#/d; /^[[:space:]]*$/d; s/[[:space:]].*//; s/^/t_/' "$srcdir/tests/suites.list")}
out=memcheck-logs
rm -rf "$out"; mkdir -p "$out" || exit 99
pass=0 fail=0
fthr_frame='[(](thr_[a-z_]+|lll|futex_linux|self|host|cancel|thread_exit|wait|env|time64|version|diag_[a-z]+)[.]c:[0-9]+[)]|libfthr[.]so'
for s in $suites; do
	mkdir -p "$out/$s"
	# preloaded; a suite of fthr's internals (t_futex) linked
	if test -x "$b/tests/${s}_plain"; then
		prog=$b/tests/${s}_plain pre=$lib
	else
		prog=$b/tests/.libs/$s pre=
	fi
	# Check's per-test timeouts allow for memcheck's pace
	CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10} LD_PRELOAD=$pre \
		LD_LIBRARY_PATH=$(dirname "$lib") timeout 3600 valgrind --tool=memcheck --trace-children=yes \
		--leak-check=full --errors-for-leak-kinds=definite,indirect \
		--log-file="$out/$s/%p.log" "$prog" >"$out/$s/suite.out" 2>&1
	st=$?
	n=$(ls "$out/$s"/*.log 2>/dev/null | wc -l)
	# memcheck's reports whose stack passes through fthr (its source files,
	# or the library by name); the rest are the test program's or Check's
	cat "$out/$s"/*.log 2>/dev/null | awk -v fthr="$fthr_frame" '
		/^==[0-9]+== *$/ { if (blk ~ fthr && blk ~ kinds) print blk; blk = ""; next }
		{ blk = blk $0 "\n" }
		BEGIN { kinds = "Invalid|uninitialised|Uninitialised|definitely lost|indirectly lost|Syscall param|Mismatched|overlap" }
	' >"$out/$s/fthr-errors.txt"
	mine=$(grep -c 'Invalid\|ninitialised\|lost in loss record\|Syscall param\|Mismatched\|overlap' "$out/$s/fthr-errors.txt")
	others=$(cat "$out/$s"/*.log 2>/dev/null | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' | awk '{ t += $1 } END { print t + 0 }')
	summary=$(grep '^[0-9]*%: Checks' "$out/$s/suite.out")
	# memcheck's verdict on fthr decides: Valgrind runs one thread at a
	# time, so the suites' timing checks (a join within 5 s, how many
	# items a wake-up batches) may fail there, and are shown
	if [ "$mine" = 0 ] && [ -n "$summary" ] && [ "$st" != 124 ]; then
		echo "ok $s: $n processes, 0 memcheck errors in fthr ($others in all; suite under memcheck: $summary)"
		grep ':[FE]:' "$out/$s/suite.out" | sed 's/^/    (timing) /'
		pass=$((pass + 1))
	else
		echo "FAIL $s: exit $st, ${summary:-no summary}; $mine memcheck errors in fthr"
		head -80 "$out/$s/fthr-errors.txt"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
