#!/bin/sh
# Real multithreaded tools under fthr: xz -T, zstd -T, pigz -p and
# sort --parallel on generated data, each run on plain glibc and with fthr
# preloaded. The fthr run must round-trip bit-exactly and produce the very
# bytes the glibc run produced. Before anything, each tool is checked to
# really load libfthr (a failed preload only warns).
set -u
lib=${FTHR_LIB:?FTHR_LIB must name libfthr.so.0}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }

for t in xz zstd pigz sort; do
	command -v "$t" >/dev/null || { echo "SKIP: $t not installed"; exit 77; }
	LD_TRACE_LOADED_OBJECTS=1 LD_PRELOAD=$lib "$(command -v "$t")" 2>&1 | grep -q libfthr ||
		{ fail "$t does not load libfthr when preloaded"; }
done
[ $rc -eq 0 ] || exit 1

# ~12 MB of text, compressible but not trivially: the same bytes every run
awk 'BEGIN { srand(42); for (i = 0; i < 400000; i++) printf "%08d %s %d\n", int(rand() * 1e8), (rand() < 0.5 ? "alpha" : "omega"), i }' >"$tmp/data"

run() { # how tool args... : each run bounded by a 120 s watchdog
	how=$1; shift
	if [ "$how" = fthr ]; then LD_PRELOAD=$lib timeout 120 "$@"; else timeout 120 "$@"; fi
}

for how in glibc fthr; do
	run $how xz -T2 -6 -c "$tmp/data" >"$tmp/xz.$how" || fail "xz ($how)"
	run $how xz -T2 -d -c "$tmp/xz.$how" | cmp -s - "$tmp/data" || fail "xz round trip ($how)"
	run $how zstd -q -T2 -19 -c "$tmp/data" >"$tmp/zst.$how" || fail "zstd ($how)"
	run $how zstd -q -T2 -d -c "$tmp/zst.$how" | cmp -s - "$tmp/data" || fail "zstd round trip ($how)"
	run $how pigz -p 2 -c "$tmp/data" >"$tmp/gz.$how" || fail "pigz ($how)"
	run $how pigz -p 2 -d -c "$tmp/gz.$how" | cmp -s - "$tmp/data" || fail "pigz round trip ($how)"
	run $how sort --parallel=2 -S 4M -k2,2 -k1,1n "$tmp/data" >"$tmp/sort.$how" || fail "sort ($how)"
done
for f in xz zst gz sort; do
	cmp -s "$tmp/$f.glibc" "$tmp/$f.fthr" || fail "$f output differs between glibc and fthr"
done
[ "$(wc -l <"$tmp/sort.fthr")" -eq 400000 ] || fail "sort lost lines"
[ $rc -eq 0 ] && echo "xz, zstd, pigz, sort: fthr output identical to glibc's, round trips exact ($(wc -c <"$tmp/data") bytes)"
exit $rc
