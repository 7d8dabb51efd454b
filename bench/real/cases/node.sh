#!/bin/sh
# Node.js (the machine's node): short-lived worker_threads, started and
# joined in waves of 10 (bench/real/node/workers.js); each worker's result
# is checked. The figure is workers per second.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
case ${1:?usage: node.sh setup|list|run ID} in
setup) command -v node >/dev/null || { echo "node not installed" >&2; exit 77; } ;;
list) printf 'workers\tworker_threads, 10 at a time\thi\t1\n' ;;
run)
	[ "$2" = workers ] || { echo "no case $2" >&2; exit 2; }
	LD_PRELOAD=${FTHR_PRELOAD:-} timeout 120 node "$here/node/workers.js" $([ "${BENCH_REAL_QUICK:-0}" = 1 ] && echo 4 || echo 8)
	;;
esac
