#!/bin/sh
# bench/real family "ruby": Ruby 3 (CRuby, MRI) thread benchmarks in the style
# of ruby's own benchmark/vm_thread_*.rb. CRuby's GVL, its Mutex, Queue and
# ConditionVariable sleeps and its thread start-up all run on pthread mutexes
# and condition variables, so these stand for any threaded Ruby program
# (Puma, Sidekiq). Each case times itself in Ruby (CLOCK_MONOTONIC) after a
# warm-up and checks exact counts. Interface: bench/real/cases (setup|list|run ID).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)

case ${1-} in
setup)
	command -v ruby >/dev/null 2>&1 || { echo "ruby: not found" >&2; exit 77; }
	ruby -e 'exit((RUBY_VERSION.split(".").map(&:to_i) <=> [3, 0]) >= 0)' ||
		{ echo "ruby: need 3.0 or later, have $(ruby -e 'print RUBY_VERSION')" >&2; exit 77; }
	mkdir -p "${BUILD:?BUILD must be set}"   # nothing to build
	;;
list)
	# ID  LABEL  BETTER  QUICK
	# pass:    4 threads Thread.pass to each other (GVL hand-off) - vm_thread_pass
	printf 'pass\truby Thread.pass, 4 threads\thi\t1\n'
	# mutex:   1000 threads contend one Mutex, exact counter - vm_thread_mutex3
	printf 'mutex\truby Mutex, 1000 threads\tlo\t0\n'
	# condvar: ConditionVariable ping-pong between 2 threads (sleep+wake per turn)
	printf 'condvar\truby ConditionVariable ping-pong\thi\t1\n'
	# queue:   Queue, 2 producers x 2 consumers, exact sum - job queues (Sidekiq)
	printf 'queue\truby Queue 2x2 producer/consumer\thi\t0\n'
	# create:  Thread.new { }.value one after another - vm_thread_create_join
	printf 'create\truby Thread.new+join, sequential\tlo\t0\n'
	;;
run)
	id=${2-}
	case $id in
	pass | mutex | condvar | queue | create) ;;
	*) echo "ruby.sh: unknown case '$id'" >&2; exit 2 ;;
	esac
	LD_PRELOAD=${FTHR_PRELOAD-} exec timeout 120 ruby "$here/ruby/$id.rb"
	;;
*)
	echo "usage: ruby.sh setup|list|run ID" >&2
	exit 2
	;;
esac
