/* lib/lll.h: the low-level lock, one futex word with glibc's protocol:
 *   0 unlocked, 1 locked, 2 locked and somebody may sleep on the word.
 *   lock    CAS 0->1; else, while the word reads 1, spin a while (wait.h:
 *           fthr_wait_word_spin) retrying CAS 0->1; then
 *           (if the word reads 2, at once or after the spin: sleep first)
 *           loop { SWAP(2) returned 0: ours; futex_wait(word, 2) }
 *   unlock  SWAP(0); old value 2 -> futex_wake(word, 1)
 * Mutexes (thr_mutex.c) put their bookkeeping around it; rwlocks and the
 * named-semaphore registry use it bare as an internal lock.
 */
#ifndef FTHR_LLL_H
#define FTHR_LLL_H

#include "futex.h"
#include "self.h"
#include "wait.h"

/* Sleep until the word is ours (taken in state 2). abstime NULL: forever.
 * Returns 0 or ETIMEDOUT; the deadline must already be validated. */
FTHR_HIDDEN int fthr_lll_wait(volatile int *w, bool shared, clockid_t clk,
			      const struct timespec *abstime);

static inline bool fthr_lll_trylock(volatile int *w)
{
	return a_cas_acquire(w, 0, 1);
}

static inline void fthr_lll_lock(volatile int *w, bool shared)
{
	if (unlikely(!fthr_lll_trylock(w)) && !fthr_wait_word_spin(w, false))
		fthr_lll_wait(w, shared, CLOCK_MONOTONIC, NULL);
}

static inline void fthr_lll_unlock(volatile int *w, bool shared)
{
	if (unlikely(a_swap_release(w, 0) == 2))
		fthr_futex_wake(w, 1, shared);
}

#endif
