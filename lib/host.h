/* lib/host.h: the host C library's own definitions of calls fthr also
 * defines, for the few places fthr needs the host's version underneath:
 * one host thread-specific key, whose destructor is fthr's per-thread exit
 * hook, pthread_cancel, which fthr wraps (cancel.c), and the scheduling
 * calls fthr wraps for priority-protect mutexes (thr_mutex_pp.c). Resolved once with
 * dlvsym(RTLD_NEXT, name, version) from the library constructor, before
 * the program runs, so no fast path ever resolves anything (and no malloc
 * can recurse into it). */
#ifndef FTHR_HOST_H
#define FTHR_HOST_H

#include <sched.h>
#include <time.h>
#include "fthr_impl.h"
#include "self.h"

/* libc's old-style cleanup registration (exported by glibc, declared in no
 * header): the handlers it registers run when the thread is cancelled and
 * when longjmp leaves their frame. */
extern void _pthread_cleanup_push(struct _pthread_cleanup_buffer *buf,
				  void (*routine)(void *), void *arg);
extern void _pthread_cleanup_pop(struct _pthread_cleanup_buffer *buf,
				 int execute);

/* Cancellation (cancel.c).
 *
 * fthr_futex_wait as a cancellation point, cancellation staying the host's:
 * the cancel type is asynchronous only around the wait, and cleanup(arg)
 * runs if the thread is cancelled there (before the caller's own cleanup
 * handlers). */
FTHR_HIDDEN int fthr_futex_wait_cancelable(volatile int *addr, int expect,
					   bool shared, clockid_t clk,
					   const struct timespec *abstime,
					   void (*cleanup)(void *), void *arg);

/* Every successful return of a cancelable wait passes here, after it took
 * what it waited for (a token, a wake-up) and whichever way it got it: at
 * once, in its spin, after a futex wait, or on its way to one. A
 * cancellation request made before that token or wake-up was given (the
 * waker's pthread_cancel returned first) or pending at entry is acted on
 * here, cleanup(arg) first, passing on what the wait took. The fence
 * orders the load of cancel_req after the read of the word that saw the
 * token or wake-up (the waker's release), so such a request is seen. */
FTHR_HIDDEN void fthr_cancel_pending(void (*cleanup)(void *), void *arg);

static inline void fthr_cancel_before_return(void (*cleanup)(void *), void *arg)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (unlikely(__atomic_load_n(&fthr_self_rec.cancel_req, __ATOMIC_RELAXED)))
		fthr_cancel_pending(cleanup, arg);
}

/* pthread_testcancel for a cancellation point that need not wait: every
 * request goes through fthr's pthread_cancel, which marks the target's
 * cancel_req before it calls the host's, so without the mark there is
 * nothing to act on, and the call out of the library is saved. */
static inline void fthr_testcancel(void)
{
	if (unlikely(__atomic_load_n(&fthr_self_rec.cancel_req, __ATOMIC_RELAXED)))
		pthread_testcancel();
}

struct fthr_host {
	int (*key_create)(pthread_key_t *, void (*)(void *));
	int (*setspecific)(pthread_key_t, const void *);
	int (*cancel)(pthread_t);
	/* wrapped for priority-protect mutexes (thr_mutex_pp.c); not needed
	 * by fthr_host_resolve's answer */
	int (*getschedparam)(pthread_t, int *, struct sched_param *);
	int (*setschedparam)(pthread_t, int, const struct sched_param *);
	int (*setschedprio)(pthread_t, int);
};

extern struct fthr_host fthr_host FTHR_HIDDEN;

/* The calling thread's real-time priority as the kernel runs it (raised
 * to the priority-protect ceilings it holds), 0 for the other policies
 * (thr_mutex_pp.c). */
FTHR_HIDDEN int fthr_sched_prio(void);

/* Resolve (idempotent); false if the host lacks a needed call. */
FTHR_HIDDEN bool fthr_host_resolve(void);

/* Process-shared condition variables, rwlocks and barriers are the host
 * library's own objects, in its layout and on its futex protocol, so that
 * they work between fthr and plain-glibc processes whichever side made,
 * waits on or wakes them (fthr(7): Sharing objects with plain-glibc processes). The host's
 * condition wait releases and re-takes the caller's mutex with its own
 * internal code, on the byte layout and futex protocol fthr's mutexes
 * share with it (the robust list head too: thr_mutex_robust.c). Each kind
 * is handed over only if all its calls resolved (ok_*); otherwise, on a
 * host without them, fthr's own process-shared protocol serves, between
 * fthr processes. The calls are made from out-of-line functions of each
 * object's file, never from a fast path. */
struct fthr_host_shared {
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*rw_init)(pthread_rwlock_t *, const pthread_rwlockattr_t *);
	int (*rw_destroy)(pthread_rwlock_t *);
	int (*rw_rdlock)(pthread_rwlock_t *);
	int (*rw_tryrdlock)(pthread_rwlock_t *);
	int (*rw_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rw_wrlock)(pthread_rwlock_t *);
	int (*rw_trywrlock)(pthread_rwlock_t *);
	int (*rw_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
	int (*rw_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
	int (*rw_unlock)(pthread_rwlock_t *);
	int (*barrier_init)(pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
	int (*barrier_destroy)(pthread_barrier_t *);
	int (*barrier_wait)(pthread_barrier_t *);
	bool ok_cond, ok_rwlock, ok_barrier;
	bool done; /* resolved (read with acquire) */
};

extern struct fthr_host_shared fthr_host_shared FTHR_HIDDEN;

/* The host's calls, resolved on first use (the library constructor does it
 * too, before the program runs). */
FTHR_HIDDEN void fthr_host_shared_resolve(void);

static inline const struct fthr_host_shared *fthr_hs(void)
{
	if (unlikely(!__atomic_load_n(&fthr_host_shared.done, __ATOMIC_ACQUIRE)))
		fthr_host_shared_resolve();
	return &fthr_host_shared;
}

#endif
