/* lib/host.h: the host C library's own definitions of calls fthr also
 * defines, for the few places fthr needs the host's version underneath:
 * one host thread-specific key, whose destructor is fthr's per-thread exit
 * hook, and pthread_cancel, which fthr wraps (host.c). Resolved once with
 * dlvsym(RTLD_NEXT, name, version) from the library constructor, before
 * the program runs, so no fast path ever resolves anything (and no malloc
 * can recurse into it). */
#ifndef FTHR_HOST_H
#define FTHR_HOST_H

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

/* fthr_futex_wait as a cancellation point, cancellation staying the host's:
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
};

extern struct fthr_host fthr_host FTHR_HIDDEN;

/* Resolve (idempotent); false if the host lacks a needed call. */
FTHR_HIDDEN bool fthr_host_resolve(void);

#endif
