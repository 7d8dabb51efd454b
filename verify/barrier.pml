/* verify/barrier.pml: the barrier of lib/thr_barrier.c with the drain count
 * of lib/drain.h that its destroy waits on.
 *
 * Words: the 64-bit state = round << 32 | arrived is two fields that every
 * atomic operation on it updates together, in one atomic step: mem[ROUND]
 * (its round half, the futex word) and arrived (its low half).
 * mem[INSIDE] is the drain count (futex word: count + DRAIN_WAITING).
 *
 * fthr_barrier_wait, step by step:
 *   v = add_fetch(&state, 1)        one atomic RMW: r = round, a = arrived
 *   mine = r + (a - 1) / count      the round this arrival belongs to
 *   place = (a - 1) % count + 1
 *   place == count (the last, the serial thread):
 *       while (past(mine, r = round)) futex_wait(round, r)
 *       add_fetch(&state, (1 << 32) - count)   round + 1, count arrivals off
 *       futex_wake(round, all)
 *   else: (spin, then) while (!past(r = round, mine)) futex_wait(round, r)
 *   fthr_drain_leave(&inside)
 * past(x, y) is (int)(x - y) > 0; the model's rounds are small and never
 * wrap, so it is x > y here. The spin of FTHR_WAIT_EVENT only reads round,
 * which the loop's reads already cover.
 * The release add of (1 << 32) - count is round + 1, arrived - count only
 * if arrived >= count (else no carry reaches the round half): the model
 * asserts that and then updates both fields.
 *
 * NTHR threads each pass the barrier ITERS times; COUNT (the init count) is
 * NTHR by default. COUNT < NTHR uses the barrier with more threads than its
 * count, which glibc supports (COUNT threads pass per round): NTHR * ITERS
 * must then be a multiple of COUNT. Once every round has been released
 * (all NTHR * ITERS arrivals made and round * COUNT == NTHR * ITERS), thread
 * 0 destroys the barrier (fthr_barrier_destroy: EBUSY check, then
 * fthr_drain_wait), as POSIX lets it once no thread is blocked (the others
 * may still be leaving). With COUNT < NTHR and ITERS > 1 the program
 * itself may strand a thread (see quiescence below): run those with
 * -DSTRAND and pan -E.
 *
 * Checked:
 *   arrival    the thread with the k-th arrival overall (k = 1, 2, ...)
 *              computes mine = (k - 1) / COUNT and place = (k - 1) % COUNT
 *              + 1: each round gets exactly COUNT arrivals, rounds never mix
 *              (the invariant: round * COUNT + arrived == arrivals so far).
 *   rounds     a thread returns only once its round is complete (round >
 *              mine, round * COUNT >= k); the serial thread releases only
 *              its own round (round == mine) and only with arrived >=
 *              COUNT; exactly one serial thread per round (serials ==
 *              round after each release).
 *   destroy    after fthr_barrier_destroy returned, no thread touches the
 *              barrier's memory any more (assert !destroyed at each access).
 *   no deadlock / no lost wake-up: every thread reaches its end (an
 *              invalid end state otherwise), and the quiescence process
 *              states it directly (for pan -E runs, where the program can
 *              strand a thread).
 *
 * REAL BUG 2 (see README.md), now fixed in the C code: the old protocol
 * read round and added to arrived apart, and its serial thread reset
 * arrived with a plain store; with more threads than count a thread left a
 * round alone, or an arrival was lost. -DNTHR=4 -DCOUNT=2 -DITERS=1 must
 * pass.
 *   -DTWO_WORDS  the protocol before the fix, kept to reproduce the bug
 *             (runs realbug/barrier-over-count*, -DNTHR=4 -DCOUNT=2
 *             -DITERS=1): round and arrived in two words,
 *                 r = round; a = add_fetch(&arrived, 1);
 *                 a == count: arrived = 0 (a plain store); round = r + 1;
 *                             futex_wake(round, all)
 *                 else: spin, then while (round == r) futex_wait(round, r)
 *             its wait asserts only round * COUNT >= k and serials <= round:
 *             a thread that read round just before its round completed
 *             leaves at once (assertion violated). -DNO_ROUND_CHECK drops
 *             those two: an arrival between the serial thread's add_fetch
 *             and its store of 0 is wiped out, and a later round never
 *             fills (invalid end state).
 *
 * Seeded bugs (runs seeded/barrier_*, which must fail):
 *   -DSEED_WAKE_FIRST  the serial thread wakes the sleepers before its add
 *             moves the round: a woken sleeper that reads round before the
 *             add goes back to sleep on the old round, and nobody wakes it
 *             again (invalid end state; with -DSTRAND, pan -E: the
 *             quiescence assertion).
 *   -DSEED_NOSUB  the release adds 1 << 32 but does not subtract count: the
 *             next round's arrivals compute a later round than the one they
 *             are in (the arrival assertion).
 *   -DSEED_LAST_NOWAIT  the serial thread does not wait for its own round:
 *             with more threads than count (-DNTHR=4 -DCOUNT=2 -DITERS=1) a
 *             later round's last releases the earlier round (assert round
 *             == mine fails).
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
#define NPROC NTHR		/* the threads; quiescence comes after */
#define NADDR 3
#define ROUND 1
#define INSIDE 2
#define DRAIN_WAITING 128	/* INT_MIN: the top bit of the count */
#define TOTAL (NTHR * ITERS)	/* arrivals of the whole program */
#if (NTHR * ITERS) % COUNT != 0
#error "NTHR * ITERS must be a multiple of COUNT (else the last round never fills)"
#endif

#include "futex.pml"

byte arrived;			/* struct barrier state, low half */
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

#ifdef TWO_WORDS
/* old thr_barrier.c fthr_barrier_wait (the two-word protocol) */
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
		/* FTHR_WAIT_EVENT(round != r), then while (round == r) futex_wait */
		do
		:: atomic { mem[ROUND] != r -> TOUCH }; break
		:: atomic { mem[ROUND] == r -> TOUCH }; futex_wait(ROUND, r, fr, 0); fr = 0
		od
	fi;
#ifndef NO_ROUND_CHECK			/* -DNO_ROUND_CHECK: see the head comment */
	assert(mem[ROUND] * COUNT >= k);	/* our round is complete */
	assert(serials <= mem[ROUND]);
#endif
	drain_leave();				/* fthr_drain_leave(&b->inside) */
	r = 0; a = 0; k = 0
}
#else
/* thr_barrier.c fthr_barrier_wait */
inline barrier_wait()
{
	atomic { TOUCH; mem[INSIDE]++ };	/* fthr_drain_enter(&b->inside) */
	atomic {				/* v = add_fetch(&b->state, 1) */
		TOUCH; arrived++;
		r = mem[ROUND]; a = arrived;	/* v >> 32, (unsigned)v */
		narrivals++; k = narrivals;
		assert(mem[ROUND] * COUNT + arrived == narrivals)
	};
	assert(a >= 1);				/* FTHR_ASSERT(a >= 1) */
	mine = r + (a - 1) / COUNT;		/* mine = round + (a - 1) / count */
	assert(mine == (k - 1) / COUNT);	/* the k-th arrival's round */
	if
	:: (a - 1) % COUNT + 1 == COUNT ->	/* the serial thread */
		assert(k % COUNT == 0);
#ifdef SEED_LAST_NOWAIT
		/* SEEDED BUG: no "while (past(mine, round)) futex_wait" */
#else
		/* while (past(mine, r = round_of(b))) futex_wait(rw, r) */
		do
		:: atomic { mine > mem[ROUND] -> TOUCH; r = mem[ROUND] };
			futex_wait(ROUND, r, fr, 0); fr = 0
		:: atomic { mine <= mem[ROUND] -> TOUCH }; break
		od;
#endif
#ifdef SEED_WAKE_FIRST
		/* SEEDED BUG: wake before the add moves the round */
		atomic { TOUCH; futex_wake(ROUND, ALL) }	/* futex_wake(rw, INT_MAX) */
#endif
		/* add_fetch(&b->state, ROUND_ONE - b->count): one atomic add */
		atomic {
			TOUCH;
			assert(mem[ROUND] == mine);	/* releases its own round */
			assert(arrived >= COUNT);	/* the carry reaches round */
#ifdef SEED_NOSUB
			mem[ROUND]++;	/* SEEDED BUG: arrivals not subtracted */
#else
			mem[ROUND]++; arrived = arrived - COUNT;
#endif
			serials++;
			assert(serials == mem[ROUND])	/* one serial per round */
		};
#ifndef SEED_WAKE_FIRST
		atomic { TOUCH; futex_wake(ROUND, ALL) }	/* futex_wake(rw, INT_MAX) */
#endif
	:: else ->
		assert(k % COUNT != 0);
		/* FTHR_WAIT_EVENT(past(round, mine)), then
		 * while (!past(r = round_of(b), mine)) futex_wait(rw, r) */
		do
		:: atomic { mem[ROUND] > mine -> TOUCH }; break
		:: atomic { mem[ROUND] <= mine -> TOUCH; r = mem[ROUND] };
			futex_wait(ROUND, r, fr, 0); fr = 0
		od
	fi;
	assert(mem[ROUND] > mine);		/* our round is complete */
	assert(mem[ROUND] * COUNT >= k);
	assert(serials == mem[ROUND]);
	drain_leave();				/* fthr_drain_leave(&b->inside) */
	r = 0; a = 0; k = 0; mine = 0
}
#endif

/* thr_barrier.c fthr_barrier_destroy */
inline barrier_destroy()
{
	if
	:: arrived != 0 -> skip			/* (uint32_t)state != 0: EBUSY */
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
	byte i, r, a, k, mine, lv, fr;

	do
	:: i < ITERS -> barrier_wait(); i++
	:: else -> break
	od;
	released++;
	if
	:: _pid == 0 ->
		/* no thread blocked any more (with COUNT == NTHR this holds
		 * as soon as thread 0 returned): destroy while the others may
		 * still be leaving */
#ifdef TWO_WORDS
#if COUNT < NTHR
		released == NTHR;	/* more threads than count: wait for all to pass */
#endif
#else
		narrivals == TOTAL && mem[ROUND] * COUNT == TOTAL;
#endif
		barrier_destroy()
	:: else -> skip
	fi;
	finished++
}

/* -DSTRAND: no lost wake-up, stated directly. With COUNT < NTHR and
 * ITERS > 1 the program itself can strand a thread, as with any barrier:
 * e.g. 3 threads, count 2, 2 waits each: threads 1 and 2 pass rounds 0 and
 * 1 together and thread 0 is left alone in round 2. Such runs use pan -E
 * (a blocked end is not an error by itself), and this process is then the
 * lost wake-up check: whenever no thread can move (timeout), no full round
 * is left unreleased (arrived < COUNT), every thread still in its waits is
 * an arrival of the current, incomplete round (NTHR - released == arrived:
 * a thread asleep in a round that was already released is no longer
 * counted in arrived), and nobody sleeps in destroy's drain wait. At the
 * end of a complete run it holds trivially. Without -DSTRAND a lost
 * wake-up is an invalid end state, as in the other models. */
#ifdef STRAND
active proctype quiescence()
{
	byte i;

	timeout;
	assert(arrived < COUNT);
	assert(NTHR - released == arrived);
	do
	:: i < NTHR -> assert(fsleep[i] != INSIDE); i++
	:: else -> break
	od
}
#endif
