#!/bin/sh
# bench/real family "lmdb": several processes share one LMDB environment (as
# OpenLDAP slapd and its tools, Postfix lookup tables or a pre-forked service
# do); LMDB's write lock and reader-table lock are robust process-shared
# pthread mutexes in lock.mdb, shared between the processes, and that is what
# these measure. The environment lives in a fresh directory under /dev/shm and
# is opened MDB_NOSYNC|MDB_NOMETASYNC, so the disk plays no part.
# bench/real/lmdb/lmdb-bench.c does the work, the timing (start pipe to the
# last child's exit) and the exact checks. Interface: setup|list|run ID.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${BUILD:?BUILD must be set}/lmdb-bench
src=$here/lmdb/lmdb-bench.c

case ${1-} in
setup)
	command -v cc >/dev/null 2>&1 || { echo "lmdb: no C compiler (cc)" >&2; exit 77; }
	printf '#include <lmdb.h>\nint main(void) { return !mdb_version(0, 0, 0); }\n' |
		cc -x c - -o /dev/null -llmdb 2>/dev/null ||
		{ echo "lmdb: liblmdb-dev (lmdb.h, -llmdb) not found" >&2; exit 77; }
	mkdir -p "$BUILD"
	[ "$bin" -nt "$src" ] || cc -O2 -Wall -o "$bin" "$src" -llmdb -lpthread
	;;
list)
	# ID  LABEL  BETTER  QUICK
	# mixed:   4 processes x 2 writer threads, half of the processes on fthr and
	#          half on plain glibc, one write lock (fthr/glibc interoperation)
	printf 'mixed\tlmdb 4 procs x 2 writers, fthr+glibc mixed\thi\t1\n'
	# all:     the same, every process on $FTHR_PRELOAD
	printf 'all\tlmdb 4 procs x 2 writers\thi\t0\n'
	# readers: 4 processes x (1 writer + 3 reader threads), read txns taking a
	#          reader slot (reader-table lock) each; read+write txn/s
	printf 'readers\tlmdb 4 procs x (1 writer + 3 readers)\thi\t0\n'
	;;
run)
	id=${2-}
	q=1; [ "${BENCH_REAL_QUICK-}" = 1 ] && q=4
	f=${FTHR_PRELOAD-} p=${FTHR_PLAIN_PRELOAD-}
	case $id in
	mixed) set -- $((60000 / q)) 2 0 0 "$f" "$p" "$f" "$p" ;;
	all) set -- $((60000 / q)) 2 0 0 "$f" "$f" "$f" "$f" ;;
	readers) set -- $((30000 / q)) 1 3 $((30000 / q)) "$f" "$f" "$f" "$f" ;;
	*) echo "lmdb.sh: unknown case '$id'" >&2; exit 2 ;;
	esac
	[ -x "$bin" ] || { echo "lmdb.sh: $bin missing; run setup first" >&2; exit 1; }
	shm=/dev/shm; [ -d "$shm" ] && [ -w "$shm" ] || shm=${TMPDIR:-/tmp}
	dir=$(mktemp -d "$shm/fthr-lmdb.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 1' INT TERM HUP
	# args: K WRITERS READERS RTXN, then one LD_PRELOAD per child process
	LD_PRELOAD=$f timeout 120 "$bin" "$dir" "$@"
	;;
*)
	echo "usage: lmdb.sh setup|list|run ID" >&2
	exit 2
	;;
esac
