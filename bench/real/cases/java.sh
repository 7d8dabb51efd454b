#!/bin/bash
# bench/real family "java": OpenJDK's java.util.concurrent, monitors and
# threads (bench/real/java/Bench.java), run on a JVM whose every thread is a
# pthread. Interface: bench/real case interface (setup | list | run ID).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../java
: "${BUILD:=$here/../build/java}"
: "${FTHR_PRELOAD:=}"

# ID  LABEL  BETTER  QUICK  N (units of work in a full run; quick halves it)
cases() {
	# fair lock handoffs + Condition waits: a fair-locked work queue (e.g. a servlet container's request queue)
	printf 'fairlock\tReentrantLock(true)+Condition bounded buffer, 2P/2C, cap 16 (items/s)\thi\t1\t100000\n'
	# the same with barging: ArrayBlockingQueue-style producer/consumer, the JDK's default
	printf 'unfairlock\tReentrantLock(false)+Condition bounded buffer, 2P/2C, cap 16 (items/s)\thi\t0\t1500000\n'
	# contended synchronized blocks: legacy synchronized collections (Vector, Hashtable, StringBuffer)
	printf 'sync\tsynchronized counter, 4 threads (ops/s)\thi\t1\t80000000\n'
	# monitor wait/notify handoff: hand-written queues of older servers
	printf 'waitnotify\tObject wait/notify ping-pong, 2 threads (round-trips/s)\thi\t0\t300000\n'
	# LockSupport.park/unpark handoff: the primitive under every j.u.c synchronizer
	printf 'park\tLockSupport park/unpark ping-pong, 2 threads (round-trips/s)\thi\t0\t300000\n'
	# tiny tasks on a thread pool: ExecutorService fan-out/fan-in in application servers
	printf 'pool\tExecutors.newFixedThreadPool(4), tiny tasks, futures joined (tasks/s)\thi\t0\t1500000\n'
	# read-mostly shared state: caches and registries behind a ReentrantReadWriteLock
	printf 'rwlock\tReentrantReadWriteLock, 4 threads, 1%% writes (ops/s)\thi\t0\t15000000\n'
	# thread churn: thread-per-task code creating short-lived threads
	printf 'create\tThread create+start+join, sequential (threads/s)\thi\t1\t10000\n'
}

case ${1:-} in
setup)
	command -v java >/dev/null && command -v javac >/dev/null || { echo "java/javac missing" >&2; exit 77; }
	mkdir -p "$BUILD" || exit 1
	stamp=$BUILD/.built
	# rebuild only if some source is newer than the last build
	if [ -f "$stamp" ] && [ -z "$(find "$src" -name '*.java' -newer "$stamp")" ]; then exit 0; fi
	javac -d "$BUILD" "$src"/*.java && touch "$stamp"
	;;
list)
	cases | cut -f1-4
	;;
run)
	id=${2:?usage: java.sh run ID}
	n=$(cases | awk -F'\t' -v id="$id" '$1 == id { print $5 }')
	[ -n "$n" ] || { echo "java.sh: unknown case '$id'" >&2; exit 2; }
	[ -f "$BUILD/Bench.class" ] || { echo "java.sh: not built; run '$0 setup' first" >&2; exit 1; }
	[ "${BENCH_REAL_QUICK:-0}" = 1 ] && n=$((n / 2))
	LD_PRELOAD="$FTHR_PRELOAD" timeout 120 java -Xmx256m -cp "$BUILD" Bench "$id" "$n"
	;;
*)
	echo "usage: java.sh setup | list | run ID" >&2; exit 2
	;;
esac
