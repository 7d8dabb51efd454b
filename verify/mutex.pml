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
#define NADDR 2
#define M 1			/* the mutex's __data.__lock */

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
	:: !ok -> lll_wait(M, timed, ret)
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
	:: lold != 0 -> lold = 0; lll_wait(M, 0, lret); lret = 0
	:: else -> skip
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
#else
	lll_unlock(M)
#endif
}

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
	od
}
