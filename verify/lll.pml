/* verify/lll.pml: the low-level lock of lib/lll.h + lib/lll.c, glibc's
 * 0/1/2 protocol on one futex word mem[w]:
 *   0 unlocked, 1 locked, 2 locked and somebody may sleep on the word.
 * Shared by mutex.pml (under the mutex's bookkeeping), cond.pml (the mutex
 * the condition variable requeues onto) and rwlock.pml (the internal lock).
 *
 * A process using these declares LLL_LOCALS.
 */
#ifndef LLL_PML
#define LLL_PML

#include "futex.pml"

#define LLL_LOCALS byte ok, lv, lold, lfirst, lret, fr

/* lll.h fthr_lll_trylock: a_cas_acquire(w, 0, 1) */
inline lll_trylock(w, ok)
{
	atomic {
		if
		:: mem[w] == 0 -> mem[w] = 1; ok = 1
		:: else -> ok = 0
		fi
	}
}

/* wait.c fthr_wait_word_spin: after 'patience' relax hints, read the word while
 * it reads 1 (a bounded number of times, then one sched_yield and one more
 * read); if the last read saw 0, CAS 0->1. The patience and reading more
 * often are only delays, which the interleavings already cover: one read at
 * any moment, then the CAS. */
/* -DNOSPIN leaves the spin out: it loses no behaviour (a failed read or
 * CAS is invisible to the other threads, so spinning then taking the word
 * is the same as trying the first CAS later) and saves states in the
 * forever-looping liveness models. */
inline lll_spin(w, ok)
{
#ifdef NOSPIN
	ok = 0
#else
	lv = mem[w];			/* v = a_load_relaxed(w) */
	if
	:: lv == 0 -> lll_trylock(w, ok)	/* v == 0 && fthr_lll_trylock(w) */
	:: else -> ok = 0
	fi;
	lv = 0
#endif
}

/* lll.c fthr_lll_wait: sleep until the word is ours, taken in state 2.
 * ret 0 or F_ETIMEDOUT (timed only). */
inline lll_wait(w, timed, ret)
{
	ret = F_OK;
	lfirst = (mem[w] == 2);		/* already marked: goto sleep */
	do
	:: if
	   :: lfirst -> lfirst = 0
	   :: else ->
		atomic { lold = mem[w]; mem[w] = 2 };	/* a_swap_acquire(w, 2) */
		if
		:: lold == 0 -> lold = 0; break		/* ours, in state 2 */
		:: else -> lold = 0
		fi
	   fi;
	   futex_wait(w, 2, fr, timed);		/* sleep: fthr_futex_wait(w, 2) */
	   if
	   :: fr == F_ETIMEDOUT -> fr = 0; ret = F_ETIMEDOUT; break
	   :: else -> fr = 0
	   fi
	od
}

/* lll.h fthr_lll_lock */
inline lll_lock(w)
{
	lll_trylock(w, ok);
	if
	:: !ok -> lll_spin(w, ok);
		if
		:: !ok -> lll_wait(w, 0, lret)
		:: else -> skip
		fi
	:: else -> skip
	fi;
	ok = 0; lret = 0
}

/* lll.h fthr_lll_unlock: SWAP(0); old value 2 -> futex_wake(w, 1) */
inline lll_unlock(w)
{
	atomic { lold = mem[w]; mem[w] = 0 };
	if
	:: lold == 2 -> futex_wake(w, 1)
	:: else -> skip
	fi;
	lold = 0
}

#endif
