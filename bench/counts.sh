#!/bin/bash
# bench/counts.sh BIN LIB: what the waits of a contended mutex and rwlock
# do per acquisition at 2-64 threads, counted by an invariants build of
# fthr (LIB, e.g. bench/libfthr-invariants.so; lib/futex.h, struct
# fthr_counts): futex waits, futex wakes and the threads they woke, spins,
# the most threads spinning at once, and the mutex's hand-offs to a
# starving sleeper (lib/lll.h). BIN is bench/fthr-bench ("acquire":
# tiny critical sections, rwlock half writes, SECONDS each, default 0.5).
set -u
bin=${1:?usage: counts.sh BIN LIB}
lib=${2:?usage: counts.sh BIN LIB}
secs=${SECONDS_EACH:-0.5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo
echo "### Waits per acquisition, $(nproc) cpus (invariants build)"
echo
echo "| lock | threads | acquisitions | futex waits | futex wakes | woken | spins | most spinning at once | hand-offs |"
echo "|---|---|---|---|---|---|---|---|---|"
rc=0
for l in mutex rwlock; do
	for t in 2 4 8 16 32 64; do
		out=$(timeout 120 env FTHR_PROFILE="$tmp/p" LD_PRELOAD="$lib" \
			"$bin" acquire $t $l tiny p99 "$secs" 2>&1)
		ops=$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' <<<"$out")
		counts=$(grep -h '^fthr-profile: counts:' "$tmp/p" 2>/dev/null)
		if [ -z "$ops" ] || [ -z "$counts" ]; then
			echo "no counts for $l, $t threads: $out" >&2
			rc=1
			continue
		fi
		awk -v l=$l -v t=$t -v ops="$ops" '{
			for (i = 3; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
			printf "| %s | %d | %d | %.4f | %.4f | %.4f | %.4f | %d | %d |\n", l, t, ops,
				c["futex_waits"] / ops, c["futex_wakes"] / ops, c["woken"] / ops,
				c["spins"] / ops, c["spinners_most"], c["handoffs"] }' <<<"$counts"
	done
done
exit $rc
