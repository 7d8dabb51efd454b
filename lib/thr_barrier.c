/* lib/thr_barrier.c: barriers on one futex word, a round number.
 *
 * Words (overlaid on the 32-byte pthread_barrier_t):
 *   round     the futex word: the number of completed rounds
 *   arrived   threads that reached the barrier in the current round
 *   count     threads per round (from init)
 *   inside    a drain count (drain.h): threads between entering wait and
 *             leaving the object's memory; destroy waits them out
 *   shared    process-shared
 *
 *   wait     r = round; a = ++arrived.
 *            a == count: the serial thread. arrived = 0, then round = r + 1
 *            (release), futex_wake(round, all); PTHREAD_BARRIER_SERIAL_THREAD.
 *            else: spin a while (self.h) for round != r, then
 *            while round == r: futex_wait(round, r); return 0.
 * Reuse: arrived is reset before round moves, and a thread can only enter
 * the next round after it saw round move, so rounds never mix. Every
 * sleeper sleeps only while round == r, and the last arrival moves round
 * and then wakes all: no wake-up is lost.
 * destroy: EBUSY while some thread is waiting in an unfinished round;
 * otherwise it waits for released threads to leave, then returns 0.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include "drain.h"
#include "self.h"

struct barrier {
	volatile int round;
	volatile int arrived;
	unsigned count;
	volatile int inside;
	int shared;
};
_Static_assert(sizeof(struct barrier) <= sizeof(pthread_barrier_t), "barrier fits");

static inline struct barrier *B(pthread_barrier_t *b)
{
	return (struct barrier *)b;
}

FTHR_HIDDEN int fthr_barrier_init(pthread_barrier_t *bar,
				  const pthread_barrierattr_t *a, unsigned count)
{
	struct barrier *b = B(bar);

	if (count == 0 || count > INT_MAX)
		return EINVAL;
	*b = (struct barrier){ .count = count,
			       .shared = a && a->__align == PTHREAD_PROCESS_SHARED };
	return 0;
}

FTHR_HIDDEN int fthr_barrier_wait(pthread_barrier_t *bar)
{
	struct barrier *b = B(bar);
	bool shared = b->shared;
	int r, ret = 0;

	fthr_drain_enter(&b->inside);
	r = a_load_acquire(&b->round);
	unsigned a = (unsigned)__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL);

	FTHR_ASSERT(a >= 1 && a <= b->count); /* a round never overfills */
	if (a == b->count) {
		a_store_relaxed(&b->arrived, 0);
		a_store_release(&b->round, r + 1);
		fthr_futex_wake(&b->round, INT_MAX, shared);
		ret = PTHREAD_BARRIER_SERIAL_THREAD;
	} else if (!FTHR_SPIN_UNTIL(a_load_acquire(&b->round) != r)) {
		while (a_load_acquire(&b->round) == r)
			fthr_futex_wait(&b->round, r, shared, CLOCK_MONOTONIC, NULL);
	}
	fthr_drain_leave(&b->inside, shared);
	return ret;
}

FTHR_HIDDEN int fthr_barrier_destroy(pthread_barrier_t *bar)
{
	struct barrier *b = B(bar);

	if (a_load_acquire(&b->arrived) != 0)
		return EBUSY;
	fthr_drain_wait(&b->inside, b->shared);
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_init(pthread_barrierattr_t *a)
{
	a->__align = PTHREAD_PROCESS_PRIVATE;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_destroy(pthread_barrierattr_t *a)
{
	(void)a;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__align = pshared;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_getpshared(const pthread_barrierattr_t *a,
					    int *pshared)
{
	*pshared = a->__align;
	return 0;
}

FTHR_EXPORT(pthread_barrier_init, fthr_barrier_init);
FTHR_EXPORT(pthread_barrier_destroy, fthr_barrier_destroy);
FTHR_EXPORT(pthread_barrier_wait, fthr_barrier_wait);
FTHR_EXPORT(pthread_barrierattr_init, fthr_barrierattr_init);
FTHR_EXPORT(pthread_barrierattr_destroy, fthr_barrierattr_destroy);
FTHR_EXPORT(pthread_barrierattr_setpshared, fthr_barrierattr_setpshared);
FTHR_EXPORT(pthread_barrierattr_getpshared, fthr_barrierattr_getpshared);
