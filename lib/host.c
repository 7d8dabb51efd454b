/* lib/host.c: see host.h.
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
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include "futex.h"
#include "host.h"
#include "self.h"

struct fthr_host fthr_host;

/* The versions glibc defines the calls under, newest first. */
static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.17", "GLIBC_2.2.5" };

/* The condition variable's: never GLIBC_2.2.5 on x86_64, whose
 * pthread_cond_* are the old condition variable kept for old binaries. */
static const char *const cond_versions[] = { "GLIBC_2.34", "GLIBC_2.3.2", "GLIBC_2.17" };

static void *resolve_in(const char *name, const char *const *vers, size_t n)
{
	void *p;
	size_t i;

	for (i = 0; i < n; i++)
		if ((p = dlvsym(RTLD_NEXT, name, vers[i])))
			return p;
	return dlsym(RTLD_NEXT, name); /* the default version: the newest */
}

static void *resolve(const char *name)
{
	return resolve_in(name, versions, sizeof(versions) / sizeof(versions[0]));
}

static void *resolve_cond(const char *name)
{
	return resolve_in(name, cond_versions, sizeof(cond_versions) / sizeof(cond_versions[0]));
}

struct fthr_host_shared fthr_host_shared;

void fthr_host_shared_resolve(void)
{
	struct fthr_host_shared *h = &fthr_host_shared;

	if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE))
		return;
	/* (racing first uses store the same values) */
	static const struct {
		const char *name;
		size_t at;
	} calls[] = {
#define CALL(f, name) { name, __builtin_offsetof(struct fthr_host_shared, f) }
		CALL(cond_init, "pthread_cond_init"), CALL(cond_destroy, "pthread_cond_destroy"),
		CALL(cond_signal, "pthread_cond_signal"),
		CALL(cond_broadcast, "pthread_cond_broadcast"),
		CALL(cond_wait, "pthread_cond_wait"), CALL(cond_timedwait, "pthread_cond_timedwait"),
		CALL(cond_clockwait, "pthread_cond_clockwait"),
		CALL(rw_init, "pthread_rwlock_init"), CALL(rw_destroy, "pthread_rwlock_destroy"),
		CALL(rw_rdlock, "pthread_rwlock_rdlock"),
		CALL(rw_tryrdlock, "pthread_rwlock_tryrdlock"),
		CALL(rw_timedrdlock, "pthread_rwlock_timedrdlock"),
		CALL(rw_clockrdlock, "pthread_rwlock_clockrdlock"),
		CALL(rw_wrlock, "pthread_rwlock_wrlock"),
		CALL(rw_trywrlock, "pthread_rwlock_trywrlock"),
		CALL(rw_timedwrlock, "pthread_rwlock_timedwrlock"),
		CALL(rw_clockwrlock, "pthread_rwlock_clockwrlock"),
		CALL(rw_unlock, "pthread_rwlock_unlock"),
		CALL(barrier_init, "pthread_barrier_init"),
		CALL(barrier_destroy, "pthread_barrier_destroy"),
		CALL(barrier_wait, "pthread_barrier_wait"),
#undef CALL
	};
	/* the kinds' first and one-past-last calls in the struct */
	static const size_t cond_end = __builtin_offsetof(struct fthr_host_shared, rw_init),
			    rw_end = __builtin_offsetof(struct fthr_host_shared, barrier_init);
	bool ok[3] = { true, true, true };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int kind = calls[i].at < cond_end ? 0 : calls[i].at < rw_end ? 1 : 2;
		void *p = kind == 0 ? resolve_cond(calls[i].name) : resolve(calls[i].name);

		memcpy((char *)h + calls[i].at, &p, sizeof(p));
		ok[kind] = ok[kind] && p;
	}
	h->ok_cond = ok[0];
	h->ok_rwlock = ok[1];
	h->ok_barrier = ok[2];
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
}

bool fthr_host_resolve(void)
{
	if (!__atomic_load_n(&fthr_host.setspecific, __ATOMIC_ACQUIRE)) {
		fthr_host.key_create = resolve("pthread_key_create");
		fthr_host.cancel = resolve("pthread_cancel");
		fthr_host.getschedparam = resolve("pthread_getschedparam");
		fthr_host.setschedparam = resolve("pthread_setschedparam");
		fthr_host.setschedprio = resolve("pthread_setschedprio");
		__atomic_store_n(&fthr_host.setspecific, resolve("pthread_setspecific"),
				 __ATOMIC_RELEASE);
	}
	return fthr_host.key_create && fthr_host.setspecific && fthr_host.cancel;
}

__attribute__((constructor)) static void fthr_host_init(void)
{
	fthr_host_resolve();
	fthr_host_shared_resolve();
}

/* glibc's SIGCANCEL (32, its first real-time signal, kept for itself)
 * still pending for this thread? */
static bool sigcancel_pending(void)
{
	sigset_t set;

	return sigpending(&set) == 0 && sigismember(&set, 32) == 1;
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
