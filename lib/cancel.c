/* lib/cancel.c: pthread_cancel and the cancelable futex wait (host.h).
 *
 * Cancellation stays the host's, with one hole closed. glibc acts on a
 * cancellation request at once only while the target's cancel type is
 * asynchronous, by sending it SIGCANCEL; fthr's cancelable waits are
 * asynchronous only around the futex wait. A request made inside that
 * window whose signal lands after it (the wait has returned, the type is
 * deferred again: glibc's handler then only marks the thread cancelled and
 * overwrites its result) would act late: after the wait's cleanup region,
 * even after the thread returned, making pthread_join report
 * PTHREAD_CANCELED for a thread that consumed a wake-up and returned. So
 * pthread_cancel is wrapped: it sets the target's cancel_req, then calls
 * the host's, counted in the target's cancel_busy while it runs. A waiter,
 * back to deferred, reads cancel_req; set, a request is on its way (the
 * host call may not even have run yet) and the waiter acts on it while
 * still inside the cleanup region (cancel_land: it waits for the host calls
 * in flight and for their SIGCANCEL to be delivered). Not set, the host
 * call has not seen the asynchronous type (both sides fence between their
 * store and the host's cancelhandling word), so it sends no signal.
 * Every successful return of a cancelable wait, however it got its token
 * or wake-up (at once, in the spin, never asynchronous, on the way to a
 * futex wait, or after one), checks cancel_req the same way once more
 * (fthr_cancel_before_return, host.h), so a request made before the
 * wake-up or pending at entry is acted on before the wait returns, as
 * POSIX requires of a cancellation point, and the caller's cleanup passes
 * on what the wait took.
 * cancel_land returns in a thread already exiting, say in a cleanup
 * handler of a cancelled thread that waits on a condition.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include "futex.h"
#include "host.h"
#include "self.h"

/* glibc's SIGCANCEL (glibc.h, 2) still pending for this thread? */
static bool sigcancel_pending(void)
{
	sigset_t set;

	return sigpending(&set) == 0 && sigismember(&set, FTHR_GLIBC_SIGCANCEL) == 1;
}

/* A cancellation request is on its way to this thread: if cancellation is
 * enabled, act on it once the host has marked it: the host calls in flight
 * have returned, and no SIGCANCEL they sent is still pending (each system
 * call delivers one that is not blocked on its way out; the handler marks
 * the request). Bounded: a thread already exiting (its testcancel does
 * nothing, the state still reads enabled) returns. */
static FTHR_COLD void cancel_land(void)
{
	int state;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	pthread_setcancelstate(state, NULL);
	if (state != PTHREAD_CANCEL_ENABLE)
		return;
	while (__atomic_load_n(&fthr_self_rec.cancel_busy, __ATOMIC_ACQUIRE))
		fthr_yield();
	for (;;) {
		pthread_testcancel();
		if (!sigcancel_pending())
			break;
		fthr_yield();
	}
	pthread_testcancel();
}

FTHR_HIDDEN FTHR_COLD void fthr_cancel_pending(void (*cleanup)(void *), void *arg)
{
	struct _pthread_cleanup_buffer buf;

	_pthread_cleanup_push(&buf, cleanup, arg);
	cancel_land();
	_pthread_cleanup_pop(&buf, 0);
}

int fthr_futex_wait_cancelable(volatile int *addr, int expect, bool shared,
			       clockid_t clk, const struct timespec *abstime,
			       void (*cleanup)(void *), void *arg)
{
	struct _pthread_cleanup_buffer buf;
	int r, oldtype;

	_pthread_cleanup_push(&buf, cleanup, arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	r = fthr_futex_wait(addr, expect, shared, clk, abstime);
	pthread_setcanceltype(oldtype, NULL);
	/* A request that came as the wait ended is acted on here, still inside
	 * the cleanup region, so the caller's cleanup passes on what the wait
	 * may have consumed; one whose SIGCANCEL is still on the way is waited
	 * for (see the top of the file). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&fthr_self_rec.cancel_req, __ATOMIC_RELAXED)))
		cancel_land(); /* no request without the mark: nothing to test */
	_pthread_cleanup_pop(&buf, 0);
	return r;
}

FTHR_HIDDEN int fthr_cancel(pthread_t t)
{
	struct fthr_self *rec = fthr_self_of(t);
	int r, state;

	if (!__atomic_load_n(&fthr_host.setspecific, __ATOMIC_ACQUIRE) &&
	    !fthr_host_resolve())
		return ENOSYS;
	if (rec == &fthr_self_rec) { /* may act at once: nothing in flight */
		__atomic_store_n(&rec->cancel_req, 1, __ATOMIC_SEQ_CST);
		return fthr_host.cancel(t);
	}
	/* not cancelled itself with the target's count raised */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	__atomic_fetch_add(&rec->cancel_busy, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&rec->cancel_req, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	r = fthr_host.cancel(t);
	__atomic_fetch_sub(&rec->cancel_busy, 1, __ATOMIC_RELEASE);
	pthread_setcancelstate(state, NULL);
	return r;
}
FTHR_EXPORT(pthread_cancel, fthr_cancel);
