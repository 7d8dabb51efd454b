/* lib/thr_sem.c: POSIX semaphores with glibc's layout and futex protocol,
 * so a process-shared or named semaphore works between an fthr process and
 * a plain-glibc one.
 *
 * The 64-bit word 'data': value in the low 32 bits (also the futex word:
 * the int at offset 0 on little-endian cpus, at offset 4 on big-endian ones,
 * sem.h), number of registered waiters in the high 32 bits.
 *   post     CAS data -> data + 1 (EOVERFLOW at SEM_VALUE_MAX); if the
 *            waiter half was non-zero, futex_wake(value, 1).
 *   wait     fast: CAS data -> data - 1 while the value is > 0.
 *            slow: spin a while (self.h) retrying that; then
 *            data += 1 << 32 (register); loop { value 0 ->
 *            futex_wait(value, 0); value > 0 -> CAS data -> data - 1 - (1 << 32)
 *            (take a token and unregister in one step) }. A timeout or a
 *            signal handler unregisters (data -= 1 << 32) and fails with
 *            ETIMEDOUT or EINTR.
 *   cancel   sem_wait/timedwait/clockwait are cancellation points: the
 *            type is asynchronous only around the futex wait; the cleanup
 *            handler unregisters and, if tokens and other waiters remain,
 *            passes the wake-up it may have consumed on (glibc does not).
 *            Every successful return checks for a request after the take
 *            (fthr_cancel_before_return, host.h): one pending, or made
 *            before the post of the token taken, is acted on there, the
 *            token posted back.
 * Every post that finds a registered waiter wakes one; a registered waiter
 * sleeps only while the value is 0: no wake-up is lost.
 *
 * 32-bit arches (glibc's protocol without 64-bit atomics, sem.h): the futex
 * word 'value' holds tokens << 1 | W, W "there may be waiters"; 'nwaiters'
 * counts the registered waiters.
 *   post     CAS value -> value + 2 (EOVERFLOW at SEM_VALUE_MAX tokens); if
 *            W was set, futex_wake(value, 1).
 *   wait     fast: CAS value -> value - 2 while tokens > 0.
 *            slow: nwaiters += 1 (acquire); loop { set W (CAS, release);
 *            no token -> futex_wait(value, W); else CAS value -> value - 2 }.
 *            finish (also on a timeout, a signal or cancellation): a waiter
 *            that guesses it is the last (nwaiters == 1) clears W first,
 *            then nwaiters -= 1 (release); if the guess was wrong (others
 *            registered meanwhile) it sets W again and wakes as many as
 *            there are tokens. A wrongly cleared W is always repaired by the
 *            waiter that cleared it, and a set W costs only a needless wake.
 */
#include "config.h"
#include "tsan.h"
#include <errno.h>
#include <limits.h>
#include "diag.h"
#include "futex.h"
#include "host.h"
#include "sem.h"
#include "self.h"
#include "wait.h"


static inline struct sem *S(sem_t *s)
{
	return (struct sem *)s;
}

static inline volatile int *value_word(struct sem *s)
{
#if SEM_64
	return (volatile int *)&s->half[SEM_VALUE_HALF];
#else
	return (volatile int *)&s->value;
#endif
}

static inline bool sem_shared(const struct sem *s)
{
	return s->private != 0;
}

/* Out of line: errno is the host's (a call out of the library), and only
 * error paths set it. */
static FTHR_COLD int fail(int e)
{
	errno = e;
	return -1;
}

FTHR_HIDDEN FTHR_INLINED int fthr_sem_init(sem_t *sem, int pshared, unsigned value)
{
	if (value > SEM_VALUE_MAX)
		return fail(EINVAL);
	fthr_sem_setup(S(sem), value, pshared != 0);
	return 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_sem_destroy(sem_t *sem)
{
	(void)sem;
	return 0;
}

#if SEM_64
FTHR_HIDDEN int fthr_sem_post(sem_t *sem)
{
	struct sem *s = S(sem);
	uint64_t d = __atomic_load_n(&s->data, __ATOMIC_RELAXED);

	do {
		if ((d & SEM_VALUE_MASK) == SEM_VALUE_MAX)
			return fail(EOVERFLOW);
	} while (!__atomic_compare_exchange_n(&s->data, &d, d + 1, true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	if ((d >> SEM_NWAITERS_SHIFT) != 0)
		fthr_futex_wake(value_word(s), 1, sem_shared(s));
	return 0;
}

/* Take a token if there is one. */
static inline bool sem_take(struct sem *s)
{
	uint64_t d = __atomic_load_n(&s->data, __ATOMIC_RELAXED);

	while ((d & SEM_VALUE_MASK) != 0)
		if (__atomic_compare_exchange_n(&s->data, &d, d - 1, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

static void sem_cancelled(void *arg)
{
	struct sem *s = arg;
	uint64_t d = __atomic_sub_fetch(&s->data, 1ull << SEM_NWAITERS_SHIFT,
					__ATOMIC_RELAXED);

	FTHR_ASSERT((d >> SEM_NWAITERS_SHIFT) != 0xffffffffu); /* no underflow */
	if ((d & SEM_VALUE_MASK) != 0 && (d >> SEM_NWAITERS_SHIFT) != 0)
		fthr_futex_wake(value_word(s), 1, sem_shared(s));
}

/* Registered as a waiter: sleep until a token can be taken (0, token
 * taken and unregistered) or the deadline or a signal handler ends the
 * wait (unregistered, the error). */
static int sem_sleep(struct sem *s, clockid_t clk, const struct timespec *abstime)
{
	uint64_t d = __atomic_fetch_add(&s->data, 1ull << SEM_NWAITERS_SHIFT,
					__ATOMIC_RELAXED);
	int err;

	for (;;) {
		if ((d & SEM_VALUE_MASK) == 0) {
			err = fthr_futex_wait_cancelable(value_word(s), 0, sem_shared(s),
							 clk, abstime, sem_cancelled, s);
			if (err == ETIMEDOUT || err == EINTR) {
				__atomic_fetch_sub(&s->data, 1ull << SEM_NWAITERS_SHIFT,
						   __ATOMIC_RELAXED);
				return err;
			}
			d = __atomic_load_n(&s->data, __ATOMIC_RELAXED);
		} else if (__atomic_compare_exchange_n(
				   &s->data, &d, d - 1 - (1ull << SEM_NWAITERS_SHIFT),
				   true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			return 0;
		}
	}
}

#else
FTHR_HIDDEN int fthr_sem_post(sem_t *sem)
{
	struct sem *s = S(sem);
	unsigned v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);

	do {
		if ((v >> SEM_VALUE_SHIFT) == SEM_VALUE_MAX)
			return fail(EOVERFLOW);
	} while (!__atomic_compare_exchange_n(&s->value, &v, v + (1u << SEM_VALUE_SHIFT), true,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	if (v & SEM_NWAITERS_BIT)
		fthr_futex_wake(value_word(s), 1, sem_shared(s));
	return 0;
}

/* Take a token if there is one. */
static inline bool sem_take(struct sem *s)
{
	unsigned v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);

	while ((v >> SEM_VALUE_SHIFT) != 0)
		if (__atomic_compare_exchange_n(&s->value, &v, v - (1u << SEM_VALUE_SHIFT), true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return true;
	return false;
}

/* Stop being a registered waiter (head comment: finish). */
static void sem_finish(struct sem *s)
{
	unsigned guess = __atomic_load_n(&s->nwaiters, __ATOMIC_RELAXED), left, v;

	if (guess == 1)
		__atomic_fetch_and(&s->value, ~SEM_NWAITERS_BIT, __ATOMIC_ACQUIRE);
	left = __atomic_fetch_sub(&s->nwaiters, 1, __ATOMIC_RELEASE);
	FTHR_ASSERT(left != 0); /* no underflow */
	if (left > 1 && guess == 1) {
		v = __atomic_fetch_or(&s->value, SEM_NWAITERS_BIT, __ATOMIC_RELAXED) >> SEM_VALUE_SHIFT;
		if (v > 0)
			fthr_futex_wake(value_word(s), v > INT_MAX ? INT_MAX : (int)v,
					sem_shared(s));
	}
}

/* Cancelled in the wait: unregister, and pass on the wake-up it may have
 * consumed when tokens and other waiters remain. */
static void sem_cancelled(void *arg)
{
	struct sem *s = arg;

	sem_finish(s);
	if ((__atomic_load_n(&s->value, __ATOMIC_RELAXED) >> SEM_VALUE_SHIFT) != 0 &&
	    __atomic_load_n(&s->nwaiters, __ATOMIC_RELAXED) != 0)
		fthr_futex_wake(value_word(s), 1, sem_shared(s));
}

/* Register as a waiter, sleep until a token can be taken (0) or the
 * deadline or a signal handler ends the wait (the error); unregistered
 * either way. */
static int sem_sleep(struct sem *s, clockid_t clk, const struct timespec *abstime)
{
	unsigned v;
	int err = 0;

	__atomic_fetch_add(&s->nwaiters, 1, __ATOMIC_ACQUIRE);
	v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
	for (;;) {
		while (!(v & SEM_NWAITERS_BIT) &&
		       !__atomic_compare_exchange_n(&s->value, &v, v | SEM_NWAITERS_BIT, true,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
		v |= SEM_NWAITERS_BIT;
		if ((v >> SEM_VALUE_SHIFT) == 0) {
			err = fthr_futex_wait_cancelable(value_word(s), (int)SEM_NWAITERS_BIT,
							 sem_shared(s), clk, abstime,
							 sem_cancelled, s);
			if (err == ETIMEDOUT || err == EINTR)
				break;
			err = 0;
			v = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
		} else if (__atomic_compare_exchange_n(&s->value, &v, v - (1u << SEM_VALUE_SHIFT),
						       true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			break;
		}
	}
	sem_finish(s);
	return err;
}

#endif

/* Cancelled after its spin took a token: the token goes back. */
static void sem_give_back(void *arg)
{
	fthr_sem_post(arg);
}

/* No token at once. A request already pending is acted on before the spin;
 * every token taken here, in the spin or by sem_sleep (also one found on
 * the way to the first futex wait), goes out through the one check of the
 * wait's end. */
static FTHR_NOINLINE int sem_wait_slow(struct sem *s, clockid_t clk,
				       const struct timespec *abstime, bool timed)
{
	int err;

	fthr_testcancel();
	if (!FTHR_WAIT_EVENT(sem_take(s))) {
		if (timed && (err = fthr_abstime_check(abstime)) != 0)
			return fail(err);
		if ((err = sem_sleep(s, clk, abstime)) != 0)
			return fail(err);
	}
	fthr_cancel_before_return(sem_give_back, s);
	return 0;
}

/* Waits are cancellation points even when they need not block: the check
 * comes after the take, so that it also sees a request made before the
 * post of the token taken. */
FTHR_HIDDEN FTHR_INLINED int fthr_sem_wait(sem_t *sem)
{
	if (likely(sem_take(S(sem)))) {
		fthr_cancel_before_return(sem_give_back, S(sem));
		return 0;
	}
	return sem_wait_slow(S(sem), CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN int fthr_sem_trywait(sem_t *sem)
{
	return sem_take(S(sem)) ? 0 : fail(EAGAIN);
}

/* As glibc, a deadline's nanoseconds are checked first, even when a token
 * is there (POSIX allows either). */
FTHR_HIDDEN FTHR_INLINED int fthr_sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
	if (unlikely(fthr_abstime_nsec_bad(abstime)))
		return fail(EINVAL);
	if (sem_take(S(sem))) {
		fthr_cancel_before_return(sem_give_back, S(sem));
		return 0;
	}
	return sem_wait_slow(S(sem), CLOCK_REALTIME, abstime, true);
}

FTHR_HIDDEN FTHR_INLINED int fthr_sem_clockwait(sem_t *sem, clockid_t clk,
				   const struct timespec *abstime)
{
	int r;

	if (!fthr_futex_clock_ok(clk) || fthr_abstime_nsec_bad(abstime))
		return fail(EINVAL);
	if (sem_take(S(sem))) {
		fthr_cancel_before_return(sem_give_back, S(sem));
		TSAN_ACQUIRE(sem);
		return 0;
	}
	r = sem_wait_slow(S(sem), clk, abstime, true);
	if (r == 0)
		TSAN_ACQUIRE(sem);
	return r;
}

FTHR_HIDDEN int fthr_sem_getvalue(sem_t *sem, int *value)
{
#if SEM_64
	*value = (int)(__atomic_load_n(&S(sem)->data, __ATOMIC_RELAXED) & SEM_VALUE_MASK);
#else
	*value = (int)(__atomic_load_n(&S(sem)->value, __ATOMIC_RELAXED) >> SEM_VALUE_SHIFT);
#endif
	return 0;
}

FTHR_EXPORT(sem_post, fthr_sem_post);
FTHR_EXPORT(sem_trywait, fthr_sem_trywait);
FTHR_EXPORT(sem_getvalue, fthr_sem_getvalue);
/* The entry points FTHR_PROFILE/FTHR_CHECK can watch (diag.h). */
FTHR_EXPORT_WATCHED(int, sem_init, fthr_sem_init, (sem_t *s, int pshared, unsigned value),
		    (s, pshared, value))
FTHR_EXPORT_WATCHED(int, sem_destroy, fthr_sem_destroy, (sem_t *s), (s))
FTHR_EXPORT_WATCHED(int, sem_wait, fthr_sem_wait, (sem_t *s), (s))
FTHR_EXPORT_WATCHED(int, sem_timedwait, fthr_sem_timedwait, (sem_t *s, const struct timespec *t),
		    (s, t))
FTHR_EXPORT_WATCHED(int, sem_clockwait, fthr_sem_clockwait,
		    (sem_t *s, clockid_t c, const struct timespec *t), (s, c, t))
