#!/bin/sh
# make check-memcheck: every Check suite with fthr preloaded, under
# Valgrind's memcheck (each test's forked child too): no invalid access, no
# use of an uninitialised value, no definite or indirect leak. About half
# an hour on 2 cpus, so not part of make check (tests/tools.sh runs memcheck
# on the small programs there). Logs: memcheck-logs/SUITE/PID.log.
# Env: FTHR_LIB, FTHR_BUILDDIR; MEMCHECK_SUITES to choose suites.
set -u
lib=${FTHR_LIB:?}
b=${FTHR_BUILDDIR:-.}
suites=${MEMCHECK_SUITES:-t_mutex t_mutexattr t_once t_spin t_abi t_futex t_cond t_sem t_rwlock t_barrier t_key t_c11 t_robust t_pi t_fork t_pp t_pshared}
out=memcheck-logs
rm -rf "$out"; mkdir -p "$out" || exit 99
pass=0 fail=0
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
	bad=$(grep -L "ERROR SUMMARY: 0 errors" "$out/$s"/*.log | wc -l)
	n=$(ls "$out/$s"/*.log | wc -l)
	summary=$(grep '^[0-9]*%: Checks' "$out/$s/suite.out")
	if [ "$st" = 0 ] && [ "$bad" = 0 ]; then
		echo "ok $s: $summary; $n processes, 0 memcheck errors"; pass=$((pass + 1))
	else
		echo "FAIL $s: exit $st, $summary; $bad of $n processes with memcheck errors"
		grep -l -v "ERROR SUMMARY: 0 errors" "$out/$s"/*.log >/dev/null 2>&1 &&
			for f in $(grep -L "ERROR SUMMARY: 0 errors" "$out/$s"/*.log | head -3); do sed -n '1,60p' "$f"; done
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
