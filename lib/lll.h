/* lib/lll.h: the low-level lock, one futex word with glibc's protocol:
 *   0 unlocked, 1 locked, 2 locked and somebody may sleep on the word.
 *   lock    CAS 0->1; else, while the word reads 1, spin a while (self.h;
 *           the first look after a pause, below) retrying CAS 0->1; then
 *           (if the word reads 2, sleep first) loop { SWAP(2) returned 0:
 *           ours; futex_wait(word, 2) }
 *   unlock  SWAP(0); old value 2 -> futex_wake(word, 1)
 * Mutexes (thr_mutex.c) put their bookkeeping around it; rwlocks and the
 * named-semaphore registry use it bare as an internal lock.
 */
#ifndef FTHR_LLL_H
#define FTHR_LLL_H

#include "futex.h"

/* Sleep until the word is ours (taken in state 2). abstime NULL: forever.
 * Returns 0 or ETIMEDOUT; the deadline must already be validated. */
FTHR_HIDDEN int fthr_lll_wait(volatile int *w, bool shared, clockid_t clk,
			      const struct timespec *abstime);

/* Spin a while (self.h) on a word that reads 1, retrying CAS 0->1; true
 * if that took it. The first read comes after 'patience' relax hints.
 *
 * Patience is for a lock that is taken again and again: every read of the
 * word pulls its line away from the holder, whose next lock or unlock must
 * fetch it back, and a waiter that takes the word the moment it reads 0
 * moves the lock, and its line, to the other cpu every few operations. A
 * waiter that first leaves the holder alone for about a microsecond lets it
 * run a batch at full speed, then takes over (measured on 2 cpus, tiny
 * critical sections, 2-64 threads: 1.9e7 -> 4.4e7 locks/s, fairer too;
 * bench/fthr-bench contend). A thread that knows the holder is about to
 * let go for good (a condition waiter whose signaller is about to wait)
 * passes FTHR_LLL_EAGER. */
#define FTHR_LLL_PATIENT 64
#define FTHR_LLL_EAGER 0
FTHR_HIDDEN bool fthr_lll_spin(volatile int *w, int patience);

static inline bool fthr_lll_trylock(volatile int *w)
{
	return a_cas_acquire(w, 0, 1);
}

static inline void fthr_lll_lock(volatile int *w, bool shared)
{
	if (unlikely(!fthr_lll_trylock(w)) && !fthr_lll_spin(w, FTHR_LLL_PATIENT))
		fthr_lll_wait(w, shared, CLOCK_MONOTONIC, NULL);
}

static inline void fthr_lll_unlock(volatile int *w, bool shared)
{
	if (unlikely(a_swap_release(w, 0) == 2))
		fthr_futex_wake(w, 1, shared);
}

#endif
