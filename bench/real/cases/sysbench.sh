#!/bin/sh
# sysbench 1.0's thread benchmarks (the Debian package, unmodified):
# "mutex" (each thread takes a mutex of an array of N, bumps a counter,
# unlocks; N=1: one lock every thread fights for, as in a global-lock
# program; N=4096: scattered locks) and "threads" (lock one of 8 mutexes,
# sched_yield, unlock: a scheduler-bound server loop). Fixed work; the check
# is sysbench's own event count. The figure is sysbench's "total time", or
# (threads95-*) the 95th percentile of its events' latency, in which each
# event is a loop of 100 lock, yield, unlock.
set -u
what=${1:?usage: sysbench.sh setup|list|run ID}
q=${BENCH_REAL_QUICK:-0}
case $what in
setup) command -v sysbench >/dev/null || { echo "sysbench not installed" >&2; exit 77; } ;;
list)
	for t in 1 2 8 64; do printf 'mutex1-%s\tmutex, one mutex, %s threads\tlo\t%s\n' $t $t $([ $t = 8 ] && echo 1 || echo 0); done
	for t in 2 8; do printf 'mutexN-%s\tmutex, 4096 mutexes, %s threads\tlo\t0\n' $t $t; done
	for t in 2 8 64; do printf 'threads-%s\tthreads (lock + yield), %s threads\tlo\t%s\n' $t $t $([ $t = 8 ] && echo 1 || echo 0); done
	for t in 8 64; do printf 'threads95-%s\tthreads (lock + yield), %s threads: p95 latency\tlo\t0\n' $t $t; done
	;;
run)
	id=${2:?}; t=${id#*-}
	case $id in
	mutex1-*) set -- mutex --mutex-num=1 --mutex-locks=$(( ($q == 1 ? 1000000 : 4000000) / t )) --mutex-loops=0; events=$t ;;
	mutexN-*) set -- mutex --mutex-num=4096 --mutex-locks=$(( 2000000 / t )) --mutex-loops=100; events=$t ;;
	threads-* | threads95-*) events=$([ "$q" = 1 ] && echo 5000 || echo 20000)
		set -- threads --thread-yields=100 --thread-locks=8 --events=$events --time=0 ;;
	*) echo "no case $id" >&2; exit 2 ;;
	esac
	out=$(LD_PRELOAD=${FTHR_PRELOAD:-} timeout 120 sysbench "$@" --threads="$t" run) ||
		{ echo "sysbench failed: $out" >&2; exit 1; }
	n=$(echo "$out" | awk '/total number of events:/ { print $NF }')
	[ "$n" = "$events" ] || { echo "sysbench counted $n events, not $events" >&2; exit 1; }
	case $id in
	threads95-*) echo "$out" | awk '/95th percentile:/ { print "RESULT", $NF, "ms" }' ;;
	*) echo "$out" | awk '/total time:/ { sub("s$", "", $NF); print "RESULT", $NF, "s" }' ;;
	esac
	;;
esac
