/* lib/mutex.h: the mutex entry points other fthr objects call directly
 * (hidden, no PLT): C11 mtx_*, and the condition variable's release and
 * re-take of the mutex it waits with. */
#ifndef FTHR_MUTEX_H
#define FTHR_MUTEX_H

#include "fthr_impl.h"
#include "wait.h"
#include <errno.h>
#include <time.h>

FTHR_HIDDEN int fthr_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a);
FTHR_HIDDEN int fthr_mutex_destroy(pthread_mutex_t *m);
FTHR_HIDDEN int fthr_mutex_lock(pthread_mutex_t *m);
FTHR_HIDDEN int fthr_mutex_trylock(pthread_mutex_t *m);
FTHR_HIDDEN int fthr_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t);
FTHR_HIDDEN int fthr_mutex_unlock(pthread_mutex_t *m);
FTHR_HIDDEN int fthr_mutexattr_init(pthread_mutexattr_t *a);
FTHR_HIDDEN int fthr_mutexattr_settype(pthread_mutexattr_t *a, int type);
FTHR_HIDDEN int fthr_mutexattr_gettype(const pthread_mutexattr_t *a, int *type);

/* The owner locks its mutex again: EDEADLK (errorcheck), one more level
 * (recursive; EAGAIN at the limit), or, for the other types, EBUSY from a
 * trylock and -1 from a lock (which then blocks on itself, as POSIX says). */
static inline int fthr_mutex_relock(pthread_mutex_t *m, int type, bool trying)
{
	if (type == PTHREAD_MUTEX_ERRORCHECK)
		return trying ? EBUSY : EDEADLK;
	if (type == PTHREAD_MUTEX_RECURSIVE) {
		if (m->__data.__count + 1 == 0)
			return EAGAIN;
		m->__data.__count++;
		return 0;
	}
	return trying ? EBUSY : -1;
}

/* A kind of mutex with a file of its own: robust (thr_mutex_robust.c),
 * priority inheritance, robust or not (thr_mutex_pi.c), priority protect
 * (thr_mutex_pp.c). thr_mutex.c's one dispatch on the kind (kind_ops)
 * hands these every lock, trylock and unlock of such a mutex, and a
 * condition wait's release (unlock with full: every recursion level, and
 * the thread stays in __nusers) and re-take (lock, untimed). lock: abstime,
 * on clock clk, bounds the wait if timed. */
struct fthr_mutex_ops {
	int (*lock)(pthread_mutex_t *m, int kind, clockid_t clk,
		    const struct timespec *abstime, bool timed);
	int (*trylock)(pthread_mutex_t *m, int kind);
	int (*unlock)(pthread_mutex_t *m, int kind, bool full);
};
FTHR_HIDDEN extern const struct fthr_mutex_ops fthr_robust_ops;
FTHR_HIDDEN extern const struct fthr_mutex_ops fthr_pi_ops;
FTHR_HIDDEN extern const struct fthr_mutex_ops fthr_pp_ops;

/* The thread's kernel robust list (thr_mutex_robust.c): its head (NULL if
 * none can be registered), and linking a mutex in and out of it. */
struct fthr_robust_list;
FTHR_HIDDEN struct fthr_robust_list *fthr_robust_head(void);
FTHR_HIDDEN void fthr_robust_enqueue(struct fthr_robust_list *h, pthread_mutex_t *m,
				     bool pi);
FTHR_HIDDEN void fthr_robust_dequeue(pthread_mutex_t *m);
FTHR_HIDDEN void fthr_robust_pending(struct fthr_robust_list *h, pthread_mutex_t *m);

/* The thread's priority from the priority-protect mutexes it holds, set
 * again (after the host's condition wait, thr_cond.c). */
FTHR_HIDDEN void fthr_pp_reapply(void);

/* Condition variables' wake-ups deferred to the caller's release of the
 * mutex it holds (thr_cond.c, Deferred wake-ups): for how many conditions
 * some are pending; the call that holds the conditions of mutex m (NULL:
 * of all), made before the release, and the one that makes their
 * wake-ups, after it. Every release of a mutex of the plain kinds
 * (thr_mutex.c word_release) makes them. */
extern __thread int fthr_cond_deferred
	__attribute__((tls_model("initial-exec"))) FTHR_HIDDEN;
FTHR_HIDDEN void fthr_cond_hold(const pthread_mutex_t *m);
FTHR_HIDDEN void fthr_cond_flush(const pthread_mutex_t *m);

/* The caller holds m, and m is of a plain kind (process-private, not
 * robust, priority or elision), whose releases make the deferred wake-ups. */
FTHR_HIDDEN bool fthr_mutex_defers(const pthread_mutex_t *m);

/* Release m completely for a condition wait. EPERM if a recursive or
 * errorcheck mutex is not the caller's, EINVAL for an unusable mutex.
 * *saved receives what fthr_mutex_cond_lock restores (recursion depth). */
FTHR_HIDDEN int fthr_mutex_cond_unlock(pthread_mutex_t *m, unsigned *saved);

/* Re-take m after a condition wait, as 'how' says. 0, or EOWNERDEAD /
 * ENOTRECOVERABLE for a robust mutex. */
FTHR_HIDDEN int fthr_mutex_cond_lock(pthread_mutex_t *m, unsigned saved,
				     enum fthr_relock how);

#endif
