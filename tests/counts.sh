#!/bin/bash
# The counts of an invariants build (lib/futex.h, struct fthr_counts) and
# bench/counts.sh, which reads them: a process pinned to one cpu never
# spins (wait.h: a spin needs a second cpu); one with two cpus spins (a
# few tries: beside CPU hogs the workers may seldom run at once), also
# when it pins its first thread to one cpu and its other to the other
# (the cpus counted are those it was started with), and under a cgroup v1
# CPU quota of one cpu's time (root; two threads still run at once for
# part of each period); a wake never wakes
# more threads than waited; a mutex whose sleepers starve is handed off to
# them, unless fair_us is 0; the table has a row with figures for every
# lock and thread count.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=${FTHR_BUILDDIR:-$top}
inv=$b/bench/libfthr-invariants.so
bin=$b/bench/fthr-bench
[ -x "$bin" ] && [ -f "$inv" ] || { echo "no $bin or $inv: make check builds them"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# counts KEY: a figure of the last run's profile
counts() { sed -n "s/^fthr-profile: counts:.* $1=\([0-9-]*\).*/\1/p" "$tmp/p"; }

run() { # CPUS BENCH ARGS... (CGROUP: a v1 cpu cgroup to run in)
	local cpus=$1; shift
	rm -f "$tmp/p"
	# (the profile is the program's: not timeout's, nor taskset's)
	timeout 60 taskset -c "$cpus" sh -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs" || exit 1
		shift; exec "$@"' sh "${CGROUP:-}" env FTHR_PROFILE="$tmp/p" ${FTHR_WAIT:+"FTHR_WAIT=$FTHR_WAIT"} LD_PRELOAD="$inv" \
		"$bin" "$@" >"$tmp/out" 2>&1 ||
		{ echo "FAIL: acquire $* on cpus $cpus: $(cat "$tmp/out")"; fail=1; return 1; }
	grep -q '^fthr-profile: counts:' "$tmp/p" ||
		{ echo "FAIL: no counts in the profile: $(cat "$tmp/p")"; fail=1; return 1; }
}

for l in mutex rwlock; do
	if run 0 acquire 4 $l tiny p99 0.3; then
		s=$(counts spins) m=$(counts spinners_most) w=$(counts futex_waits) k=$(counts woken)
		[ "$s" = 0 ] && [ "$m" = 0 ] || { echo "FAIL: $l, one cpu: spins=$s spinners_most=$m, want 0"; fail=1; }
		[ "$k" -le "$w" ] || { echo "FAIL: $l, one cpu: woken=$k > futex_waits=$w"; fail=1; }
	fi
	[ "$(nproc)" -ge 2 ] || continue
	for try in 1 2 3; do
		run 0,1 acquire 4 $l tiny p99 0.5 || break
		s=$(counts spins) m=$(counts spinners_most) w=$(counts futex_waits) k=$(counts woken)
		[ "$k" -le "$w" ] || { echo "FAIL: $l, two cpus: woken=$k > futex_waits=$w"; fail=1; }
		[ "$m" -le 4 ] || { echo "FAIL: $l, two cpus: $m spinning at once, of 4 threads"; fail=1; }
		[ "$s" -gt 0 ] && [ "$m" -ge 1 ] && break
		[ $try = 3 ] && { echo "FAIL: $l, two cpus: spins=$s spinners_most=$m in 3 tries, want > 0"; fail=1; }
	done
done

# threads pinned apart by the program, one to each cpu
if [ "$(nproc)" -ge 2 ] && run 0,1 sem_pingpong diff 20000; then
	s=$(counts spins)
	[ "$s" -gt 0 ] || { echo "FAIL: sem ping-pong, threads pinned apart: spins=$s, want > 0"; fail=1; }
fi

# a quota of one cpu's time on two cpus
v1=/sys/fs/cgroup/cpu
if [ "$(nproc)" -ge 2 ] && [ "$(id -u)" = 0 ] && [ -w $v1/cpu.cfs_quota_us ]; then
	cg=$v1/fthr-counts-$$
	mkdir "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" && echo 100000 >"$cg/cpu.cfs_quota_us" ||
		{ echo "FAIL: cannot make $cg"; fail=1; }
	for try in 1 2 3; do
		CGROUP=$cg run 0,1 acquire 4 mutex tiny p99 0.5 || break
		s=$(counts spins)
		[ "$s" -gt 0 ] && break
		[ $try = 3 ] && { echo "FAIL: under a quota of one cpu: spins=$s in 3 tries, want > 0"; fail=1; }
	done
	rmdir "$cg" 2>/dev/null || { sleep 1; rmdir "$cg"; } || { echo "FAIL: $cg left behind"; fail=1; }
else
	echo "(no cgroup v1 cpu controller to write, or not root: the quota case skipped)"
fi

# a mutex whose sleepers wait past fair_us hands itself off to them (lll.h;
# 16 threads on the cpus given, 1 us sections: sleepers wait milliseconds),
# and with fair_us=0 never does
for try in 1 2 3; do
	run 0-$(($(nproc) - 1)) acquire 16 mutex 1us p99 0.5 || break
	h=$(counts handoffs)
	[ "$h" -gt 0 ] && break
	[ $try = 3 ] && { echo "FAIL: 16 threads on a mutex: handoffs=$h in 3 tries, want > 0"; fail=1; }
done
if FTHR_WAIT=fair_us=0 run 0-$(($(nproc) - 1)) acquire 16 mutex 1us p99 0.5; then
	h=$(counts handoffs)
	[ "$h" = 0 ] || { echo "FAIL: fair_us=0: handoffs=$h, want 0"; fail=1; }
fi

# the table: 12 rows of figures
SECONDS_EACH=0.05 bash "$top/bench/counts.sh" "$bin" "$inv" >"$tmp/table" 2>&1 ||
	{ echo "FAIL: bench/counts.sh: $(cat "$tmp/table")"; fail=1; }
rows=$(grep -cE '^\| (mutex|rwlock) \| [0-9]+ \| [1-9][0-9]* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \|$' "$tmp/table")
[ "$rows" = 12 ] || { echo "FAIL: bench/counts.sh: $rows rows of 12"; cat "$tmp/table"; fail=1; }

[ $fail = 0 ] && echo "PASS: counts"
exit $fail
