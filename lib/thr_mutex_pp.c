/* lib/thr_mutex_pp.c: priority-protect mutexes (PTHREAD_PRIO_PROTECT),
 * glibc's word layout and protocol.
 *
 * Futex protocol of __lock: the ceiling lives in bits 19-31, the lock
 * state in the low bits, 0/1/2 as in lll.h:
 *   ceil|0 unlocked, ceil|1 locked, ceil|2 locked and somebody may sleep.
 *   lock     EINVAL if the caller's base priority is above the ceiling;
 *            raise the thread to the highest ceiling it holds; CAS ceil|0 ->
 *            ceil|1; else loop { state 0: CAS to ceil|2, ours; state 1:
 *            CAS to ceil|2; futex_wait(word, ceil|2) }. If the ceiling
 *            changed meanwhile, drop the raise and start over.
 *   unlock   CAS to ceil|0; old state 2 -> futex_wake(1); lower the thread
 *            to the highest ceiling it still holds, or to its base priority.
 * The thread's held ceilings are counted in its TLS record; the base
 * priority is read when it takes its first one. As glibc, a thread whose
 * policy is not real-time cannot be raised: the lock fails with EINVAL.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include "futex.h"
#include "mutex.h"
#include "self.h"

#define CEIL_SHIFT 19
#define CEIL_MASK ((int)FTHR_MUTEX_CEILING_MASK)
#define STATE_MASK (~CEIL_MASK)

static inline int ceiling_of(int word)
{
	return (int)((unsigned)(word & CEIL_MASK) >> CEIL_SHIFT);
}

/* Apply the highest held ceiling (or the base priority). */
static int pp_apply(struct fthr_self *self)
{
	struct sched_param sp = { .sched_priority = self->pp_base_prio };
	int p;

	for (p = 99; p > 0 && self->pp_held; p--)
		if (self->pp_count[p]) {
			if (p > sp.sched_priority)
				sp.sched_priority = p;
			break;
		}
	return pthread_setschedparam(pthread_self(), self->pp_base_policy, &sp);
}

/* After the host's condition wait (thr_cond.c) released and re-took a
 * priority-protect mutex with its own ceiling bookkeeping: the thread's
 * priority is fthr's again. */
FTHR_HIDDEN void fthr_pp_reapply(void)
{
	if (fthr_self_rec.pp_held)
		pp_apply(&fthr_self_rec);
}

/* Count ceiling c as held (delta 1) or released (-1) and re-apply. */
static int pp_change(int c, int delta)
{
	struct fthr_self *self = &fthr_self_rec;
	int r;

	if (delta > 0 && self->pp_held == 0) {
		struct sched_param sp;

		if (pthread_getschedparam(pthread_self(), &self->pp_base_policy, &sp))
			return EINVAL;
		self->pp_base_prio = sp.sched_priority;
	}
	if (delta > 0) {
		if (self->pp_base_policy != SCHED_FIFO && self->pp_base_policy != SCHED_RR)
			return EINVAL; /* glibc: a non-real-time thread cannot be raised */
		if (self->pp_base_prio > c)
			return EINVAL;
		if (self->pp_count[c] == 255)
			return EAGAIN;
	}
	self->pp_count[c] += delta;
	self->pp_held += delta;
	r = pp_apply(self);
	if (r && delta > 0) { /* undo */
		self->pp_count[c]--;
		self->pp_held--;
	}
	return r;
}

int fthr_pp_lock(pthread_mutex_t *m, int kind, clockid_t clk,
		 const struct timespec *abstime, bool timed)
{
	volatile int *w = &m->__data.__lock;
	int tid = fthr_tid(), type = kind & FTHR_MUTEX_KIND_MASK, r;
	bool shared = kind & FTHR_MUTEX_PSHARED;

	if (a_load_relaxed(&m->__data.__owner) == tid &&
	    (r = fthr_mutex_relock(m, type, false)) >= 0)
		return r;
	for (;;) {
		int old = a_load_relaxed(w), c = ceiling_of(old), cv = old & CEIL_MASK;

		if ((r = pp_change(c, 1)) != 0)
			return r;
		old = cv;
		if (__atomic_compare_exchange_n(w, &old, cv | 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		while ((old & CEIL_MASK) == cv) {
			int state = old & STATE_MASK;

			if (state == 0) { /* free again: take it, marked */
				if (__atomic_compare_exchange_n(w, &old, cv | 2, false,
								__ATOMIC_ACQUIRE,
								__ATOMIC_RELAXED))
					goto took;
				continue;
			}
			if (state == 1 &&
			    !__atomic_compare_exchange_n(w, &old, cv | 2, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				continue;
			r = timed ? fthr_abstime_check(abstime) : 0;
			if (r == 0)
				r = fthr_futex_wait(w, cv | 2, shared, clk,
						    timed ? abstime : NULL);
			if (r == ETIMEDOUT || r == EINVAL) {
				pp_change(c, -1);
				return r;
			}
			old = a_load_relaxed(w);
		}
		pp_change(c, -1); /* the ceiling moved: start over */
	}
took:
	m->__data.__owner = tid;
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

int fthr_pp_trylock(pthread_mutex_t *m, int kind)
{
	volatile int *w = &m->__data.__lock;
	int tid = fthr_tid(), old, c, r;

	if (a_load_relaxed(&m->__data.__owner) == tid)
		/* glibc: an errorcheck priority-protect trylock by the owner: EDEADLK */
		return (kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK
			       ? EDEADLK
			       : fthr_mutex_relock(m, kind & FTHR_MUTEX_KIND_MASK, true);
	old = a_load_relaxed(w);
	c = ceiling_of(old);
	if (old & STATE_MASK)
		return EBUSY;
	if ((r = pp_change(c, 1)) != 0)
		return r;
	if (!__atomic_compare_exchange_n(w, &old, old | 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		pp_change(c, -1);
		return EBUSY;
	}
	m->__data.__owner = tid;
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

/* As glibc, only the recursive and errorcheck types check the owner: a
 * normal or adaptive one is released by whoever unlocks it, held or not
 * (POSIX leaves that undefined), and __nusers counts the unlock; the
 * caller's priority changes only if it was the holder. */
int fthr_pp_unlock(pthread_mutex_t *m, int kind, bool full)
{
	volatile int *w = &m->__data.__lock;
	int type = kind & FTHR_MUTEX_KIND_MASK, old;
	bool mine = a_load_relaxed(&m->__data.__owner) == fthr_tid() &&
		    (a_load_relaxed(w) & STATE_MASK);

	if (!mine && (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK))
		return EPERM;
	if (type == PTHREAD_MUTEX_RECURSIVE && !full && --m->__data.__count != 0)
		return 0;
	m->__data.__owner = 0;
	if (!full) /* a condition wait stays counted (thr_mutex.c) */
		m->__data.__nusers--;
	old = a_load_relaxed(w);
	while (!__atomic_compare_exchange_n(w, &old, old & CEIL_MASK, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	if ((old & STATE_MASK) > 1)
		fthr_futex_wake(w, 1, kind & FTHR_MUTEX_PSHARED);
	return mine ? pp_change(ceiling_of(old), -1) : 0;
}

FTHR_HIDDEN int fthr_mutex_getprioceiling(const pthread_mutex_t *m, int *prio)
{
	if (!(a_load_relaxed(&m->__data.__kind) & FTHR_MUTEX_PRIO_PROTECT))
		return EINVAL;
	*prio = ceiling_of(a_load_relaxed(&m->__data.__lock));
	return 0;
}

/* Change the ceiling: under the mutex (taken without raising the caller
 * unless it holds it already), as POSIX asks. */
FTHR_HIDDEN int fthr_mutex_setprioceiling(pthread_mutex_t *m, int prio, int *old_ceiling)
{
	volatile int *w = &m->__data.__lock;
	int kind = a_load_relaxed(&m->__data.__kind), old, mine;
	bool shared = kind & FTHR_MUTEX_PSHARED;

	if (!(kind & FTHR_MUTEX_PRIO_PROTECT) || prio < sched_get_priority_min(SCHED_FIFO) ||
	    prio > sched_get_priority_max(SCHED_FIFO))
		return EINVAL;
	mine = a_load_relaxed(&m->__data.__owner) == fthr_tid();
	if (!mine) {
		for (;;) {
			old = a_load_relaxed(w) & CEIL_MASK;
			if (__atomic_compare_exchange_n(w, &old, old | 1, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
			if ((old & STATE_MASK) == 0)
				continue; /* freed meanwhile: try again */
			if ((old & STATE_MASK) == 1) {
				int want = (old & CEIL_MASK) | 2;

				if (!__atomic_compare_exchange_n(w, &old, want, false,
								 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
					continue;
				old = want;
			}
			fthr_futex_wait(w, old, shared, CLOCK_MONOTONIC, NULL);
		}
	}
	old = a_load_relaxed(w);
	if (old_ceiling)
		*old_ceiling = ceiling_of(old);
	if (mine) { /* keep the state bits; the hold now counts at the new
		     * ceiling (the unlock releases that one) */
		struct fthr_self *self = &fthr_self_rec;
		int oc = ceiling_of(old);

		if (oc != prio && self->pp_count[prio] == 255)
			return EAGAIN;
		while (!__atomic_compare_exchange_n(w, &old, (prio << CEIL_SHIFT) | (old & STATE_MASK),
						    true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		if (oc != prio) {
			self->pp_count[oc]--;
			self->pp_count[prio]++;
			return pp_apply(self);
		}
		return 0;
	}
	old = __atomic_exchange_n(w, prio << CEIL_SHIFT, __ATOMIC_RELEASE);
	if ((old & STATE_MASK) > 1)
		fthr_futex_wake(w, INT_MAX, shared); /* they re-read the ceiling */
	return 0;
}

FTHR_EXPORT(pthread_mutex_getprioceiling, fthr_mutex_getprioceiling);
FTHR_EXPORT(pthread_mutex_setprioceiling, fthr_mutex_setprioceiling);
