/* lib/thr_mutex_pp.c: priority-protect mutexes (PTHREAD_PRIO_PROTECT),
 * glibc's word layout and protocol.
 *
 * Futex protocol of __lock: the ceiling lives in bits 19-31, the lock
 * state in the low bits, 0/1/2 as in lll.h:
 *   ceil|0 unlocked, ceil|1 locked, ceil|2 locked and somebody may sleep.
 *   lock     EINVAL if the caller's own priority is above the ceiling;
 *            raise the thread to the highest ceiling it holds; CAS ceil|0 ->
 *            ceil|1; else loop { state 0: CAS to ceil|2, ours; state 1:
 *            CAS to ceil|2; futex_wait(word, ceil|2) }. If the ceiling
 *            changed meanwhile, raise for the new one, drop the old one's
 *            raise, and start over.
 *   unlock   CAS to ceil|0; old state 2 -> futex_wake(1); lower the thread
 *            to the highest ceiling it still holds, or to its own priority.
 *
 * Priorities, as glibc's (nptl/tpp.c): a thread has its own scheduling
 * policy and priority, the ones pthread_setschedparam gave it, and runs at
 * the higher of that priority and the highest ceiling it holds. The held
 * ceilings are counted in its TLS record (self.h). The raise and the
 * lowering go to the kernel directly (sched_setscheduler on the thread's
 * tid), so the host library's record of the thread's scheduling keeps the
 * thread's own priority. While the thread holds any ceiling its own policy
 * and priority live in the record too: fthr's pthread_setschedparam,
 * pthread_setschedprio and pthread_getschedparam (at the end of this file)
 * set and report those, never going below the held ceiling in the kernel,
 * and the last unlock hands a change made meanwhile to the host's
 * pthread_setschedparam. With
 * no ceiling held, those three are the host's calls. The record's pp_lock
 * orders a thread's own changes against those calls from other threads, as
 * glibc's descriptor lock does. As glibc, a thread whose policy is not
 * real-time cannot be raised: the lock fails with EINVAL.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include "futex.h"
#include "host.h"
#include "lll.h"
#include "mutex.h"
#include "self.h"

#define CEIL_SHIFT 19
#define CEIL_MASK ((int)FTHR_MUTEX_CEILING_MASK)
#define STATE_MASK (~CEIL_MASK)

static inline int ceiling_of(int word)
{
	return (int)((unsigned)(word & CEIL_MASK) >> CEIL_SHIFT);
}

static inline int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The highest ceiling the record counts as held, 0 if none. */
static int highest(const struct fthr_self *s)
{
	int p;

	for (p = 99; p > 0; p--)
		if (s->pp_count[p])
			return p;
	return 0;
}

/* The kernel's priority for a thread holding ceilings: its own policy, at
 * the higher of its own priority and its highest ceiling (pp_lock held). */
static int pp_raise(const struct fthr_self *s)
{
	struct sched_param sp = { .sched_priority = max_int(s->pp_base_prio, s->pp_max) };

	return sched_setscheduler(s->tid, s->pp_base_policy, &sp) ? errno : 0;
}

/* The host's scheduling calls (resolved by host.c's constructor; the
 * resolve is idempotent and only loads once it has run). */
static int host_getschedparam(pthread_t t, int *policy, struct sched_param *sp)
{
	fthr_host_resolve();
	return fthr_host.getschedparam ? fthr_host.getschedparam(t, policy, sp) : ENOSYS;
}

static int host_setschedparam(pthread_t t, int policy, const struct sched_param *sp)
{
	fthr_host_resolve();
	return fthr_host.setschedparam ? fthr_host.setschedparam(t, policy, sp) : ENOSYS;
}

/* After the host's condition wait (thr_cond.c) released and re-took a
 * priority-protect mutex with its own ceiling bookkeeping: the thread's
 * priority is fthr's again. */
FTHR_HIDDEN void fthr_pp_reapply(void)
{
	struct fthr_self *s = &fthr_self_rec;

	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held)
		pp_raise(s);
	fthr_lll_unlock(&s->pp_lock, false);
}

/* glibc's __pthread_tpp_change_priority: count ceiling next as held and
 * prev as released (-1: none) and set the priority that follows. A lock
 * (check) first fails with EINVAL if the thread's own priority is above
 * next, or its policy is not real-time. */
static int pp_change(int prev, int next, bool check)
{
	struct fthr_self *s = &fthr_self_rec;
	int r = 0, oldmax, before, after;
	bool dropped = false;

	fthr_tid(); /* the record's tid, for pp_raise */
	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held == 0 && next >= 0) { /* the thread's own, from the host */
		struct sched_param sp;

		if ((r = host_getschedparam(pthread_self(), &s->pp_base_policy, &sp)) != 0)
			goto out;
		s->pp_base_prio = sp.sched_priority;
		s->pp_base_moved = false;
	}
	if (next >= 0) {
		if (check && (s->pp_base_prio > next || (s->pp_base_policy != SCHED_FIFO &&
							 s->pp_base_policy != SCHED_RR))) {
			r = EINVAL;
			goto out;
		}
		if (s->pp_count[next] == UCHAR_MAX) {
			r = EAGAIN;
			goto out;
		}
		s->pp_count[next]++;
		s->pp_held++;
	}
	if (prev >= 0 && s->pp_count[prev]) {
		s->pp_count[prev]--;
		s->pp_held--;
		dropped = true;
	}
	oldmax = s->pp_max;
	s->pp_max = highest(s);
	before = max_int(s->pp_base_prio, oldmax);
	after = max_int(s->pp_base_prio, s->pp_max);
	if (s->pp_held == 0 && s->pp_base_moved) {
		/* changed while held: the host records it now */
		struct sched_param sp = { .sched_priority = s->pp_base_prio };

		r = host_setschedparam(pthread_self(), s->pp_base_policy, &sp);
	} else if (after != before) {
		r = pp_raise(s);
	}
	if (r && next >= 0) { /* undo */
		s->pp_count[next]--;
		s->pp_held--;
		if (dropped) {
			s->pp_count[prev]++;
			s->pp_held++;
		}
		s->pp_max = highest(s);
	}
out:
	fthr_lll_unlock(&s->pp_lock, false);
	return r;
}

static int fthr_pp_lock(pthread_mutex_t *m, int kind, clockid_t clk,
		 const struct timespec *abstime, bool timed)
{
	volatile int *w = &m->__data.__lock;
	int tid = fthr_tid(), type = kind & FTHR_MUTEX_KIND_MASK, r, c = -1;
	bool shared = kind & FTHR_MUTEX_PSHARED;

	if (a_load_relaxed(&m->__data.__owner) == tid &&
	    (r = fthr_mutex_relock(m, type, false)) >= 0)
		return r;
	for (;;) {
		int old = a_load_relaxed(w), was = c, cv = old & CEIL_MASK;

		c = ceiling_of(old);
		if (c != was && (r = pp_change(was, c, true)) != 0) {
			if (was >= 0) /* raised for a ceiling since moved */
				pp_change(was, -1, false);
			return r;
		}
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
				pp_change(c, -1, false);
				return r;
			}
			old = a_load_relaxed(w);
		}
		/* the ceiling moved: start over, raised for the new one */
	}
took:
	m->__data.__owner = tid;
	m->__data.__count = 1;
	m->__data.__nusers++;
	return 0;
}

static int fthr_pp_trylock(pthread_mutex_t *m, int kind)
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
	if ((r = pp_change(-1, c, true)) != 0)
		return r;
	if (!__atomic_compare_exchange_n(w, &old, old | 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		pp_change(c, -1, false);
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
static int fthr_pp_unlock(pthread_mutex_t *m, int kind, bool full)
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
	return mine ? pp_change(ceiling_of(old), -1, false) : 0;
}

const struct fthr_mutex_ops fthr_pp_ops = {
	.lock = fthr_pp_lock,
	.trylock = fthr_pp_trylock,
	.unlock = fthr_pp_unlock,
};

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
	if (mine && (kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK)
		return EDEADLK; /* glibc's */
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
	if (mine) { /* keep the state bits; the hold now counts at the new
		     * ceiling, at once (the unlock releases that one) */
		int oc = ceiling_of(old), r;

		if (oc != prio && (r = pp_change(oc, prio, false)) != 0)
			return r;
		if (old_ceiling)
			*old_ceiling = oc;
		while (!__atomic_compare_exchange_n(w, &old, (prio << CEIL_SHIFT) | (old & STATE_MASK),
						    true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		return 0;
	}
	if (old_ceiling)
		*old_ceiling = ceiling_of(old);
	old = __atomic_exchange_n(w, prio << CEIL_SHIFT, __ATOMIC_RELEASE);
	if ((old & STATE_MASK) > 1)
		fthr_futex_wake(w, INT_MAX, shared); /* they re-read the ceiling */
	return 0;
}

FTHR_EXPORT(pthread_mutex_getprioceiling, fthr_mutex_getprioceiling);
FTHR_EXPORT(pthread_mutex_setprioceiling, fthr_mutex_setprioceiling);

/* The scheduling calls, glibc's behaviour with priority-protect mutexes
 * held (nptl/pthread_setschedparam.c, pthread_setschedprio.c): t's own
 * policy and priority change, the kernel's priority does not go below the
 * highest ceiling t holds, and pthread_getschedparam reports t's own. The
 * record of t lies at the caller's offset from t's descriptor (self.h).
 * With no ceiling held, each is the host's call (under t's pp_lock, so
 * that t does not take its first ceiling meanwhile). */
FTHR_HIDDEN int fthr_setschedparam(pthread_t t, int policy, const struct sched_param *param)
{
	struct fthr_self *s = fthr_self_of(t);
	int r;

	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held) {
		struct sched_param sp = { .sched_priority =
						  max_int(param->sched_priority, s->pp_max) };

		r = sched_setscheduler(s->tid, policy, &sp) ? errno : 0;
		if (r == 0) {
			s->pp_base_policy = policy;
			s->pp_base_prio = param->sched_priority;
			s->pp_base_moved = true;
		}
	} else {
		r = host_setschedparam(t, policy, param);
	}
	fthr_lll_unlock(&s->pp_lock, false);
	return r;
}

FTHR_HIDDEN int fthr_setschedprio(pthread_t t, int prio)
{
	struct fthr_self *s = fthr_self_of(t);
	int r;

	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held) {
		struct sched_param sp = { .sched_priority = max_int(prio, s->pp_max) };

		r = sched_setparam(s->tid, &sp) ? errno : 0;
		if (r == 0) {
			s->pp_base_prio = prio;
			s->pp_base_moved = true;
		}
	} else {
		fthr_host_resolve();
		r = fthr_host.setschedprio ? fthr_host.setschedprio(t, prio) : ENOSYS;
	}
	fthr_lll_unlock(&s->pp_lock, false);
	return r;
}

FTHR_HIDDEN int fthr_getschedparam(pthread_t t, int *policy, struct sched_param *param)
{
	struct fthr_self *s = fthr_self_of(t);
	int r = 0;

	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held) {
		*policy = s->pp_base_policy;
		param->sched_priority = s->pp_base_prio;
	} else {
		r = host_getschedparam(t, policy, param);
	}
	fthr_lll_unlock(&s->pp_lock, false);
	return r;
}

int fthr_sched_prio(void)
{
	struct fthr_self *s = &fthr_self_rec;
	struct sched_param sp = { .sched_priority = 0 };
	int policy = SCHED_OTHER;

	fthr_lll_lock(&s->pp_lock, false);
	if (s->pp_held) {
		policy = s->pp_base_policy;
		sp.sched_priority = max_int(s->pp_base_prio, s->pp_max);
	} else if (host_getschedparam(pthread_self(), &policy, &sp) != 0) {
		policy = SCHED_OTHER;
	}
	fthr_lll_unlock(&s->pp_lock, false);
	return (policy == SCHED_FIFO || policy == SCHED_RR) ? sp.sched_priority : 0;
}

FTHR_EXPORT(pthread_setschedparam, fthr_setschedparam);
FTHR_EXPORT(pthread_setschedprio, fthr_setschedprio);
FTHR_EXPORT(pthread_getschedparam, fthr_getschedparam);
