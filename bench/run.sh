#!/bin/bash
# fthr's benchmark suite: every benchmark of bench/fthr-bench (one binary,
# built once against the system <pthread.h>) run on plain glibc and with
# fthr preloaded, PAIRS pairs each, alternating which goes first (glibc in
# even pairs, fthr in odd ones: a drift of the machine then favours
# neither). For each: the
# median of the per-pair ratios (> 1: fthr is better, whether the figure is
# a time or a rate), their min and max, the median absolute figures and
# process CPU times. A benchmark that fails its own check stops nothing but
# marks the run failed (exit 1).
#
# Usage: bench/run.sh FTHR-BENCH-BINARY [OUTDIR]
# Env:   FTHR_LIB (libfthr.so.0), FTHR_NOFLAGS_LIB (fthr built without the
#        general-registers-only flags, for the FreeBSD seed), BENCH_QUICK=1
#        (about 2 minutes instead of about 10), PAIRS (default 5, quick 3),
#        BENCH_AA=1 (an A/A control: each pair runs glibc a second time,
#        and every row gains the glibc/glibc ratios, the row's null
#        distribution; a fthr ratio inside it is noise), BENCH_ONLY
#        (an extended regular expression: only the rows whose label
#        matches it run), BENCH_BASE (another libfthr.so.0: the baseline
#        column runs with it preloaded instead of on plain glibc, a
#        before/after comparison of two builds; the A/A control then runs
#        the baseline against itself).
# Output: a Markdown table on stdout, OUTDIR/results.csv, OUTDIR/*.png
#        (gnuplot), progress on stderr.
set -u
bin=${1:?usage: run.sh FTHR-BENCH-BINARY [OUTDIR]}
out=${2:-bench/results}
lib=${FTHR_LIB:?FTHR_LIB must name libfthr.so.0}
quick=${BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then pairs=${PAIRS:-3}; secs=0.3; n=3000000; r=20000; else
	pairs=${PAIRS:-5}; secs=1; n=20000000; r=100000; fi
mkdir -p "$out"
csv=$out/results.csv
here=$(cd "$(dirname "$0")" && pwd)
aa=${BENCH_AA:-0}
only=${BENCH_ONLY:-}
base=${BENCH_BASE:-}
echo "group,benchmark,unit,better,glibc,fthr,ratio_median,ratio_min,ratio_max,cpu_glibc,cpu_fthr,aa_median,aa_min,aa_max" >"$csv"
failed=0

LD_TRACE_LOADED_OBJECTS=1 LD_PRELOAD=$lib "$bin" | grep -q libfthr ||
	{ echo "the preload of $lib does not take" >&2; exit 1; }

. "$here/median.sh"

# one run: prints "value unit cpu extra" or fails
one() { # preload-or-empty args...
	local pre=$1; shift
	local line
	line=$(LD_PRELOAD=$pre timeout 300 "$bin" "$@" 2>&1) || { echo "FAIL $*: $line" >&2; return 1; }
	case $line in
	*VIOLATION*) echo "VIOLATION in $*: $line" >&2; return 1 ;;
	RESULT*) echo "$line" | awk '{ sub("cpu=", "", $4); print $2, $3, $4, $5 }' ;;
	*) echo "no result from $*: $line" >&2; return 1 ;;
	esac
}

table_head() {
	if [ "$aa" = 1 ]; then
		printf '\n### %s\n\n| benchmark | glibc | fthr | fthr vs glibc | spread | CPU s glibc / fthr | glibc vs glibc |\n|---|---|---|---|---|---|---|\n' "$1"
	else
		printf '\n### %s\n\n| benchmark | glibc | fthr | fthr vs glibc | spread | CPU s glibc / fthr |\n|---|---|---|---|---|---|\n' "$1"
	fi
}

# the per-pair ratio of B to A, > 1 when B is better
ratio() { # A B better
	# (a zero divisor, a starved thread's share: 1 if both are 0, else 99,
	# off the scale)
	awk -v g="$1" -v f="$2" -v b="$3" 'BEGIN { d = (b == "hi") ? g : f; n = (b == "hi") ? f : g
		print d != 0 ? n / d : n != 0 ? 99 : 1 }'
}

# bench GROUP LABEL BETTER(hi|lo) ARGS...
bench() {
	local group=$1 label=$2 better=$3; shift 3
	local i g f a gv=() fv=() gc=() fc=() ratios=() aar=() unit= extra=
	[ -z "$only" ] || [[ $label =~ $only ]] || return 0
	printf '  %-40s' "$label" >&2
	for ((i = 0; i < pairs; i++)); do
		if ((i % 2 == 0)); then
			g=$(one "$base" "$@") && f=$(one "$lib" "$@")
		else
			f=$(one "$lib" "$@") && g=$(one "$base" "$@")
		fi || { failed=1; echo " FAILED" >&2; return; }
		if [ "$aa" = 1 ]; then
			a=$(one "$base" "$@") || { failed=1; echo " FAILED" >&2; return; }
			read -r aval _ <<<"$a"
		fi
		read -r gval unit gcpu _ <<<"$g"
		read -r fval _ fcpu extra <<<"$f"
		gv+=("$gval"); fv+=("$fval"); gc+=("$gcpu"); fc+=("$fcpu")
		ratios+=("$(ratio "$gval" "$fval" "$better")")
		[ "$aa" = 1 ] && aar+=("$(ratio "$gval" "$aval" "$better")")
		printf '.' >&2
	done
	local gm fm rm rmin rmax gcm fcm
	gm=$(printf '%s\n' "${gv[@]}" | median); fm=$(printf '%s\n' "${fv[@]}" | median)
	rm=$(printf '%s\n' "${ratios[@]}" | median)
	rmin=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1); rmax=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
	gcm=$(printf '%s\n' "${gc[@]}" | median); fcm=$(printf '%s\n' "${fc[@]}" | median)
	local am= amin= amax= acol=
	if [ "$aa" = 1 ]; then
		am=$(printf '%s\n' "${aar[@]}" | median)
		amin=$(printf '%s\n' "${aar[@]}" | sort -g | head -1); amax=$(printf '%s\n' "${aar[@]}" | sort -g | tail -1)
		acol=$(printf ' %.2f (%.2f–%.2f) |' "$am" "$amin" "$amax")
	fi
	printf ' %s x%.2f%s\n' "$unit" "$rm" "${am:+ (A/A x$(printf %.2f "$am"))}" >&2
	printf '| %s | %.4g %s | %.4g %s | **%.2f** | %.2f–%.2f | %.2f / %.2f |%s\n' \
		"$label" "$gm" "$unit" "$fm" "$unit" "$rm" "$rmin" "$rmax" "$gcm" "$fcm" "$acol"
	echo "$group,${label//,/;},$unit,$better,$gm,$fm,$rm,$rmin,$rmax,$gcm,$fcm,$am,$amin,$amax" >>"$csv"
}

echo "# fthr vs glibc, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), glibc $(ldd --version | head -1 | awk '{ print $NF }')"
[ -z "$base" ] || echo "(the glibc column runs $base preloaded: a comparison of two fthr builds)"
echo
echo "Medians of $pairs alternating glibc/fthr pairs; 'fthr vs glibc' is the median of the per-pair ratios, > 1 means fthr is better (faster or more throughput); spread is the min–max of those ratios."

echo "== 1. uncontended" >&2
for mode in mt st; do
	table_head "1. Uncontended, $( [ $mode = mt ] && echo 'multi-threaded process' || echo 'process that never made a thread')"
	for op in mutex_normal mutex_recursive mutex_errorcheck mutex_adaptive mutex_trylock spin \
		rwlock_rd rwlock_wr sem_postwait cond_signal cond_broadcast once getspecific setspecific self; do
		[ "$quick" = 1 ] && [ $mode = st ] && case $op in mutex_normal|getspecific|sem_postwait) ;; *) continue ;; esac
		bench uncontended-$mode "$op ($mode)" lo uncontended $op $mode $n
	done
done

if [ -n "$only" ]; then
	: # BENCH_ONLY: the timed rows chosen, no instruction counts
elif command -v valgrind >/dev/null; then
	echo "== instruction counts (callgrind)" >&2
	printf '\n### Instructions per operation (callgrind, deterministic)\n\n'
	printf 'Per operation, the difference of two runs (21000 and 1000 operations): "loop" counts everything the\n'
	printf 'benchmark loop executes (call, PLT stub, its own counting), "library" only what runs inside libc.so.6\n'
	printf '(glibc) or libfthr (fthr): the functions themselves. Neither counts fthr'"'"'s Valgrind function\n'
	printf 'wrappers (lib/diag_valgrind.c), which only Valgrind runs, around each call.\n\n'
	printf '| operation | glibc Ir/op (loop) | fthr Ir/op (loop) | glibc Ir/op (library) | fthr Ir/op (library) | fthr vs glibc (library) |\n|---|---|---|---|---|---|\n'
	cgdir=$(mktemp -d)
	ir() { # pre op n -> "total library"
		LD_PRELOAD=$1 valgrind --tool=callgrind --callgrind-out-file="$cgdir/out" "$bin" uncontended "$2" mt "$3" >/dev/null 2>&1
		awk -f "$here/ir-by-object.awk" "$cgdir/out" |
			awk '!/^valgrind-wrappers / { t += $NF } /libc\.so|libfthr/ { l += $NF } END { print t + 0, l + 0 }'
	}
	for op in mutex_normal mutex_recursive mutex_errorcheck mutex_trylock spin rwlock_rd rwlock_wr \
		sem_postwait cond_signal once getspecific setspecific; do
		[ "$quick" = 1 ] && case $op in mutex_normal|getspecific|sem_postwait|cond_signal) ;; *) continue ;; esac
		line=$( { ir "" $op 21000; ir "" $op 1000; ir "$lib" $op 21000; ir "$lib" $op 1000; } | tr '\n' ' ' |
			awk '{ printf "%.1f %.1f %.1f %.1f %.2f", ($1 - $3) / 20000, ($5 - $7) / 20000, ($2 - $4) / 20000, ($6 - $8) / 20000, ($2 - $4) / ($6 - $8) }')
		read -r gt ft gl fl rl <<<"$line"
		printf '| %s | %s | %s | %s | %s | **%s** |\n' "$op" "$gt" "$ft" "$gl" "$fl" "$rl"
		echo "callgrind,$op,Ir/op,lo,$gl,$fl,$rl,,,,,,," >>"$csv"
		printf '  %-40s Ir loop %s / %s, library %s / %s\n' "$op" "$gt" "$ft" "$gl" "$fl" >&2
	done
	rm -rf "$cgdir"
else
	printf '\n(valgrind is not installed: no instruction counts)\n'
fi

echo "== 2. contended mutex" >&2
table_head "2. Contended mutex: throughput (fairness = min/max per-thread share, fthr run)"
threads="1 2 4 8 16 64"; [ "$quick" = 1 ] && threads="1 2 4 16"
for cs in tiny 1us; do
	for t in $threads; do
		bench contend-$cs "mutex, $t threads, $cs critical section" hi contend $t $cs $secs
	done
done

echo "== 3. condition variables" >&2
table_head "3. Condition variables"
for p in none same diff; do bench cond_pingpong "cond ping-pong, pinned $p" lo cond_pingpong $p $((r / 2)); done
bench queue "bounded queue 1+1" hi queue 1 1 $((r * 4))
bench queue "bounded queue 4+4" hi queue 4 4 $((r * 4))
# a producer that never waits (64 units of work an item, outside the mutex)
for c in 1 2 4; do bench stream "stream, free-running producer + $c consumer(s)" hi stream $c 64 $((r * 10 / c)); done
# the same with 100 ns an item, the two threads pinned apart: items per
# wake-up (formerly judged in make check, tests/t_cond.c)
bench batch "free-running signaller, pinned waiter: items/wake-up" hi batch $r 100
# bounded queue 1+1 pinned apart, untimed waits over timed ones (a timed
# wait never naps): near 1 when no nap stalls the waiting producer
# (formerly judged in make check, tests/t_cond.c)
bench queue_stall "bounded queue 1+1 pinned apart: untimed/timed time" lo queue_stall $((r * 2))
bench broadcast "broadcast wake-all, 8 waiters" lo broadcast 8 $((r / 1000 + 20))
bench broadcast "broadcast wake-all, 32 waiters" lo broadcast 32 $((r / 2000 + 10))

echo "== 4. rwlock" >&2
table_head "4. Read-write locks"
for w in 1 50; do
	for t in 1 2 4 8; do
		[ "$quick" = 1 ] && [ $t = 8 ] && continue
		bench rwlock-$w "rwlock $w% writes, $t threads" hi rwlock $t $w $secs
	done
done
# tiny sections (no work inside): the lock's own cost, more threads than cpus
for t in 4 8; do bench rwlock-tiny "rwlock 1% writes, tiny sections, $t threads" hi rwlock $t 1 $secs 0; done

echo "== 4b. time to acquire, shares" >&2
# each acquisition timed (ns; p99 and the most), and the least thread's
# acquisitions over the mean (1: equal shares, 0: a thread starved)
table_head "4b. Contended mutex and rwlock (50% writes): time to acquire, each thread's share"
lthreads="2 4 16 64"; [ "$quick" = 1 ] && lthreads="4 16"
for l in mutex rwlock; do
	for t in $lthreads; do
		bench acquire-p99 "$l, $t threads: p99 time to acquire" lo acquire $t $l tiny p99 $secs
	done
	for t in $lthreads; do
		[ $t = 2 ] && continue
		bench acquire-max "$l, $t threads: most time to acquire" lo acquire $t $l tiny max $secs
		bench acquire-share "$l, $t threads: least thread's share" hi acquire $t $l tiny share $secs
	done
done

echo "== 5. semaphores, barriers, threads" >&2
table_head "5. Semaphores, barriers, thread create+join"
for p in none same diff; do bench sem_pingpong "sem ping-pong, pinned $p" lo sem_pingpong $p $((r / 2)); done
bench barrier "barrier, 2 threads" hi barrier 2 $((r / 2))
bench barrier "barrier, 4 threads" hi barrier 4 $((r / 4))
bench create_join "pthread_create+join" hi create_join $((r / 10))
bench start_handshake "thread start hand-shake (HotSpot's), detached" hi start_handshake $((r / 40))

echo "== 6. the seeds" >&2
table_head "6a. FreeBSD libthr (2015): 4 threads, one mutex, total locks"
fsecs=5; [ "$quick" = 1 ] && fsecs=1
bench freebsd "total locks in ${fsecs} s" hi freebsd $fsecs
if [ -n "${FTHR_NOFLAGS_LIB:-}" ] && [ -f "$FTHR_NOFLAGS_LIB" ]; then
	lib_saved=$lib; lib=$FTHR_NOFLAGS_LIB
	bench freebsd-noflags "total locks in ${fsecs} s, fthr WITHOUT general-regs-only flags" hi freebsd $fsecs
	lib=$lib_saved
fi
table_head "6b. Chromium ThreadLocalStoragePerfTest: operations/ms (C11 thread_local rows: the floor, both columns run the same code)"
for t in 1 4; do
	for op in read write rw; do
		bench tls "TLS $op, pthread_getspecific/setspecific, $t threads" hi tls $op key $t $n
	done
	bench tls-floor "TLS rw, C11 thread_local, $t threads" hi tls rw tl $t $n
done
table_head "6c. Ruby's thread benchmarks in C"
bench ruby "vm_thread_pass (lock handed back and forth)" lo cond_pingpong none $((r / 2))
bench ruby "vm_thread_create_join" hi create_join $((r / 10))
bench ruby "vm_thread_mutex1 (1 thread)" hi contend 1 tiny $secs
bench ruby "vm_thread_mutex2 (2 threads)" hi contend 2 tiny $secs
bench ruby "vm_thread_condvar" lo cond_pingpong none $((r / 2))
bench ruby "vm_thread_queue" hi queue 1 1 $((r * 4))
bench ruby "vm_thread_pipe" lo pipe $((r / 2))

echo "== 7. with a co-runner" >&2
# Another process keeps every cpu busy (as on any shared host): one busy
# loop per cpu for the whole section, for the glibc and the fthr runs alike.
table_head "7. With a co-runner: a busy loop on every cpu in another process"
hogs=
for ((i = 0; i < $(nproc); i++)); do sh -c 'while :; do :; done' & hogs="$hogs $!"; done
trap 'kill $hogs 2>/dev/null' EXIT
bench corunner "mutex, 4 threads, tiny critical section" hi contend 4 tiny $secs
bench corunner "mutex, 16 threads, 1us critical section" hi contend 16 1us $secs
bench corunner "rwlock 1% writes, 8 threads" hi rwlock 8 1 $secs
bench corunner "rwlock 1% writes, tiny sections, 8 threads" hi rwlock 8 1 $secs 0
bench corunner "rwlock 50% writes, 8 threads" hi rwlock 8 50 $secs
bench corunner "bounded queue 4+4" hi queue 4 4 $((r * 2))
bench corunner "stream, free-running producer + 1 consumer" hi stream 1 64 $((r * 5))
bench corunner "cond ping-pong, pinned none" lo cond_pingpong none $((r / 10))
bench corunner "sem ping-pong, pinned none" lo sem_pingpong none $((r / 10))
kill $hogs 2>/dev/null; wait $hogs 2>/dev/null; trap - EXIT

# rows that lose, and (A/A) those of them their own noise does not explain
awk -F, 'NR > 1 && $1 != "callgrind" { n++; if ($7 < 0.97) { low++; if ($13 != "" && $7 < $13) out++ } } END {
	if (n) printf "\nRows: %d; below 0.97: %d%s.\n", n, low,
		aa ? sprintf(", of which below their A/A control'"'"'s minimum: %d", out) : "" }' aa="$aa" "$csv"

if [ -n "$only" ]; then
	: # BENCH_ONLY: no plots (their rows may not have run)
elif command -v gnuplot >/dev/null; then
	echo "== plots" >&2
	for cs in tiny 1us; do
		grep "^contend-$cs," "$csv" | awk -F, '{ split($2, a, " "); print a[2], $5, $6 }' >"$out/contend-$cs.dat"
	done
	grep '^cond_pingpong,\|^sem_pingpong,' "$csv" | awk -F, '{ print "\"" $2 "\"", $5, $6 }' >"$out/pingpong.dat"
	gnuplot <<EOF
set terminal png size 800,500
set output "$out/contended-mutex.png"
set title "Contended mutex: lock+unlock pairs per second"
set xlabel "threads"; set ylabel "locks/s"; set logscale x 2; set key top right
plot "$out/contend-tiny.dat" using 1:2 with linespoints title "glibc, tiny CS", \
     "$out/contend-tiny.dat" using 1:3 with linespoints title "fthr, tiny CS", \
     "$out/contend-1us.dat" using 1:2 with linespoints title "glibc, 1us CS", \
     "$out/contend-1us.dat" using 1:3 with linespoints title "fthr, 1us CS"
set output "$out/pingpong.png"
unset logscale; set title "Ping-pong round trip by pinning (lower is better)"
set style data histograms; set style fill solid 0.6; set ylabel "ns/round trip"; set xtics rotate by -20
plot "$out/pingpong.dat" using 2:xtic(1) title "glibc", "" using 3 title "fthr"
EOF
	printf '\nPlots: %s/contended-mutex.png, %s/pingpong.png\n' "$out" "$out"
else
	printf '\n(gnuplot is not installed: no plots)\n'
fi
printf '\nCSV: %s\n' "$csv"
[ $failed = 0 ] || { echo "SOME BENCHMARKS FAILED THEIR OWN CHECKS" >&2; exit 1; }
