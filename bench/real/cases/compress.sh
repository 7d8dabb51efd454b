#!/bin/sh
# The multithreaded compressors of Debian (unmodified): pigz (its own
# thread pool on mutexes and condition variables: yarn.c), zstd -T2 (a
# job queue on mutexes and condition variables) and xz -T2 (liblzma's
# threaded coder), compressing and decompressing the same generated text,
# 2 worker threads as on this 2-cpu machine. The check: the compressed
# bytes are identical in every run (the first run's digest is kept) and the
# round trip gives the input back. The figure is MB/s of input.
set -u
what=${1:?usage: compress.sh setup|list|run ID}
in=$BUILD/input
[ "${BENCH_REAL_QUICK:-0}" = 1 ] && in=$BUILD/input.quick
case $what in
setup)
	for c in pigz zstd xz sha256sum; do
		command -v $c >/dev/null || { echo "$c not installed" >&2; exit 77; }
	done
	# 54 MB (16 MB for the quick subset) of text that compresses about 5:1, the same bytes every time
	[ -s "$BUILD/input" ] || awk 'BEGIN { x = 12345; for (i = 0; i < 1500000; i++) {
		x = (x * 1103515245 + 12345) % 2147483648
		printf "%08d record %d value %d %s\n", i, x % 100000, x % 977, (x % 3) ? "ok" : "retry" } }' >"$BUILD/input"
	[ -s "$BUILD/input.quick" ] || head -c 16000000 "$BUILD/input" >"$BUILD/input.quick"
	;;
list)
	printf 'pigz\tpigz -p2 compress\thi\t1\n'
	printf 'pigz-d\tpigz -d decompress\thi\t0\n'
	printf 'zstd\tzstd -T2 -3 compress\thi\t0\n'
	printf 'xz\txz -T2 -1 compress\thi\t1\n'
	printf 'xz-d\txz -T2 -d decompress\thi\t0\n'
	;;
run)
	id=${2:?}
	case $id in
	pigz | pigz-d) c="pigz -p2 -6"; d="pigz -p2 -d" ;;
	zstd) c="zstd -q -T2 -3"; d="zstd -q -d" ;;
	xz | xz-d) c="xz -T2 -1 --block-size=4MiB"; d="xz -T2 -d" ;;
	*) echo "no case $id" >&2; exit 2 ;;
	esac
	tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
	size=$(wc -c <"$in")
	run() { # input output command...
		_i=$1 _o=$2; shift 2
		_a=$(date +%s%N)
		LD_PRELOAD=${FTHR_PRELOAD:-} timeout 120 "$@" <"$_i" >"$_o" || { echo "$* failed" >&2; exit 1; }
		_b=$(date +%s%N)
		echo $(( _b - _a ))
	}
	ns=$(run "$in" "$tmp/c" $c)
	case $id in *-d) ns=$(run "$tmp/c" "$tmp/d" $d) ;; *) LD_PRELOAD=${FTHR_PRELOAD:-} timeout 120 $d <"$tmp/c" >"$tmp/d" ||
		{ echo "$d failed" >&2; exit 1; } ;; esac
	cmp -s "$in" "$tmp/d" || { echo "$id: the round trip changed the bytes" >&2; exit 1; }
	sum=$(sha256sum <"$tmp/c" | cut -c1-64)
	ref=$BUILD/$id.$(basename "$in").sha256
	[ -s "$ref" ] || echo "$sum" >"$ref"
	[ "$sum" = "$(cat "$ref")" ] || { echo "$id: compressed bytes differ from the first run's" >&2; exit 1; }
	echo "RESULT $(awk -v s="$size" -v n="$ns" 'BEGIN { printf "%.2f", s / 1e6 / (n / 1e9) }') MB/s"
	;;
esac
