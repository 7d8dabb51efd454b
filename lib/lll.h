/* lib/lll.h: the low-level lock, one futex word with glibc's protocol:
 *   0 unlocked, 1 locked, 2 locked and somebody may sleep on the word,
 *   3 (fair words only, below) locked, handed to a starving sleeper that
 *     has not taken it yet.
 *   lock    CAS 0->1; else, while the word reads 1, spin a while (wait.h:
 *           fthr_wait_word_spin) retrying CAS 0->1; then
 *           (if the word reads 2 or 3, at once or after the spin: sleep
 *           first) loop { SWAP(2) returned 0 or 3: ours;
 *           futex_wait(word, 2) }
 *   unlock  SWAP(0); old value 2 (or 3) -> a hand-off (below) or
 *           futex_wake(word, 1)
 * Mutexes (thr_mutex.c) put their bookkeeping around it; rwlocks and the
 * named-semaphore registry use it bare as an internal lock.
 *
 * Eventual fairness (fthr_lll_wait's 'fair' word; a process-private mutex
 * of the kinds thr_mutex.c names, and only where futex bitsets exist). A
 * waiter that takes the lock whenever it sees it free overtakes the
 * sleepers, which each pay a wake-up before they look, without bound. So:
 * - A sleeper that has waited fair_us (wait.h) is starving: it counts
 *   itself in the fair word, once, and sleeps with FTHR_LLL_STARVING
 *   bits from then on (the others with FTHR_LLL_PLAIN); it counts itself
 *   out once the lock is its own. Only untimed waits count: a timed one
 *   may leave without the lock.
 * - An unlock whose SWAP(0) found 2, on a lock whose fair word counts
 *   starving sleepers and that was not handed off within the same
 *   fair_us tick, hands the lock off: CAS 0->3, then the count read
 *   again, then futex_wake_bits(1, STARVING). (A CAS that fails found the
 *   word taken by another: that thread holds it, the unlock wakes one
 *   sleeper as usual. A count that is 0 on the second read was stale on
 *   the first: its sleeper took the lock and let go meanwhile; CAS 3->0
 *   takes the hand-off back, and the unlock wakes one as usual.)
 * - A 3 is taken by SWAP(2) by a starving waiter; the others that read 3
 *   sleep on it (a waiter whose SWAP(2), after a read of 0 or 1, returns
 *   3 holds the lock all the same: the word is 2 now, and its unlock will
 *   wake the next).
 * No 3 is left untaken: the count read after the 3 was set is above 0
 *   only while a starving waiter is inside fthr_lll_wait, which it leaves
 *   only with the lock, then 3. It reads the word after each wake-up and
 *   before each sleep (a futex_wait on 2 finds 3 and returns at once), so
 *   it takes any 3 it is not woken for.
 * At most one hand-off per lock per fair_us: a hand-off leaves the lock
 *   idle while its sleeper wakes up, so that is what it costs the lock's
 *   throughput at most; and a starving sleeper waits about fair_us plus
 *   one tick per starving sleeper queued ahead of it.
 * The fair word (an int): bits 0-7 the starving sleepers (no more count
 *   themselves), bits 8-15 the process's fork generation that counted them
 *   (a child inherits a parent's counts but not its sleepers: a count of
 *   another generation is 0), bits 16-31 the tick of the last hand-off.
 */
#ifndef FTHR_LLL_H
#define FTHR_LLL_H

#include "futex.h"
#include "self.h"
#include "wait.h"

/* The futex bits of a fair word's sleepers (futex.h). */
#define FTHR_LLL_PLAIN 1u
#define FTHR_LLL_STARVING 2u

/* Sleep until the word is ours (taken in state 2). abstime NULL: forever.
 * fair: the lock's fair word, or NULL (then nothing above about 3 or
 * hand-offs applies). Returns 0 or ETIMEDOUT; the deadline must already
 * be validated. */
FTHR_HIDDEN int fthr_lll_wait(volatile int *w, bool shared, clockid_t clk,
			      const struct timespec *abstime, volatile int *fair);

/* An unlock's SWAP(0) found 2 on a word with a fair word: hand the lock
 * off if the rule above says so; true if it did (no wake is owed then). */
FTHR_HIDDEN bool fthr_lll_hand_off(volatile int *w, volatile int *fair);

static inline bool fthr_lll_trylock(volatile int *w)
{
	return a_cas_acquire(w, 0, 1);
}

static inline void fthr_lll_lock(volatile int *w, bool shared)
{
	if (unlikely(!fthr_lll_trylock(w)) && !fthr_wait_word_spin(w, false))
		fthr_lll_wait(w, shared, CLOCK_MONOTONIC, NULL, NULL);
}

static inline void fthr_lll_unlock(volatile int *w, bool shared)
{
	if (unlikely(a_swap_release(w, 0) == 2))
		fthr_futex_wake(w, 1, shared);
}

#endif
