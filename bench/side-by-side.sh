#!/bin/sh
# fthr's main job: the same contended-mutex program (bench/contend) run on
# plain glibc and with fthr preloaded, alternating, RUNS times per setting.
# Prints the median wall time of each and the ratio glibc/fthr (> 1: fthr is
# faster). Usage: side-by-side.sh CONTEND_BINARY   (env: FTHR_LIB, RUNS, ITERS)
set -eu
bin=$1
lib=${FTHR_LIB:?FTHR_LIB must name libfthr.so.0}
runs=${RUNS:-5}
iters=${ITERS:-500000}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Prove each side runs what it claims to.
g_where=$("$bin" where); f_where=$(LD_PRELOAD=$lib "$bin" where)
case $g_where in *libfthr*) echo "glibc run uses $g_where" >&2; exit 1 ;; esac
case $f_where in *libfthr*) ;; *) echo "preload did not take: $f_where" >&2; exit 1 ;; esac
echo "glibc: pthread_mutex_lock from $g_where"
echo "fthr:  pthread_mutex_lock from $f_where"

printf '%-10s %-8s %12s %12s %8s\n' type threads "glibc ms" "fthr ms" ratio
for type in normal adaptive; do
	for threads in 1 2 4 8; do
		g=; f=
		i=0
		while [ $i -lt "$runs" ]; do
			g="$g $("$bin" "$threads" "$iters" "$type")"
			f="$f $(LD_PRELOAD=$lib "$bin" "$threads" "$iters" "$type")"
			i=$((i + 1))
		done
		gm=$(echo $g | tr ' ' '\n' | median)
		fm=$(echo $f | tr ' ' '\n' | median)
		printf '%-10s %-8s %12s %12s %8s\n' "$type" "$threads" "$gm" "$fm" \
			"$(awk -v g="$gm" -v f="$fm" 'BEGIN { printf "%.2f", g / f }')"
	done
done
echo "(medians of $runs alternating runs, $iters lock/unlock pairs per thread; ratio = glibc/fthr)"
