#!/bin/sh
# tests/difftest.sh: differential testing against glibc (tests/difftest.c).
# DIFFTEST_COUNT sequences (default 3000; seeds from DIFFTEST_FIRST,
# default 1) run on plain glibc, with fthr preloaded and linked with
# -lfthr; every result must be the same. Then a planted difference
# (tests/diffplant.c, preloaded in front of fthr) must be found and shrunk
# to at most 4 calls: the comparison can fail. The long mode for soak runs:
#   DIFFTEST_COUNT=100000 make check TESTS=tests/difftest.sh
# (about 5 minutes on 2 cpus; any seed range: DIFFTEST_FIRST).
set -u
b=${FTHR_BUILDDIR:-.}/tests
lib=${FTHR_LIB:?}
count=${DIFFTEST_COUNT:-3000}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rc=0
export FTHR_LIB="$lib" DIFFTEST_LINKED="$b/difftest"
# (every run is bounded: a sequence that hangs prints TIMEOUT after 20 s)
timeout 3000 "$b/difftest_plain" drive "$count" "${DIFFTEST_FIRST:-1}" 48 || {
	echo "FAIL: the differential run found a difference (above)"; rc=1; }

${CC:-cc} -shared -fPIC -O2 -o "$tmp/diffplant.so" "${FTHR_SRCDIR:-.}/tests/diffplant.c" -ldl ||
	{ echo "FAIL: cannot build tests/diffplant.c"; exit 1; }
DIFFTEST_PLANT=$tmp/diffplant.so timeout 600 "$b/difftest_plain" drive 200 >"$tmp/plant" 2>&1
prc=$?
sed -n '1,12p' "$tmp/plant" | sed 's/^/planted: /'
tail -1 "$tmp/plant" | sed 's/^/planted: /'
if [ $prc -ne 1 ]; then
	echo "FAIL: the planted difference was not reported (exit $prc)"; rc=1
fi
for how in preloaded linked; do
	if ! grep -Eq "^DIFFERENCE: seed [0-9]+, fthr $how against glibc, shrunk to [1-4] calls" "$tmp/plant" ||
	   ! grep -q "pthread_spin_trylock .*= EAGAIN" "$tmp/plant"; then
		echo "FAIL: the planted difference ($how) was not shrunk to the calls that show it"; rc=1
	fi
done
test $rc -eq 0 && echo "no difference; the planted one found and shrunk"
exit $rc
