/* REAL BUG 2 (expected: spin reports an error).
 * verify/realbug/barrier_old.pml: the barrier of lib/thr_barrier.c as it
 * was before the fix, with the drain count of lib/drain.h that its destroy
 * waits on. The old protocol kept round and arrived in two words:
 *   wait   r = round; a = add_fetch(&arrived, 1);
 *          a == count: arrived = 0 (a plain store); round = r + 1;
 *                      futex_wake(round, all)
 *          else: spin, then while (round == r) futex_wait(round, r)
 * The C code now uses one 64-bit word (see verify/barrier.pml); this copy
 * keeps the old protocol so that the bug stays reproducible.
 *
 * Words: mem[ROUND] the round (futex word), arrived (plain shared int),
 * mem[INSIDE] the drain count (futex word: count + DRAIN_WAITING).
 * NTHR threads each pass the barrier ITERS times; then thread 0 destroys
 * it (fthr_barrier_destroy: EBUSY check, fthr_drain_wait).
 * COUNT (the init count) is NTHR by default; COUNT < NTHR uses the barrier
 * with more threads than its count, which glibc supports.
 *
 * Checked: a thread whose arrival is the k-th one overall returns only
 * once round * COUNT >= k; at most one serial thread per round; no access
 * after destroy; no deadlock / no lost wake-up.
 *
 * The bug, only when more threads than COUNT use the barrier at once
 * (-DNTHR=4 -DCOUNT=2 -DITERS=1): a thread that read round r just before
 * round r completed arrives in round r + 1 with a stale r and leaves at
 * once (assertion violated), and an arrival between the serial thread's
 * add_fetch and its 'arrived = 0' store is wiped out, so a later round
 * never fills (invalid end state with -DNO_ROUND_CHECK). See README.md,
 * "Real bugs found", 2.
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef COUNT
#define COUNT NTHR
#endif
#ifndef ITERS
#define ITERS 2
#endif
#define NPROC NTHR
#define NADDR 3
#define ROUND 1
#define INSIDE 2
#define DRAIN_WAITING 128	/* INT_MIN: the top bit of the count */

#include "../futex.pml"

byte arrived;			/* struct barrier arrived */
bit destroyed;			/* ghost: fthr_barrier_destroy returned */
byte narrivals;			/* ghost: arrivals so far, all rounds */
byte serials;			/* ghost: serial threads so far */
byte finished;
byte released;			/* ghost: threads past their last wait */

#define TOUCH assert(!destroyed)

/* drain.h fthr_drain_leave */
inline drain_leave()
{
	atomic { TOUCH; mem[INSIDE]--; lv = mem[INSIDE] };	/* sub_fetch */
	if
	:: lv == DRAIN_WAITING -> futex_wake(INSIDE, ALL)
	:: else -> skip
	fi;
	lv = 0
}

/* old thr_barrier.c fthr_barrier_wait */
inline barrier_wait()
{
	atomic { TOUCH; mem[INSIDE]++ };	/* fthr_drain_enter(&b->inside) */
	atomic { TOUCH; r = mem[ROUND] };	/* r = a_load_acquire(&b->round) */
	atomic {				/* a = add_fetch(&b->arrived, 1) */
		TOUCH; arrived++; a = arrived;
		narrivals++; k = narrivals
	};
	if
	:: a == COUNT ->			/* the serial thread */
		atomic { TOUCH; arrived = 0 };
		atomic { TOUCH; mem[ROUND] = r + 1 };
		futex_wake(ROUND, ALL);
		serials++
	:: else ->
		/* FTHR_SPIN_UNTIL(round != r), then while (round == r) futex_wait */
		do
		:: atomic { mem[ROUND] != r -> TOUCH }; break
		:: atomic { mem[ROUND] == r -> TOUCH }; futex_wait(ROUND, r, fr, 0); fr = 0
		od
	fi;
#ifndef NO_ROUND_CHECK
	assert(mem[ROUND] * COUNT >= k);	/* our round is complete */
	assert(serials <= mem[ROUND]);
#endif
	drain_leave();				/* fthr_drain_leave(&b->inside) */
	r = 0; a = 0; k = 0
}

/* old thr_barrier.c fthr_barrier_destroy */
inline barrier_destroy()
{
	if
	:: arrived != 0 -> skip			/* EBUSY */
	:: else ->
		/* fthr_drain_wait: v = or_fetch(n, DRAIN_WAITING) */
		atomic { mem[INSIDE] = mem[INSIDE] | DRAIN_WAITING; lv = mem[INSIDE] };
		do
		:: lv != DRAIN_WAITING ->
			futex_wait(INSIDE, lv, fr, 0); fr = 0;
			lv = mem[INSIDE]
		:: else -> break
		od;
		lv = 0;
		destroyed = 1
	fi
}

active [NTHR] proctype thread()
{
	byte i, r, a, k, lv, fr;

	do
	:: i < ITERS -> barrier_wait(); i++
	:: else -> break
	od;
	released++;
	if
	:: _pid == 0 ->
#if COUNT < NTHR
		released == NTHR;	/* more threads than count: wait for all to pass */
#endif
		barrier_destroy()
	:: else -> skip
	fi;
	finished++
}
