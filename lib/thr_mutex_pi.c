/* lib/thr_mutex_pi.c: priority-inheritance mutexes (PTHREAD_PRIO_INHERIT),
 * robust or not, on the kernel's PI futexes with glibc's protocol, so a PI
 * mutex in shared memory works between fthr and plain-glibc processes.
 *
 * Futex protocol of __lock (the kernel owns the transitions under waiters):
 *   0                               unlocked
 *   tid [| WAITERS] [| OWNER_DIED]  held by tid
 *   lock     CAS 0->tid (uncontended: no syscall). Otherwise our own tid:
 *            EDEADLK (errorcheck) or count + 1 (recursive); else
 *            FUTEX_LOCK_PI: the kernel queues us by priority, lends our
 *            priority to the owner (and to whatever it waits for), and
 *            returns with the word ours.
 *   unlock   CAS tid->0 when nobody waits; else FUTEX_UNLOCK_PI: the kernel
 *            hands the word to its top waiter and wakes it.
 *   robust   as thr_mutex_robust.c, list entries tagged with bit 0; the
 *            word of a dead owner gets OWNER_DIED and the next lock (CAS or
 *            kernel) returns EOWNERDEAD after clearing it. Robust PI words
 *            always use the shared futex key, as glibc.
 * A normal (non-errorcheck) PI mutex locked again by its owner deadlocks,
 * as POSIX says; the kernel reports EDEADLK, so fthr sleeps until the
 * deadline (timed) or forever.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <unistd.h>
#include "futex.h"
#include "mutex.h"
#include "self.h"

#define INCONSISTENT INT_MAX
#define NOTRECOVERABLE (INT_MAX - 1)

static inline bool pi_shared(int kind)
{
	return kind & (FTHR_MUTEX_PSHARED | FTHR_MUTEX_ROBUST);
}

/* Release the word we hold. */
static void pi_release(volatile int *w, int tid, bool shared)
{
	int old = tid;

	if (!__atomic_compare_exchange_n(w, &old, 0, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		fthr_futex_unlock_pi(w, shared);
}

/* The word is ours (possibly marked OWNER_DIED): finish the lock. */
static int pi_took(pthread_mutex_t *m, int kind, struct fthr_robust_list *h, int tid)
{
	volatile int *w = &m->__data.__lock;

	if (h && (a_load_relaxed(w) & FUTEX_OWNER_DIED)) {
		__atomic_fetch_and(w, ~FUTEX_OWNER_DIED, __ATOMIC_ACQUIRE);
		m->__data.__count = 1;
		m->__data.__owner = INCONSISTENT;
		fthr_robust_enqueue(h, m, true);
		fthr_robust_pending(h, NULL);
		return EOWNERDEAD;
	}
	if (h && unlikely(m->__data.__owner == NOTRECOVERABLE)) {
		m->__data.__count = 0;
		pi_release(w, tid, pi_shared(kind));
		fthr_robust_pending(h, NULL);
		return ENOTRECOVERABLE;
	}
	m->__data.__count = 1;
	if (h) {
		fthr_robust_enqueue(h, m, true);
		fthr_robust_pending(h, NULL);
	}
	m->__data.__owner = tid;
	m->__data.__nusers++;
	return 0;
}

/* The start of lock and trylock: announce a robust mutex on the list,
 * then one CAS 0->tid. Returns 0 (the word is ours) or EBUSY with the word
 * seen in *old; *h is the list or NULL. */
static int pi_enter(pthread_mutex_t *m, int kind, int tid,
		    struct fthr_robust_list **h, int *old)
{
	*h = NULL;
	*old = 0;
	if (kind & FTHR_MUTEX_ROBUST) {
		*h = fthr_robust_head();
		fthr_robust_pending(*h, m);
	}
	return __atomic_compare_exchange_n(&m->__data.__lock, old, tid, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
		       ? 0 : EBUSY;
}

static int fthr_pi_lock(pthread_mutex_t *m, int kind, clockid_t clk,
		 const struct timespec *abstime, bool timed)
{
	volatile int *w = &m->__data.__lock;
	struct fthr_robust_list *h;
	int tid = fthr_tid(), old, r;

	if ((r = pi_enter(m, kind, tid, &h, &old)) != EBUSY)
		return r ? r : pi_took(m, kind, h, tid);
	if ((old & FUTEX_TID_MASK) == tid) {
		if (h)
			fthr_robust_pending(h, NULL);
		if ((r = fthr_mutex_relock(m, kind & FTHR_MUTEX_KIND_MASK, false)) >= 0)
			return r;
	}
	/* a negative tv_sec: EINVAL, the kernel's answer to such a deadline,
	 * which glibc passes on (its other mutexes say ETIMEDOUT) */
	if (timed && (r = fthr_abstime_check(abstime)) != 0) {
		if (r == ETIMEDOUT)
			r = EINVAL;
		goto fail;
	}
	r = fthr_futex_lock_pi(w, pi_shared(kind), clk, timed ? abstime : NULL);
	/* EDEADLK: a normal mutex locked by its owner; ESRCH: the owner of a
	 * mutex that is not robust died holding it. glibc waits out the
	 * deadline (or for ever) in both. */
	if ((r == EDEADLK && (kind & FTHR_MUTEX_KIND_MASK) != PTHREAD_MUTEX_ERRORCHECK) ||
	    (r == ESRCH && !(kind & FTHR_MUTEX_ROBUST)))
		r = fthr_sleep_until(clk, timed ? abstime : NULL);
	if (r == 0)
		return pi_took(m, kind, h, tid);
fail:
	if (h)
		fthr_robust_pending(h, NULL);
	return r;
}

static int fthr_pi_trylock(pthread_mutex_t *m, int kind)
{
	volatile int *w = &m->__data.__lock;
	struct fthr_robust_list *h;
	int tid = fthr_tid(), old, r;

	if ((r = pi_enter(m, kind, tid, &h, &old)) != EBUSY)
		return r ? r : pi_took(m, kind, h, tid);
	if ((old & FUTEX_TID_MASK) == tid) {
		if (h)
			fthr_robust_pending(h, NULL);
		/* glibc: an errorcheck PI trylock by the owner: EDEADLK */
		return (kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK
			       ? EDEADLK
			       : fthr_mutex_relock(m, kind & FTHR_MUTEX_KIND_MASK, true);
	}
	/* a dead owner's word: the kernel takes it over for us */
	if (h && (old & FUTEX_OWNER_DIED) &&
	    fthr_futex_trylock_pi(w, true) == 0)
		return pi_took(m, kind, h, tid);
	if (h)
		fthr_robust_pending(h, NULL);
	return EBUSY;
}

static int fthr_pi_unlock(pthread_mutex_t *m, int kind, bool full)
{
	volatile int *w = &m->__data.__lock;
	int tid = fthr_tid(), owner = 0, type = kind & FTHR_MUTEX_KIND_MASK;
	struct fthr_robust_list *h = NULL;

	if ((a_load_relaxed(w) & FUTEX_TID_MASK) != tid)
		return EPERM;
	if ((kind & FTHR_MUTEX_ROBUST) && m->__data.__owner == INCONSISTENT) {
		if (type == PTHREAD_MUTEX_RECURSIVE && !full && --m->__data.__count != 0)
			return ENOTRECOVERABLE;
		owner = NOTRECOVERABLE;
	} else if (type == PTHREAD_MUTEX_RECURSIVE && !full && --m->__data.__count != 0) {
		return 0;
	}
	if (kind & FTHR_MUTEX_ROBUST) {
		h = fthr_robust_head();
		fthr_robust_pending(h, m);
		fthr_robust_dequeue(m);
	}
	m->__data.__owner = owner;
	if (!full) /* a condition wait stays counted (thr_mutex.c) */
		m->__data.__nusers--;
	pi_release(w, tid, pi_shared(kind));
	if (h)
		fthr_robust_pending(h, NULL);
	return 0;
}

const struct fthr_mutex_ops fthr_pi_ops = {
	.lock = fthr_pi_lock,
	.trylock = fthr_pi_trylock,
	.unlock = fthr_pi_unlock,
};
