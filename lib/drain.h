/* lib/drain.h: a count of the threads inside an object that destroy must
 * wait out. POSIX lets a program destroy a condition variable or barrier as
 * soon as its waiters have been released, while they may still be on their
 * way out of the object's memory; destroy waits for that count to drain.
 *
 * The word: count of threads inside, plus DRAIN_WAITING once destroy waits.
 *   enter    fetch_add 1
 *   leave    fetch_sub 1; if that left exactly DRAIN_WAITING, futex_wake all
 *   wait     fetch_or DRAIN_WAITING; while the count is not 0, futex_wait
 */
#ifndef FTHR_DRAIN_H
#define FTHR_DRAIN_H

#include <limits.h>
#include "futex.h"

#define DRAIN_WAITING INT_MIN

static inline int fthr_drain_count(const volatile int *n)
{
	return __atomic_load_n(n, __ATOMIC_SEQ_CST) & INT_MAX;
}

static inline void fthr_drain_enter(volatile int *n)
{
	__atomic_fetch_add(n, 1, __ATOMIC_SEQ_CST);
}

static inline void fthr_drain_leave(volatile int *n, bool shared)
{
	if (__atomic_sub_fetch(n, 1, __ATOMIC_SEQ_CST) == DRAIN_WAITING)
		fthr_futex_wake(n, INT_MAX, shared);
}

static inline void fthr_drain_wait(volatile int *n, bool shared)
{
	int v = __atomic_or_fetch(n, DRAIN_WAITING, __ATOMIC_SEQ_CST);

	while (v != DRAIN_WAITING) {
		fthr_futex_wait(n, v, shared, CLOCK_MONOTONIC, NULL);
		v = __atomic_load_n(n, __ATOMIC_SEQ_CST);
	}
}

#endif
