#!/bin/sh
# verify/run.sh: model-check fthr's futex protocols with spin.
#
#   sh verify/run.sh [VERIFY_DIR]
#
# VERIFY_DIR defaults to the directory of this script. Scratch files go to a
# fresh directory under $TMPDIR (default /tmp), removed at the end unless a
# run failed or KEEP=1. JOBS (default 2) runs that many pans at once, each
# taking the next unclaimed run. RUNS (an awk extended regular expression)
# keeps only the runs whose name it matches, e.g. RUNS='cond' or
# RUNS='^(cond|seeded/cond)'.
#
# For every run below: spin -a, gcc the verifier (pan), run it, and print
#   model  states-stored  depth  errors  PASS/FAIL
# A run expecting "ok" passes with 0 errors and a complete search; a run
# expecting "err" (seeded/ runs: a model with a SEED_* option that puts a
# bug in on purpose; realbug/ runs: a model with the option that restores
# the old protocol of a real bug; check/ runs showing a property can fail)
# passes when spin reports an error. Then "N passed, N failed"; exit 0
# only if all passed.
# Exit 77 (skip) if spin or a C compiler is missing.

dir=${1:-$(dirname "$0")}
dir=$(cd "$dir" && pwd) || exit 2
CC=${CC:-gcc}
JOBS=${JOBS:-2}

command -v spin >/dev/null 2>&1 || { echo "spin not installed: skipped"; exit 77; }
command -v "$CC" >/dev/null 2>&1 || { echo "$CC not installed: skipped"; exit 77; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/fthr-verify.XXXXXX") || exit 2
mkdir "$scratch/src" && cp "$dir"/*.pml "$scratch/src/" || exit 2

# name | model file | spin -D options | mode | extra pan options | expect |
#   for expect err: the error pan must report (a seeded bug must be found
#   as the failure it causes, not as some unrelated one)
#   mode safety:   cc -O1 -DSAFETY, pan (assertions + invalid end states)
#   mode quick:    the same with cc -O0 (small state spaces: compiling
#                  is the larger part of the run)
#   mode large:    safety with -DMEMLIM=4096 (state spaces of 3 GB)
#   mode liveness: cc -O1 -DNFAIR=3, pan -a -f (the model's LTL, weak
#                  fairness)
runs() {
cat <<'EOF'
mutex|mutex.pml|-DTIMEOUTS=1 -DSPURIOUS=1|safety||ok|
mutex-fair|mutex.pml|-DFAIR -DTIMEOUTS=1|safety||ok|
mutex-fair-spurious|mutex.pml|-DFAIR -DSPURIOUS=1|large||ok|
mutex-fair-fifo|mutex.pml|-DFAIR -DFUTEX_FIFO -DTIMEOUTS=1|safety||ok|
robust|robust.pml|-DTIMEOUTS=1|safety||ok|
robust-4threads|robust.pml|-DNTHR=4 -DITERS=1|safety||ok|
robust-two-deaths|robust.pml|-DDEATHS=2|safety||ok|
cond|cond.pml|-DTIMEOUTS=1 -DCANCELS=1|safety||ok|
cond-nodefer|cond.pml|-DNO_DEFER -DTIMEOUTS=1 -DCANCELS=1|safety||ok|
cond-spurious|cond.pml|-DSPURIOUS=1 -DEINTRS=1 -DRESTARTS=1|safety||ok|
cond-flags|cond.pml|-DFLAGS -DTIMEOUTS=1 -DCANCELS=1|safety||ok|
cond-signal-unlocked|cond.pml|-DSIG_UNLOCKED -DONLY_SIGNAL -DTIMEOUTS=1 -DCANCELS=1|safety||ok|
cond-bcast-unlocked|cond.pml|-DFLAGS -DSIG_UNLOCKED -DTIMEOUTS=1 -DCANCELS=1|safety||ok|
cond-bcast-unlocked-fifo|cond.pml|-DFLAGS -DSIG_UNLOCKED -DFUTEX_FIFO|quick||ok|
cond-2bcast-timeouts|cond.pml|-DFLAGS -DSIG_UNLOCKED -DNSIG=2 -DTIMEOUTS=1|large||ok|
cond-2bcast-cancels|cond.pml|-DFLAGS -DSIG_UNLOCKED -DNSIG=2 -DCANCELS=1|safety||ok|
cond-restarts|cond.pml|-DFLAGS -DSIG_UNLOCKED -DRESTARTS=2 -DTIMEOUTS=1|safety||ok|
cond-signallers-unlocked|cond.pml|-DSIG_UNLOCKED -DNSIG=2 -DTIMEOUTS=1|large||ok|
rwlock|rwlock.pml|-DTIMEOUTS=1|quick||ok|
rwlock-2writers|rwlock.pml|-DNR=1 -DNW=2 -DTIMEOUTS=1|quick||ok|
rwlock-readerpref|rwlock.pml|-DPREFER_READER -DTIMEOUTS=1|quick||ok|
rwlock-recursive|rwlock.pml|-DRECURSIVE_READ -DTIMEOUTS=1|quick||ok|
rwlock-private|rwlock.pml|-DPRIVATE -DTIMEOUTS=1|quick||ok|
rwlock-private-2writers|rwlock.pml|-DPRIVATE -DNR=1 -DNW=2 -DTIMEOUTS=1|safety||ok|
rwlock-private-readerpref|rwlock.pml|-DPRIVATE -DPREFER_READER -DTIMEOUTS=1|quick||ok|
rwlock-holder|rwlock.pml|-DHOLDER -DTIMEOUTS=1|quick||ok|
rwlock-private-holder|rwlock.pml|-DPRIVATE -DHOLDER -DTIMEOUTS=1|quick||ok|
rwlock-ltl|rwlock.pml|-DFOREVER -DLTL_WRITER -DSEQMOD=3 -DNOSPIN|liveness||ok|
rwlock-private-ltl|rwlock.pml|-DPRIVATE -DFOREVER -DLTL_WRITER -DNOSPIN|liveness||ok|
rwlock-bias|rwlock_bias.pml|-DTIMEOUTS=1|quick||ok|
rwlock-bias-readerpref|rwlock_bias.pml|-DPREFER_READER -DTIMEOUTS=1|quick||ok|
rwlock-bias-2writers|rwlock_bias.pml|-DNR=1 -DNW=2 -DRECURSIVE_TRY -DNSLOT=2 -DTIMEOUTS=1|quick||ok|
rwlock-bias-2writers-3rounds|rwlock_bias.pml|-DNR=1 -DNW=2 -DITERS=3|safety||ok|
rwlock-bias-fix-nested|rwlock_bias.pml|-DRECURSIVE_READ -DFIX_NESTED -DNSLOT=2 -DNR=1 -DNW=2 -DTIMEOUTS=1|quick||ok|
rwlock-bias-handoff-nobias|rwlock_bias.pml|-DHANDOFF -DPREFER_READER -DNOBIAS|quick||ok|
rwlock-bias-handoff|rwlock_bias.pml|-DHANDOFF -DPREFER_READER|quick||ok|
rwlock-bias-recursive-nonest|rwlock_bias.pml|-DRECURSIVE_READ -DNSLOT=2 -DNR=1|quick||ok|
sem|sem.pml|-DTIMEOUTS=1 -DEINTRS=1 -DCANCELS=1 -DSPURIOUS=1|quick||ok|
sem-2posters|sem.pml|-DNPOST=2 -DTIMEOUTS=1 -DEINTRS=1 -DCANCELS=1 -DSPURIOUS=1|quick||ok|
sem-3waiters|sem.pml|-DNWAIT=3 -DTIMEOUTS=1 -DCANCELS=1|safety||ok|
sem-trywait|sem.pml|-DTRYWAIT -DTIMEOUTS=1 -DCANCELS=1|quick||ok|
sem-scarce|sem.pml|-DNTOK=1 -DTIMEOUTS=1 -DEINTRS=1 -DCANCELS=1 -DSPURIOUS=1|quick|-E|ok|
once|once.pml|-DCANCELS=2 -DSPURIOUS=1|quick||ok|
once-forked|once.pml|-DFORKED -DCANCELS=1 -DSPURIOUS=1|quick||ok|
barrier|barrier.pml|-DSPURIOUS=1|quick||ok|
barrier-3rounds|barrier.pml|-DITERS=3 -DSPURIOUS=1|quick||ok|
barrier-over-count|barrier.pml|-DNTHR=4 -DCOUNT=2 -DITERS=1 -DSPURIOUS=1|safety||ok|
barrier-over-count-2rounds|barrier.pml|-DNTHR=3 -DCOUNT=2 -DITERS=2 -DSPURIOUS=1 -DSTRAND|quick|-E|ok|
barrier-count1|barrier.pml|-DNTHR=3 -DCOUNT=1 -DITERS=2|quick||ok|
realbug/cond-bcast-unlocked|cond.pml|-DRQ_SEQ -DNO_EXACT_CHECK -DFLAGS -DSIG_UNLOCKED -DFUTEX_FIFO|quick||err|invalid end state
realbug/cond-requeue-count|cond.pml|-DRQ_ONE_COUNT -DNO_EXACT_CHECK -DFLAGS -DSIG_UNLOCKED -DTIMEOUTS=1|quick||err|assertion violated
realbug/cond-requeue-count-lost|cond.pml|-DRQ_ONE_COUNT -DNO_EXACT_CHECK -DNO_INVARIANTS -DFLAGS -DSIG_UNLOCKED -DTIMEOUTS=1|quick||err|invalid end state
realbug/cond-requeue-creep|cond.pml|-DREQUEUE|quick||err|assertion violated
realbug/cond-requeue-restart|cond.pml|-DREQUEUE -DNO_EXACT_CHECK -DFLAGS -DSIG_UNLOCKED -DRESTARTS=1|quick||err|invalid end state
realbug/barrier-over-count|barrier.pml|-DTWO_WORDS -DNTHR=4 -DCOUNT=2 -DITERS=1|quick||err|assertion violated
realbug/barrier-over-count-lost|barrier.pml|-DTWO_WORDS -DNTHR=4 -DCOUNT=2 -DITERS=1 -DNO_ROUND_CHECK|quick||err|invalid end state
realbug/rwlock-bias-recursive|rwlock_bias.pml|-DREVOKE_HOLDING_WRITER -DRECURSIVE_READ -DNSLOT=2 -DNR=1|quick||err|invalid end state
realbug/rwlock-bias-handoff|rwlock_bias.pml|-DREVOKE_HOLDING_WRITER -DHANDOFF -DPREFER_READER|quick||err|invalid end state
realbug/rwlock-bias-epoch|rwlock_bias.pml|-DNO_EPOCH -DNR=1 -DNW=2 -DITERS=3|quick||err|assertion violated
realbug/rwlock-bias-rebias|rwlock_bias.pml|-DNO_REBIAS_STOP|quick||err|assertion violated
realbug/rwlock-holder|rwlock.pml|-DHOLDER -DNO_READER_WAKE -DTIMEOUTS=1|quick||err|invalid end state
realbug/rwlock-private-holder|rwlock.pml|-DPRIVATE -DHOLDER -DNO_READER_WAKE -DTIMEOUTS=1|quick||err|invalid end state
realbug/robust-woken-dies|robust.pml|-DNO_RECHECK|quick||err|invalid end state
check/robust-glibc-sleepers|robust.pml|-DNGLIBC=3|quick||err|invalid end state
check/robust-glibc-mixed|robust.pml|-DNGLIBC=2|quick||err|invalid end state
check/rwlock-readerpref-ltl|rwlock.pml|-DPREFER_READER -DFOREVER -DLTL_WRITER -DSEQMOD=3 -DNOSPIN|liveness||err|acceptance cycle
seeded/mutex_unlock_nowake|mutex.pml|-DSEED_UNLOCK_NOWAKE|quick||err|invalid end state
seeded/mutex_fair_notake|mutex.pml|-DFAIR -DSEED_FAIR_NOTAKE|quick||err|invalid end state
seeded/mutex_fair_norecheck|mutex.pml|-DFAIR -DSEED_FAIR_NORECHECK|quick||err|invalid end state
seeded/mutex_fair_timed_mark|mutex.pml|-DFAIR -DSEED_FAIR_TIMED_MARK -DTIMEOUTS=1|quick||err|assertion violated
seeded/cond_signal_noseq|cond.pml|-DSEED_SIGNAL_NOSEQ -DONLY_SIGNAL|quick||err|invalid end state
seeded/cond_fly_drop|cond.pml|-DSEED_FLY_DROP -DONLY_SIGNAL|quick||err|invalid end state
seeded/cond_wake_store|cond.pml|-DSEED_WAKE_STORE -DSIG_UNLOCKED -DNSIG=2 -DTIMEOUTS=1|quick||err|invalid end state
seeded/cond_norequeue_check|cond.pml|-DREQUEUE -DNO_EXACT_CHECK -DSEED_NO_REQUEUE_CHECK -DFLAGS -DTIMEOUTS=1|quick||err|assertion violated
seeded/cond_double_out|cond.pml|-DSEED_DOUBLE_OUT|quick||err|assertion violated
seeded/cond_defer_unlocked|cond.pml|-DSEED_DEFER_UNLOCKED -DSIG_UNLOCKED -DFLAGS|quick||err|invalid end state
seeded/cond_leave_held|cond.pml|-DSEED_LEAVE_HELD -DONLY_BROADCAST|quick||err|assertion violated
seeded/rwlock_seq_late|rwlock.pml|-DSEED_SEQ_LATE|quick||err|invalid end state
seeded/rwlock_pending_noresleep|rwlock.pml|-DPRIVATE -DSEED_PENDING_NORESLEEP -DNR=1 -DNW=2|quick||err|invalid end state
seeded/rwlock_bias_noreread|rwlock_bias.pml|-DSEED_NOREREAD|quick||err|assertion violated
seeded/rwlock_bias_nowake|rwlock_bias.pml|-DSEED_NOWAKE|quick||err|invalid end state
seeded/rwlock_bias_rev_first|rwlock_bias.pml|-DSEED_REV_FIRST|quick||err|invalid end state
seeded/rwlock_bias_norecheck|rwlock_bias.pml|-DSEED_NORECHECK|quick||err|invalid end state
seeded/rwlock_bias_late_on|rwlock_bias.pml|-DSEED_LATE_ON|quick||err|assertion violated
seeded/rwlock_bias_trywr_norevoke|rwlock_bias.pml|-DSEED_TRYWR_NOREVOKE|quick||err|assertion violated
seeded/sem_cancel_nopass|sem.pml|-DSEED_CANCEL_NOPASS -DNTOK=1 -DCANCELS=1|quick|-E|err|assertion violated
seeded/once_abandon_nowake|once.pml|-DSEED_ABANDON_NOWAKE -DCANCELS=1|quick||err|invalid end state
seeded/barrier_wake_first|barrier.pml|-DSEED_WAKE_FIRST|quick||err|invalid end state
seeded/barrier_wake_first-strand|barrier.pml|-DSEED_WAKE_FIRST -DNTHR=3 -DCOUNT=2 -DITERS=2 -DSTRAND|quick|-E|err|assertion violated
seeded/barrier_nosub|barrier.pml|-DSEED_NOSUB|quick||err|assertion violated
seeded/barrier_last_nowait|barrier.pml|-DSEED_LAST_NOWAIT -DNTHR=4 -DCOUNT=2 -DITERS=1|quick||err|assertion violated
EOF
}

# the runs RUNS selects (all by default)
selected() {
	if [ -n "${RUNS:-}" ]; then
		runs | awk -F'|' -v re="$RUNS" '$1 ~ re'
	else
		runs
	fi
}

# one run: $1 index, then the fields; writes $scratch/res.<index>
one() {
	idx=$1 name=$2 file=$3 defs=$4 mode=$5 panopts=$6 expect=$7 want=$8
	w="$scratch/run.$idx"		# created by the worker that claimed it
	(
		cd "$w" || exit 1
		# shellcheck disable=SC2086
		spin $defs -a "$scratch/src/$file" >spin.log 2>&1 || exit 1
		if [ "$mode" = liveness ]; then
			$CC -O1 -w -DNFAIR=3 -DCOLLAPSE -DMEMLIM=4096 -o pan pan.c >cc.log 2>&1 || exit 1
			# shellcheck disable=SC2086
			./pan -a -f -m30000000 -w24 $panopts >pan.log 2>&1
		else
			opt=-O1 memlim=2048
			[ "$mode" = quick ] && opt=-O0
			[ "$mode" = large ] && memlim=4096
			$CC $opt -w -DSAFETY -DCOLLAPSE -DMEMLIM=$memlim -o pan pan.c >cc.log 2>&1 || exit 1
			# shellcheck disable=SC2086
			./pan -m1000000 -w24 $panopts >pan.log 2>&1
		fi
		exit 0
	)
	built=$?
	log="$w/pan.log"
	if [ $built -ne 0 ] || [ ! -s "$log" ]; then
		states=- depth=- errors=- verdict=FAIL
	else
		errors=$(sed -n 's/.*errors: *\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
		states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$log" | tail -n 1)
		depth=$(sed -n 's/.*depth reached *\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
		[ -n "$errors" ] || errors=-
		[ -n "$states" ] || states=-
		[ -n "$depth" ] || depth=-
		incomplete=no
		grep -q -e 'MEMLIM' -e 'max search depth too small' -e 'out of memory' \
			"$log" && incomplete=yes
		verdict=FAIL
		case $expect:$errors in
		ok:0) [ $incomplete = no ] && verdict=PASS ;;
		err:-|err:0|ok:*) ;;
		err:*) if [ -z "$want" ] || grep -q "pan:1: $want" "$log"; then
				verdict=PASS
			fi ;;
		esac
	fi
	printf '%-36s %12s %8s %6s  %s\n' "$name" "$states" "$depth" "$errors" "$verdict" \
		>"$scratch/res.$idx"
}

start=$(date +%s)
n=$(selected | wc -l)
k=0
while [ $k -lt "$JOBS" ]; do
	(
		i=0
		# every worker walks the whole list and takes the next run that
		# no other worker has claimed (mkdir is atomic): a worker that
		# finished a short run goes on while the other is in a long one
		selected | while IFS='|' read -r name file defs mode panopts expect want; do
			if mkdir "$scratch/run.$i" 2>/dev/null; then
				one "$i" "$name" "$file" "$defs" "$mode" "$panopts" "$expect" "$want"
			fi
			i=$((i + 1))
		done
	) &
	k=$((k + 1))
done
wait

printf '%-36s %12s %8s %6s  %s\n' model states-stored depth errors result
pass=0 fail=0 i=0
while [ $i -lt "$n" ]; do
	if [ -f "$scratch/res.$i" ]; then
		cat "$scratch/res.$i"
		if grep -q ' PASS$' "$scratch/res.$i"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "    (logs: $scratch/run.$i)"
		fi
	else
		fail=$((fail + 1))
		echo "run $i: no result"
	fi
	i=$((i + 1))
done
echo "$pass passed, $fail failed ($(( $(date +%s) - start ))s)"
if [ $fail -eq 0 ] && [ "${KEEP:-0}" != 1 ]; then
	rm -rf "$scratch"
else
	echo "scratch kept: $scratch"
fi
[ $fail -eq 0 ]
