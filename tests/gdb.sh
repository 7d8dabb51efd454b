#!/bin/sh
# gdb's pretty-printers for fthr's objects (gdb/fthr_printers.py, issue 18):
# tests/gdb_prog.c puts a mutex of each kind, condition variables, rwlocks,
# semaphores and a barrier in known states (held by named threads, with
# sleepers) and stops; gdb, in batch mode, prints each object, and the text
# must say what the program did: kind, state, owner tid, waiters, readers.
# Both ways fthr ships (preloaded, linked); the control, on plain glibc,
# must get gdb's usual printing (the printers stand aside without fthr).
# Env: FTHR_LIB, FTHR_SRCDIR, CC.
set -u
lib=${FTHR_LIB:?}
libdir=$(dirname "$lib")
src=${FTHR_SRCDIR:-.}
CC=${CC:-cc}
command -v gdb >/dev/null 2>&1 || { echo "SKIP: no gdb (apt-get install gdb)"; exit 77; }
gdb -nx -batch -ex 'python import gdb' >/dev/null 2>&1 || { echo "SKIP: this gdb has no Python"; exit 77; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

$CC -g -O0 -o "$tmp/plain" "$src/tests/gdb_prog.c" -lpthread &&
$CC -g -O0 -o "$tmp/linked" "$src/tests/gdb_prog.c" -L"$libdir" -Wl,-rpath,"$libdir" -lfthr -lpthread ||
	{ echo "could not build gdb_prog"; exit 99; }

objects="m_normal m_rec m_check m_robust c c_shared rw_rd rw_wr s3 s0 b"
show() { # program preload -> $tmp/out
	set -- "$1" "$2"
	cmds="-ex 'set startup-with-shell off'"
	[ -n "$2" ] && cmds="$cmds -ex 'set environment LD_PRELOAD=$2'"
	cmds="$cmds -ex 'source $src/gdb/fthr_printers.py' -ex 'break ready' -ex run"
	for o in $objects; do cmds="$cmds -ex 'print $o'"; done
	# c's drain count (lib/drain.h) as a deferred broadcast leaves it: one
	# hold (1 << 20), and a waiter waiting for it to end (1 << 30)
	cmds="$cmds -ex 'set var ((int *)&c)[1] += (1 << 20) + (1 << 30)' -ex 'print c'"
	eval timeout 120 gdb -nx -batch $cmds -ex kill "$1" >"$tmp/out" 2>&1
}
expect() { # what pattern
	if grep -q -- "$2" "$tmp/out"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: no line matching: $2"; fail=$((fail + 1)); return 1
	fi
}

for how in preloaded linked; do
	if [ $how = preloaded ]; then show "$tmp/plain" "$lib"; else show "$tmp/linked" ""; fi
	main=$(sed -n 's/^tids: main \([0-9]*\) owner \([0-9]*\)$/\1/p' "$tmp/out")
	owner=$(sed -n 's/^tids: main \([0-9]*\) owner \([0-9]*\)$/\2/p' "$tmp/out")
	if [ -z "$main" ] || [ -z "$owner" ]; then
		echo "FAIL $how: the program did not reach ready()"; cat "$tmp/out"; fail=$((fail + 1)); continue
	fi
	n0=$fail
	expect $how "= fthr mutex (normal): locked by tid $owner (thread [0-9]*), waiters may sleep\$"
	expect $how "= fthr mutex (recursive): locked by tid $main (thread 1), recursion depth 2\$"
	expect $how "= fthr mutex (errorcheck): unlocked\$"
	expect $how "= fthr mutex (normal, robust): locked by tid $owner (thread [0-9]*)\$"
	expect $how "= fthr cond (CLOCK_REALTIME): 1 waiter(s), 1 asleep, seq 0\$"
	expect $how "= fthr cond (CLOCK_REALTIME): 1 waiter(s), 1 asleep, 1 wake-up(s) at the mutex's release, seq 0\$"
	expect $how "= fthr cond (process-shared, glibc's condition variable): 0 waiter reference(s), CLOCK_REALTIME\$"
	expect $how "= fthr rwlock (prefer readers): 2 reader(s)\$"
	expect $how "= fthr rwlock (prefer readers): write-locked by tid $main (thread 1)\$"
	expect $how "= fthr sem: value 3\$"
	expect $how "= fthr sem: value 0, 1 waiter(s)\$"
	expect $how "= fthr barrier: count 3, round 0, 1 of 3 arrived"
	if [ $fail = $n0 ]; then echo "ok $how: all 11 objects printed as fthr holds them, and a held condition"; else sed -n '/^\$1 =/,$p' "$tmp/out"; fi
done

# auto-loaded: the script beside the library, named after its real file
# (as installed, and as gdb looks for it), no `source`
mkdir "$tmp/lib" && real=$(readlink -f "$lib") && cp "$real" "$tmp/lib/" &&
	ln -s "$(basename "$real")" "$tmp/lib/libfthr.so.0" &&
	cp "$src/gdb/fthr_printers.py" "$tmp/lib/$(basename "$real")-gdb.py"
timeout 120 gdb -nx -batch -iex 'set auto-load safe-path /' -ex 'set startup-with-shell off' \
	-ex "set environment LD_PRELOAD=$tmp/lib/libfthr.so.0" -ex 'break ready' -ex run \
	-ex 'print m_rec' -ex kill "$tmp/plain" >"$tmp/out" 2>&1
expect auto-load "= fthr mutex (recursive): locked by tid [0-9]* (thread 1), recursion depth 2\$" &&
	echo "ok auto-load: $(basename "$real")-gdb.py beside the library"

show "$tmp/plain" ""
if grep -q '= fthr' "$tmp/out"; then
	echo "FAIL glibc control: fthr's printers spoke for glibc's objects"; fail=$((fail + 1))
elif grep -q '^\$1 = {__data = {__lock = [12], ' "$tmp/out"; then
	echo "ok glibc control: gdb's own printing"; pass=$((pass + 1))
else
	echo "FAIL glibc control: no plain print of m_normal"; cat "$tmp/out"; fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
