/* lib/drain.h: a count of the threads inside an object that destroy must
 * wait out. POSIX lets a program destroy a condition variable or barrier as
 * soon as its waiters have been released, while they may still be on their
 * way out of the object's memory; destroy waits for that count to drain.
 *
 * The word: bits 0-19 the threads inside, bits 20-29 the holds (below),
 * bit 30 DRAIN_HOLD_WAITING, bit 31 DRAIN_WAITING once destroy waits.
 *   enter    fetch_add 1
 *   leave    fetch_sub 1; if that left exactly DRAIN_WAITING, futex_wake all
 *   wait     fetch_or DRAIN_WAITING; while the count is not 0, futex_wait
 * A hold is a thread's work on the object that continues after the object
 * may look idle to its program (a condition variable's deferred wake-up,
 * thr_cond.c): destroy waits for holds too, and a thread inside may wait
 * for them before it leaves (fthr_drain_threads leaves them out).
 *   hold     CAS count -> count + DRAIN_HOLD, if a thread is inside
 *   unhold   fetch_sub DRAIN_HOLD; if that left no hold: if
 *            DRAIN_HOLD_WAITING, clear it, futex_wake all; else if it
 *            left exactly DRAIN_WAITING, futex_wake all
 *   leave, unless held: CAS count -> count - 1 if no hold is counted
 *            (then as leave); else wait for holds: while a hold is
 *            counted, set DRAIN_HOLD_WAITING (CAS) and futex_wait
 */
#ifndef FTHR_DRAIN_H
#define FTHR_DRAIN_H

#include <limits.h>
#include "futex.h"

#define DRAIN_WAITING INT_MIN
#define DRAIN_THREADS_MASK ((1 << 20) - 1)
#define DRAIN_HOLD (1 << 20)
#define DRAIN_HOLD_MASK (0x3ff << 20)
#define DRAIN_HOLD_WAITING (1 << 30)

/* Threads inside, and holds. */
static inline int fthr_drain_count(const volatile int *n)
{
	return __atomic_load_n(n, __ATOMIC_SEQ_CST) & INT_MAX;
}

/* Threads inside only. */
static inline int fthr_drain_threads(const volatile int *n)
{
	return __atomic_load_n(n, __ATOMIC_SEQ_CST) & DRAIN_THREADS_MASK;
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

/* Hold, if a thread is inside (one CAS: that thread cannot leave
 * between the look and the hold); false if none is. */
static inline bool fthr_drain_hold(volatile int *n)
{
	int v = __atomic_load_n(n, __ATOMIC_SEQ_CST);

	do {
		if (!(v & DRAIN_THREADS_MASK))
			return false;
	} while (!__atomic_compare_exchange_n(n, &v, v + DRAIN_HOLD, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	return true;
}

static inline void fthr_drain_unhold(volatile int *n, bool shared)
{
	int v = __atomic_sub_fetch(n, DRAIN_HOLD, __ATOMIC_SEQ_CST);

	if (v & DRAIN_HOLD_MASK)
		return;
	if (v & DRAIN_HOLD_WAITING)
		__atomic_fetch_and(n, ~DRAIN_HOLD_WAITING, __ATOMIC_SEQ_CST);
	else if (v != DRAIN_WAITING)
		return;
	fthr_futex_wake(n, INT_MAX, shared);
}

/* Leave, unless a hold is counted: false then, and the caller waits for
 * the holds to go (fthr_drain_hold_wait) and tries again. One CAS, so that
 * no hold is taken between the look and the leave. */
static inline bool fthr_drain_leave_unheld(volatile int *n, bool shared)
{
	int v = __atomic_load_n(n, __ATOMIC_SEQ_CST);

	do {
		if (v & DRAIN_HOLD_MASK)
			return false;
	} while (!__atomic_compare_exchange_n(n, &v, v - 1, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_SEQ_CST));
	if (v - 1 == DRAIN_WAITING)
		fthr_futex_wake(n, INT_MAX, shared);
	return true;
}

/* Wait until no hold is counted (the caller is inside: the object
 * lives). */
static inline void fthr_drain_hold_wait(volatile int *n, bool shared)
{
	int v = __atomic_load_n(n, __ATOMIC_SEQ_CST);

	while (v & DRAIN_HOLD_MASK) {
		if (!(v & DRAIN_HOLD_WAITING) &&
		    !__atomic_compare_exchange_n(n, &v, v | DRAIN_HOLD_WAITING, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		fthr_futex_wait(n, v | DRAIN_HOLD_WAITING, shared, CLOCK_MONOTONIC, NULL);
		v = __atomic_load_n(n, __ATOMIC_SEQ_CST);
	}
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
