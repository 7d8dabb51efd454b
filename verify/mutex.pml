/* verify/mutex.pml: the normal (and adaptive) private mutex of
 * lib/thr_mutex.c on the low-level lock of lib/lll.h / lib/lll.c.
 *
 * Word mem[M]: 0 unlocked, 1 locked, 2 locked and maybe sleepers.
 * NTHR threads each take the mutex ITERS times, each time by one of
 *   fthr_mutex_lock       CAS 0->1, else spin (lll_spin or, adaptive,
 *                         mutex_spin), else fthr_lll_wait
 *   fthr_mutex_trylock    CAS 0->1 or EBUSY
 *   fthr_mutex_timedlock  as lock, but the sleep may time out (ETIMEDOUT)
 *   fthr_mutex_cond_lock  (queue) a condition variable's re-take after a
 *                         broadcast that woke a herd: SWAP(2) only, then
 *                         fthr_lll_wait (without 'queue' it is lock's CAS,
 *                         spin and wait, already modelled above)
 * then, if they got it, run the critical section and fthr_mutex_unlock.
 *
 * Checked: mutual exclusion (assert in the critical section), and no
 * deadlock / no lost wake-up: every futex sleep blocks until a futex_wake,
 * so a thread left asleep while the others finished is an invalid end state.
 *
 * -DFAIR: the mutex's fair word (lll.h): sleepers count themselves
 * starving at any wake-up (untimed ones only), unlocks hand off (CAS 0->3
 * and a wake of the starving) whenever some are counted, or not (the
 * tick); checked as well: no hand-off is left untaken (the last thread
 * out finds the word 0 and no count).
 *
 * Seeded bugs (runs seeded/..., which must fail):
 *   -DSEED_FAIR_NOTAKE  a starving waiter sleeps on 3 as the others do:
 *             nobody takes the hand-off (invalid end state).
 *   -DSEED_FAIR_NORECHECK  the unlock trusts the count it read before its
 *             CAS 0->3: its sleeper may have taken the lock, counted
 *             itself out and let go meanwhile, and nobody takes the 3.
 *   -DSEED_FAIR_TIMED_MARK  timed waiters count themselves too: one that
 *             times out leaves a count no sleeper stands behind, and the
 *             hand-off it brings about is never taken.
 * Seeded bug (run seeded/mutex_unlock_nowake, which must fail):
 *   -DSEED_UNLOCK_NOWAKE  fthr_lll_unlock releases the word but skips the
 *             futex_wake when it was 2: a sleeper is never woken (invalid
 *             end state).
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef ITERS
#define ITERS 2
#endif
#define NPROC NTHR
#define NADDR 3
#define M 1			/* the mutex's __data.__lock */
#ifdef FAIR
#define F 2			/* its fair word (lll.h), the starving count */
#else
#define F 0
#endif

#include "lll.pml"

byte cs;			/* threads inside the critical section */
byte owner;			/* _pid + 1 of the holder, 0: free (__owner) */

/* thr_mutex.c mutex_spin (adaptive): look at the word with backoff, CAS
 * 0->1 when it reads 0, give up after max looks (at any point). */
inline mutex_spin(ok)
{
	ok = 0;
	do
	:: true -> break			/* n >= max: *spun = n, false */
	:: lv = mem[M];				/* a_load_relaxed(w) != 0 || */
	   if
	   :: lv == 0 -> lv = 0; lll_trylock(M, ok);	/* !a_cas_acquire(w, 0, 1) */
		if
		:: ok -> break
		:: else -> skip
		fi
	   :: else -> lv = 0
	   fi
	od
}

/* thr_mutex.c mutex_wait: spin (adaptive: mutex_spin, else lll_spin), then
 * fthr_lll_wait; ret 0 (ours) or F_ETIMEDOUT */
inline mutex_wait(timed, ret)
{
	ret = F_OK;
	if
	:: true -> mutex_spin(ok)	/* PTHREAD_MUTEX_ADAPTIVE_NP */
	:: true -> lll_spin(M, ok)	/* the other kinds */
	fi;
	if
	:: !ok -> lll_wait_fair(M, F, timed, ret)
	:: else -> skip
	fi;
	ok = 0
}

/* fthr_mutex_lock / fthr_mutex_timedlock: mutex_lock_fast (word_trylock),
 * else mutex_lock_slow (word_trylock, mutex_wait). got: 1 if taken. */
inline mutex_lock(timed, got)
{
	lll_trylock(M, ok);			/* mutex_lock_fast: word_trylock */
	if
	:: ok -> got = 1
	:: else ->
		lll_trylock(M, ok);		/* mutex_lock_slow: word_trylock */
		if
		:: ok -> got = 1
		:: else -> mutex_wait(timed, lret);
			got = (lret == F_OK); lret = 0
		fi
	fi;
	ok = 0
}

/* fthr_mutex_trylock: word_trylock or EBUSY */
inline mutex_trylock(got)
{
	lll_trylock(M, ok);
	got = ok; ok = 0
}

/* fthr_mutex_cond_lock(m, saved, queue = true): a_swap_acquire(w, 2) != 0
 * -> fthr_lll_wait (untimed) */
inline mutex_cond_lock_queue(got)
{
	atomic { lold = mem[M]; mem[M] = 2 };
	if
	:: lold != 0 && lold != 3 -> lold = 0; lll_wait_fair(M, F, 0, lret); lret = 0
	:: else -> lold = 0	/* 0, or 3: a hand-off taken */
	fi;
	got = 1
}

/* fthr_mutex_unlock -> mutex_release -> fthr_lll_unlock */
inline mutex_unlock()
{
	owner = 0;				/* a_store_relaxed(&__owner, 0) */
#ifdef SEED_UNLOCK_NOWAKE
	/* SEEDED BUG: fthr_lll_unlock releases the word (SWAP(0)) but never
	 * calls futex_wake(w, 1), even when the old value was 2 */
	atomic { lold = mem[M]; mem[M] = 0 };
	lold = 0
#elif defined(FAIR)
	lll_unlock_fair(M, F)
#else
	lll_unlock(M)
#endif
}

byte done;			/* threads finished */

active [NTHR] proctype thread()
{
	LLL_LOCALS;
	byte i, got;

	do
	:: i < ITERS ->
		if
		:: true -> mutex_lock(0, got)
		:: true -> mutex_lock(1, got)	/* timedlock */
		:: true -> mutex_trylock(got)
		:: true -> mutex_cond_lock_queue(got)
		fi;
		if
		:: got ->
			owner = _pid + 1;	/* mutex_took */
			cs++;
			assert(cs == 1);	/* mutual exclusion */
			assert(mem[M] != 0);	/* the word says locked */
			cs--;
			assert(owner == _pid + 1);
			mutex_unlock();
			got = 0
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	/* the last one out: the mutex is free, nobody counted starving (a
	 * hand-off nobody took would leave 3) */
	atomic {
		done++;
		if
		:: done == NTHR -> assert(mem[M] == 0 && mem[F] == 0)
		:: else -> skip
		fi
	}
}
