/* verify/lll.pml: the low-level lock of lib/lll.h + lib/lll.c, glibc's
 * 0/1/2 protocol on one futex word mem[w]:
 *   0 unlocked, 1 locked, 2 locked and somebody may sleep on the word,
 *   3 (with a fair word mem[f], f != 0) locked, handed to a starving
 *     sleeper that has not taken it yet.
 * Shared by mutex.pml (under the mutex's bookkeeping), cond.pml (the mutex
 * the condition variable requeues onto) and rwlock.pml (the internal lock).
 *
 * A process using these declares LLL_LOCALS.
 */
#ifndef LLL_PML
#define LLL_PML

#include "futex.pml"

#define LLL_LOCALS byte ok, lv, lold, lret, fr, lstarv, lho

#ifdef SEED_FAIR_TIMED_MARK
#define FAIR_MAY_MARK(timed) 1
#else
#define FAIR_MAY_MARK(timed) (!(timed))
#endif

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
 * f: the fair word's address, 0 for none. ret 0 or F_ETIMEDOUT (timed
 * only). A sleep's wake-up may come after fair_us, any of them: then an
 * untimed waiter counts itself starving (mem[f] += 1) and sleeps with the
 * STARVING bit (2), the others of a fair word with PLAIN (1). */
inline lll_wait_fair(w, f, timed, ret)
{
	ret = F_OK;
	lv = mem[w];				/* v = a_load_relaxed(w) */
	do
	:: if
	   /* 2: sleep first; 3: handed to a starving sleeper */
	   :: lv == 2 || (lv == 3 && !lstarv) -> skip
#ifdef SEED_FAIR_NOTAKE
	   :: lv == 3 && lstarv -> skip	/* SEEDED BUG: a starving waiter sleeps on 3 too */
	   :: lv != 2 && lv != 3 ->
#else
	   :: else ->
#endif
		atomic { lold = mem[w]; mem[w] = 2 };	/* a_swap_acquire(w, 2) */
		if
		:: lold == 0 || lold == 3 -> lold = 0; break	/* ours, in state 2 */
		:: else -> lold = 0; lv = 2
		fi
	   fi;
	   futex_wait_bits(w, lv, fr, timed, (f == 0 -> 0 : (lstarv -> 2 : 1)));
	   if
	   :: fr == F_ETIMEDOUT -> fr = 0; ret = F_ETIMEDOUT; break
	   :: else -> fr = 0
	   fi;
	   if	/* fthr_wait_fair_due: waited fair_us, or not yet */
	   :: f != 0 && FAIR_MAY_MARK(timed) && !lstarv -> atomic { mem[f]++ }; lstarv = 1
	   :: true -> skip
	   fi;
	   lv = mem[w]
	od;
	if
	:: lstarv -> atomic { mem[f]-- }; lstarv = 0
	:: else -> skip
	fi;
	lv = 0
}

inline lll_wait(w, timed, ret)
{
	lll_wait_fair(w, 0, timed, ret)
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

/* thr_mutex.c word_release / word_released with a fair word f:
 * SWAP(0); old 2 (or 3) -> fthr_lll_hand_off (starving sleepers counted,
 * and this tick's hand-off not made yet: CAS 0->3, futex_wake_bits(1,
 * STARVING)) or futex_wake(w, 1) */
inline lll_unlock_fair(w, f)
{
	atomic { lold = mem[w]; mem[w] = 0 };
	if
	:: lold >= 2 ->
		if
		:: mem[f] > 0 ->	/* fair_count(f); the tick allows it, */
			atomic {
				if
				:: mem[w] == 0 -> mem[w] = 3; lho = 1
				:: else -> skip
				fi
			};
#ifndef SEED_FAIR_NORECHECK
			/* the count again: 0, and the 3 is taken back (CAS 3->0;
			 * one that fails found it taken: no wake owed) */
			if
			:: lho && mem[f] == 0 ->
				atomic {
					if
					:: mem[w] == 3 -> mem[w] = 0; lho = 0
					:: else -> lho = 2
					fi
				}
			:: else -> skip
			fi
#endif
		:: true -> skip		/* or not */
		fi;
		if
		:: lho == 1 -> futex_wake_bits(w, 1, 2)
		:: lho == 2 -> skip
		:: lho == 0 -> futex_wake(w, 1)
		fi;
		lho = 0
	:: else -> skip
	fi;
	lold = 0
}

#endif
