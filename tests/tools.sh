#!/bin/sh
# The thread checkers people already use give the same verdicts under fthr
# as under glibc (issue 18), on tests/tools_prog.c's programs: one correct
# program per object (mutex, cond, rwlock, sem, barrier, spin, once) and two
# bugs (an unprotected counter; a lock-order inversion); and the C11
# <threads.h> calls on the same objects.
#  - Valgrind's Helgrind and DRD, on the plain-glibc build of the program
#    and on it with fthr preloaded, and on the program linked with -lfthr:
#    a correct program has 0 errors under fthr; a bug is reported under fthr
#    exactly when glibc's run reports it (DRD has no lock-order check).
#  - ThreadSanitizer: the program built with -fsanitize=thread, linked with
#    -lfthr and without: no report on a correct one, both bugs reported.
#  - memcheck: no invalid access and no leak with fthr preloaded.
#  - callgrind (any tool but the two checkers): the wrappers' library is
#    not loaded (lib/valgrind_load.c), so no instruction of a wrapper runs
#    and a profile shows fthr's own instructions alone: per mutex
#    lock+unlock and rwlock read lock+unlock, at most 120.
# Each run checks its own results (tools_prog exits 1 on a wrong count) and
# where its pthread_mutex_lock comes from. Env: FTHR_LIB, FTHR_SRCDIR, CC.
set -u
lib=${FTHR_LIB:?}
libdir=$(dirname "$lib")
src=${FTHR_SRCDIR:-.}/tests
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
good="mutex cond rwlock sem barrier spin once c11"
bugs="race inversion"

ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

$CC -O1 -g -o "$tmp/plain" "$src/tools_prog.c" -lpthread -ldl &&
$CC -O1 -g -o "$tmp/linked" "$src/tools_prog.c" -L"$libdir" -Wl,-rpath,"$libdir" -lfthr -lpthread -ldl ||
	{ echo "could not build tools_prog"; exit 99; }

# the object a run's pthread_mutex_lock came from must be the expected one
from() { # log expected-object
	grep -q "^pthread_mutex_lock from .*$2" "$1"
}

# ---- Valgrind: Helgrind and DRD ----
# vg TOOL WHICH MODE -> "errors exit-status" in $tmp/TOOL-WHICH-MODE.{log,out}
vg() {
	_o=$tmp/$1-$2-$3
	case $2 in
	glibc) set -- "$1" "$2" "$3" "$tmp/plain" "" ;;
	preloaded) set -- "$1" "$2" "$3" "$tmp/plain" "$lib" ;;
	linked) set -- "$1" "$2" "$3" "$tmp/linked" "" ;;
	esac
	LD_PRELOAD=$5 timeout 300 valgrind --tool="$1" --log-file="$_o.log" "$4" "$3" >"$_o.out" 2>&1
	echo $? >"$_o.st"
}
errors() { # TOOL WHICH MODE -> the error count, or "none" without a summary
	sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$tmp/$1-$2-$3.log" | tail -1 | grep . || echo none
}

if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP valgrind: not installed (apt-get install valgrind)"; skip=$((skip + 1))
elif ! nm -D "$libdir/libfthr-valgrind.so" 2>/dev/null |
	grep -q ' _vgw00000ZU_libfthrZdsoZd0_pthread_mutex_lock$'; then
	echo "SKIP valgrind: libfthr was built without the Valgrind wrappers (no <valgrind/helgrind.h> at configure time)"
	skip=$((skip + 1))
else
	for tool in helgrind drd; do
		for mode in $good $bugs; do
			vg $tool glibc $mode & vg $tool preloaded $mode & wait
			vg $tool linked $mode
			g=$(errors $tool glibc $mode)
			line="$tool $mode: glibc $g"
			for which in preloaded linked; do
				e=$(errors $tool $which $mode) st=$(cat "$tmp/$tool-$which-$mode.st")
				line="$line, fthr $which $e"
				if [ "$e" = none ]; then
					bad "$line: no error summary"; cat "$tmp/$tool-$which-$mode.log"; continue 2
				fi
				if [ "$st" != 0 ]; then
					bad "$line: exit $st"; cat "$tmp/$tool-$which-$mode.out"; continue 2
				fi
				if ! from "$tmp/$tool-$which-$mode.out" libfthr; then
					bad "$line: pthread_mutex_lock not fthr's: $(head -1 "$tmp/$tool-$which-$mode.out")"
					continue 2
				fi
				case " $good " in
				*" $mode "*) [ "$e" = 0 ] || { bad "$line: a false report"; sed -n '1,80p' "$tmp/$tool-$which-$mode.log"; continue 2; } ;;
				*) [ "$((e > 0))" = "$((g > 0))" ] || { bad "$line: the verdict differs from glibc's"; continue 2; } ;;
				esac
			done
			from "$tmp/$tool-glibc-$mode.out" libc.so || { bad "$line: the control did not run on glibc"; continue; }
			# the control can tell: Helgrind reports both bugs on glibc, DRD the race
			case $tool-$mode in helgrind-race | helgrind-inversion | drd-race)
				[ "$g" != none ] && [ "$g" -gt 0 ] || { bad "$line: glibc's run does not report the bug"; continue; } ;;
			esac
			ok "$line"
		done
	done
	# memcheck: nothing invalid, nothing lost, in fthr or around it
	for mode in $good; do
		_o=$tmp/memcheck-$mode
		LD_PRELOAD=$lib timeout 300 valgrind --tool=memcheck --leak-check=full \
			--errors-for-leak-kinds=definite,indirect --log-file="$_o.log" "$tmp/plain" $mode >"$_o.out" 2>&1
		st=$? e=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$_o.log" | tail -1)
		if [ "$st" = 0 ] && [ "${e:-none}" = 0 ] && from "$_o.out" libfthr; then
			ok "memcheck $mode: 0 errors, no leak"
		else
			bad "memcheck $mode: exit $st, errors ${e:-none}"; cat "$_o.log"
		fi
	done
	# callgrind: no wrapper (head comment); per round of a mutex
	# lock+unlock and a read lock+unlock, the difference of 21000 and 1000
	cat >"$tmp/pairs.c" <<'EOT'
#include <pthread.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	static pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
	for (long i = atol(argv[1]); i > 0; i--) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
		pthread_rwlock_rdlock(&l);
		pthread_rwlock_unlock(&l);
	}
	return 0;
}
EOT
	if $CC -O1 -o "$tmp/pairs" "$tmp/pairs.c" -lpthread; then
		for n in 21000 1000; do
			LD_PRELOAD=$lib valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" "$tmp/pairs" $n >/dev/null 2>&1
			awk -f "${FTHR_SRCDIR:-.}/bench/ir-by-object.awk" "$tmp/cg.$n" |
				awk '/^valgrind-wrappers / { w += $NF } /libfthr/ { f += $NF } END { print w + 0, f + 0 }'
		done >"$tmp/cg.ir"
		set -- $(tr '\n' ' ' <"$tmp/cg.ir")
		w=$(( ($1 - $3) / 20000 )) f=$(( ($2 - $4) / 20000 ))
		if [ $# = 4 ] && [ "$1" = 0 ] && [ "$f" -gt 0 ] && [ "$f" -le 120 ]; then
			ok "callgrind: no wrapper ran, $f instructions of fthr per round"
		else
			bad "callgrind: $w instructions of wrappers and $f of fthr per round (want 0, 1-120)"
		fi
	else
		bad "callgrind: could not build the lock program"
	fi
fi

# ---- ThreadSanitizer ----
if ! echo 'int main(void){return 0;}' | $CC -fsanitize=thread -x c -o "$tmp/tsan-probe" - 2>/dev/null; then
	echo "SKIP tsan: $CC cannot link -fsanitize=thread (apt-get install libtsan2)"; skip=$((skip + 1))
else
	ts="-fsanitize=thread -O1 -g"
	$CC $ts -o "$tmp/tsan-glibc" "$src/tools_prog.c" -lpthread -ldl &&
	$CC $ts -o "$tmp/tsan-fthr" "$src/tools_prog.c" -L"$libdir" -Wl,-rpath,"$libdir" -lfthr -lpthread -ldl ||
		{ echo "could not build tools_prog with TSan"; exit 99; }
	# (not c11: TSan intercepts no mtx_*/cnd_* call, with glibc or fthr)
	for mode in $(echo $good | sed 's/ c11//') $bugs; do
		line="tsan $mode:"
		for which in glibc fthr; do
			_o=$tmp/tsan-$which-$mode
			TSAN_OPTIONS="exitcode=66" timeout 120 "$tmp/tsan-$which" $mode >"$_o.out" 2>&1
			echo $? >"$_o.st"
			n=$(grep -c '^WARNING: ThreadSanitizer' "$_o.out")
			line="$line $which $n report(s), exit $(cat "$_o.st");"
		done
		if [ "$(ldd "$tmp/tsan-fthr" | grep -c libfthr)" = 0 ]; then
			bad "$line the fthr build does not load libfthr"; continue
		fi
		case $mode in
		race) want=66 kind="data race" ;;
		inversion) want=66 kind="lock-order-inversion" ;;
		*) want=0 kind= ;;
		esac
		okk=1
		for which in glibc fthr; do
			[ "$(cat "$tmp/tsan-$which-$mode.st")" = $want ] || okk=0
			[ -z "$kind" ] || grep -q "^WARNING: ThreadSanitizer: $kind" "$tmp/tsan-$which-$mode.out" || okk=0
		done
		if [ $okk = 1 ]; then
			ok "$line"
		else
			bad "$line want exit $want${kind:+ and a $kind report}"; sed -n '1,60p' "$tmp/tsan-fthr-$mode.out"
		fi
	done
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 77
exit 0
