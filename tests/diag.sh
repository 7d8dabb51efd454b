#!/bin/sh
# The profiler (FTHR_PROFILE) and the checker (FTHR_CHECK) on the scenarios
# of tests/diag_prog.c, run both ways fthr ships: the plain build preloaded
# and the build linked with -lfthr. Asserts on the reports' content, the
# scenarios' return codes and exit statuses; prints one line per check and
# "N passed, N failed".
# Env: FTHR_LIB, FTHR_BUILDDIR (tests/diag_prog_plain, tests/diag_prog).
set -u
lib=${FTHR_LIB:?}
b=${FTHR_BUILDDIR:-.}/tests
NM=${NM:-nm}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $how: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $how: $*"; sed 's/^/    | /' "$tmp/err" | head -40; }

# run SCENARIO [VAR=VALUE...]: stdout to $tmp/out, stderr to $tmp/err
run() {
	sc=$1; shift
	if [ "$how" = preload ]; then
		env "$@" LD_PRELOAD="$lib" timeout 20 "$b/diag_prog_plain" "$sc" >"$tmp/out" 2>"$tmp/err"
	else
		env "$@" timeout 20 "$b/diag_prog" "$sc" >"$tmp/out" 2>"$tmp/err"
	fi
	rc=$?
}
has() { grep -q -- "$1" "$tmp/${2:-err}"; }
rowhas() { echo "$row" | grep -q -- "$1"; }
expect() { # description 'condition' (a shell list, evaluated)
	if eval "$2"; then ok "$1"; else bad "$1"; fi
}

# The watched entry points are ordinary exported functions (no indirect
# function: ld.so warns about those to bind-now libraries), the same one
# with the features off and on.
pub_off=$($NM -D --defined-only "$lib" | awk '{ n = $3; sub(/@@.*/, "", n) } n == "pthread_mutex_lock" && $2 == "T" { print $1 }')
how=library
ifuncs=$($NM -D --defined-only "$lib" | awk '$2 == "i" { print $3 }' | tr '\n' ' ')
: >"$tmp/err"
expect "no exported indirect function${ifuncs:+ (found: $ifuncs)}" '[ -z "$ifuncs" ] && [ -n "$pub_off" ]'

for how in preload linked; do
	run binding
	off=$(awk '/RESULT binding/ { print $4 }' "$tmp/out")
	expect "features off: pthread_mutex_lock is bound to fthr's exported function" '[ -n "$off" ] && [ "$((off))" = "$((0x$pub_off))" ]'
	run binding FTHR_CHECK=1
	off=$(awk '/RESULT binding/ { print $4 }' "$tmp/out")
	expect "FTHR_CHECK=1: bound to the same function (the watching is behind its first branch)" '[ -n "$off" ] && [ "$((off))" = "$((0x$pub_off))" ]'

	run inversion
	expect "no variable, no report" '[ $rc = 0 ] && ! has fthr-'
	run inversion FTHR_CHECK=1
	expect "inversion: reported with both call sites, program runs on" '[ $rc = 0 ] && has "lock-order inversion" && has take_b_then_a && has take_a_then_b'
	expect "inversion: reported once" '[ "$(grep -c '\''lock-order inversion'\'' "$tmp/err")" = 1 ]'
	run rw_inversion FTHR_CHECK=1
	expect "rwlock/mutex inversion" '[ $rc = 0 ] && has "lock-order inversion" && has "rwlock 0x" && has mutex_then_rwlock'
	run clean FTHR_CHECK=1
	expect "a correct program: no report" '[ $rc = 0 ] && ! has fthr-check && has "RESULT destroy 0" out'
	run relock FTHR_CHECK=abort
	expect "relock of a held normal mutex: reported, FTHR_CHECK=abort aborts" '[ $rc = 134 ] && has "relock of a lock this thread holds"'
	run foreign_unlock FTHR_CHECK=1
	expect "thread exit holding a lock: reported with where it was taken" 'has "thread exits holding locks" && has lock_and_keep'
	expect "unlock of a mutex another thread holds: reported, call still made" 'has "unlock of a lock this thread does not hold" && has "is held by thread" && has "RESULT unlock 0" out'
	run destroy_locked FTHR_CHECK=1
	expect "destroy of a locked mutex: reported, EBUSY" 'has "destroy of a locked or waited-on mutex" && has "RESULT destroy 16" out'
	run use_destroyed FTHR_CHECK=1
	expect "use after destroy: reported with the destroy site, EINVAL" 'has "use of a destroyed object" && has "was destroyed at" && has "RESULT lock 22" out'
	run uninitialized FTHR_CHECK=1
	expect "never initialized: reported, EINVAL" 'has "never initialized" && has "RESULT lock 22" out'
	run two_mutexes FTHR_CHECK=1
	expect "one condvar, two mutexes: reported" 'has "one condition variable waited on with two mutexes"'
	run rw_destroy_held FTHR_CHECK=1
	expect "destroy of an rwlock its exited reader holds: reported, 0 (glibc's)" 'has "thread exits holding locks" && has "destroy of a locked or waited-on rwlock" && has "1 holds" && has "RESULT destroy 0" out'
	expect "use of that rwlock after: reported" 'has "use of a destroyed object" && has "RESULT rdlock" out'
	run rw_unlock_unheld FTHR_CHECK=1
	expect "unlock of an unlocked rwlock: reported, 0 (glibc's)" 'has "unlock of a lock this thread does not hold" && has "RESULT unlock 0" out'
	expect "its destroy after: no report, 0" '! has "destroy of a locked" && has "RESULT destroy 0" out'
	run spin_misuse
	expect "spinlock misuse without the checker: no report, glibc's results" '! has fthr- && [ "$(grep -c "RESULT .* 0" "$tmp/out")" = 3 ]'
	run spin_misuse FTHR_CHECK=1
	expect "spinlock: a bad pshared value and the destroy of a held one reported, 0" 'has "invalid pshared value" && [ "$(grep -c "destroy of a locked spinlock" "$tmp/err")" = 1 ] && [ "$(grep -c "RESULT .* 0" "$tmp/out")" = 3 ]'

	run contention FTHR_PROFILE=1
	n=$(awk '/RESULT hot/ { print $3 }' "$tmp/out")
	row=$(grep -A2 -E '^mutex .* created at:' "$tmp/err" | head -3)
	acq=$(echo "$row" | awk 'NR == 1 { print $3 }')
	cont=$(echo "$row" | awk 'NR == 1 { print $4 }')
	expect "profile: table at exit, the hot mutex first" 'has "fthr-profile: pid" && has "top .* by wait time" && [ "$(grep -A1 '\''^kind'\'' "$tmp/err" | awk '\''NR == 2 { print $1 }'\'')" = mutex ]'
	expect "profile: acquisitions counted exactly ($acq = $n), some contended ($cont)" '[ -n "$n" ] && [ "$acq" = "$n" ] && [ "${cont:-0}" -gt 0 ]'
	expect "profile: creation site symbolized" 'rowhas make_contention'
	expect "profile: no checker output without FTHR_CHECK" '! has fthr-check'
	expect "profile: no FTHR_WAIT line with the defaults" '! has FTHR_WAIT'
	run contention FTHR_PROFILE=1 FTHR_WAIT=spin_max=512,patience=0,spin_min=8
	expect "profile: the wait settings FTHR_WAIT changed, in table order" '[ $rc = 0 ] && has "^fthr-profile: FTHR_WAIT=spin_max=512,patience=0\$"'
	run contention FTHR_PROFILE=1 FTHR_WAIT=spin_max=4,spin_min=8
	expect "profile: an FTHR_WAIT out of order leaves the defaults" '[ $rc = 0 ] && has "fthr-profile: pid" && ! has FTHR_WAIT'
	run contention "FTHR_PROFILE=$tmp/prof.%p"
	f=$(ls "$tmp"/prof.* 2>/dev/null | head -1)
	expect "profile to a file (%p = pid), stderr quiet" '[ -n "$f" ] && grep -q "fthr-profile: pid ${f##*.}" "$f" && ! has fthr-profile'
	rm -f "$tmp"/prof.*
	run contention FTHR_PROFILE=1 FTHR_PROFILE_SIGUSR2=1 DIAG_SIGUSR2=1
	expect "SIGUSR2 prints a report, exit another" '[ $rc = 0 ] && [ "$(grep -c '\''fthr-profile: pid'\'' "$tmp/err")" = 2 ]'
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
