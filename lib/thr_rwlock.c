/* lib/thr_rwlock.c: read-write locks.
 *
 * Words (overlaid on the 56-byte pthread_rwlock_t; glibc's __cur_writer,
 * __shared and __flags offsets are kept, so the static initializers work):
 *   state    bit 31 WRITER (write-locked), bit 30 WR_WAIT (writers sleep),
 *            bit 29 RD_WAIT (readers sleep), bits 0-28 readers holding
 *   lock     a low-level lock (lll.h) over the sleeping bookkeeping below
 *   rseq     pshared: futex word readers sleep on; wseq, the writers' one
 *   rwait, wwait   sleeping readers and writers (under lock)
 *   queue    private: the sleepers, one node each on its own stack (prio,
 *            reader or writer, and 'handed', the futex word it sleeps on)
 *   writer   tid of the write owner; shared: pshared; flags: the kind
 *
 *   rdlock   CAS readers + 1 while not WRITER and -- for the writer-
 *            preferring kinds -- not WR_WAIT, unless the thread already
 *            holds a read lock (its TLS record counts them): a recursive
 *            read never waits behind a writer that waits behind it.
 *   wrlock   CAS to WRITER while no WRITER and no readers.
 *   spin     a contended rdlock/wrlock retries a while (self.h) first.
 *   sleep    under lock: rwait/wwait += 1, set RD_WAIT/WR_WAIT (private: and
 *            queue the node); then loop { try (an unlock the try misses saw
 *            the bit); pshared: s = rseq/wseq, drop lock, futex_wait(rseq/
 *            wseq, s); private: drop lock, futex_wait(node.handed, 0);
 *            take lock }; count down (clear the bit at 0) and dequeue only
 *            when leaving, so a waking writer keeps readers off meanwhile.
 *   unlock   CAS the hold away; if that left the lock free with a WAIT bit
 *            set, wake under lock.
 *            private: hand over in priority order (SCHED_FIFO/RR priority,
 *            0 for other policies): the first highest-priority writer if
 *            none of the readers is above it (ties go to the writer when
 *            the kind prefers writers or the priority is real-time);
 *            otherwise every reader that outranks the best writer. A
 *            handed reader may read past waiting writers.
 *            pshared: a writer (wseq += 1, wake 1) if one sleeps and the
 *            kind prefers writers or no reader sleeps; otherwise all readers
 *            (rseq += 1, wake all). The kernel wakes in priority order within
 *            each class.
 * A sleeper reads its seq or clears 'handed' under the lock the waker
 * changes them under, so a wake cannot slip between the check and the
 * futex_wait. A sleeper that gives up (timeout) while the lock is free
 * repeats the wake decision, so a wake-up meant for it passes on.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include "lll.h"
#include "self.h"

struct rwlock {
	volatile int state;
	volatile int lock;
	volatile int rseq;
	volatile int wseq;
	int rwait;
	int wwait;
	int writer;	/* offset 24, glibc's __cur_writer */
	int shared;	/* offset 28, glibc's __shared */
	struct waiter *queue;
	char pad[8];
	unsigned flags;	/* offset 48, glibc's __flags */
};
_Static_assert(sizeof(struct rwlock) <= sizeof(pthread_rwlock_t), "rwlock fits");
_Static_assert(__builtin_offsetof(struct rwlock, flags) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__flags), "__flags at 48");
_Static_assert(__builtin_offsetof(struct rwlock, shared) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__shared), "__shared");

/* A sleeping thread (private rwlocks queue these, on the sleepers' stacks). */
struct waiter {
	struct waiter *next;
	int prio;
	bool writer;
	volatile int handed; /* the futex word: 1 once chosen by an unlock */
};

#define WRITER ((int)0x80000000u)
#define WR_WAIT 0x40000000
#define RD_WAIT 0x20000000
#define READERS 0x1fffffff

static inline struct rwlock *R(pthread_rwlock_t *l)
{
	return (struct rwlock *)l;
}

static inline bool prefers_writers(const struct rwlock *l)
{
	return l->flags != PTHREAD_RWLOCK_PREFER_READER_NP;
}

/* One attempt at a read lock; 'handed': an unlock chose this reader. */
static inline int try_read_as(struct rwlock *l, bool handed)
{
	int s = a_load_relaxed(&l->state);

	for (;;) {
		if (s & WRITER)
			return EBUSY;
		if ((s & WR_WAIT) && prefers_writers(l) && !handed &&
		    fthr_self_rec.rdlocks == 0)
			return EBUSY;
		if ((s & READERS) == READERS)
			return EAGAIN;
		if (__atomic_compare_exchange_n(&l->state, &s, s + 1, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			fthr_self_rec.rdlocks++;
			return 0;
		}
	}
}

static inline int try_read(struct rwlock *l)
{
	return try_read_as(l, false);
}

/* One attempt at the write lock. */
static inline int try_write(struct rwlock *l)
{
	int s = a_load_relaxed(&l->state);

	while (!(s & (WRITER | READERS)))
		if (__atomic_compare_exchange_n(&l->state, &s, s | WRITER, true,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			l->writer = fthr_tid();
			return 0;
		}
	return EBUSY;
}

static void hand(struct waiter *w)
{
	w->handed = 1;
	fthr_futex_wake(&w->handed, 1, false);
}

/* Private: priority order, see the head comment. */
static void wake_queued(struct rwlock *l)
{
	struct waiter *w, *bw = NULL;
	int rmax = -1;
	bool tie_to_writer;

	for (w = l->queue; w; w = w->next)
		if (w->writer) {
			if (!bw || w->prio > bw->prio)
				bw = w;
		} else if (w->prio > rmax) {
			rmax = w->prio;
		}
	tie_to_writer = bw && (prefers_writers(l) || bw->prio > 0);
	if (bw && (bw->prio > rmax || (bw->prio == rmax && tie_to_writer))) {
		hand(bw);
		return;
	}
	for (w = l->queue; w; w = w->next)
		if (!w->writer && (!bw || w->prio > bw->prio ||
				   (w->prio == bw->prio && !tie_to_writer)))
			hand(w);
}

/* Under l->lock, with the lock free of holders: wake whom the rules say. */
static void wake_locked(struct rwlock *l)
{
	int s = a_load_relaxed(&l->state);

	if (s & (WRITER | READERS))
		return;
	if (!l->shared) {
		wake_queued(l);
	} else if (l->wwait && (prefers_writers(l) || !l->rwait)) {
		__atomic_fetch_add(&l->wseq, 1, __ATOMIC_RELEASE);
		fthr_futex_wake(&l->wseq, 1, true);
	} else if (l->rwait) {
		__atomic_fetch_add(&l->rseq, 1, __ATOMIC_RELEASE);
		fthr_futex_wake(&l->rseq, INT_MAX, true);
	}
}

/* The caller's real-time priority, 0 for the other policies. */
static int sched_prio(void)
{
	struct sched_param sp;
	int policy;

	if (pthread_getschedparam(pthread_self(), &policy, &sp) != 0)
		return 0;
	return (policy == SCHED_FIFO || policy == SCHED_RR) ? sp.sched_priority : 0;
}

static int rw_sleep_loop(struct rwlock *l, bool writer, clockid_t clk,
			 const struct timespec *abstime, bool timed)
{
	struct waiter self = { .writer = writer };
	volatile int *seqw = writer ? &l->wseq : &l->rseq;
	int *count = writer ? &l->wwait : &l->rwait;
	int bit = writer ? WR_WAIT : RD_WAIT;
	bool shared = l->shared, timed_out = false;
	struct waiter **pp;
	int r, seq;

	if (timed && (r = fthr_abstime_check(abstime)) != 0)
		return r;
	if (!shared)
		self.prio = sched_prio();
	fthr_lll_lock(&l->lock, shared);
	/* Mark first, then look: an unlock the look misses sees the mark and
	 * wakes us (it needs the lock we hold to do so). The mark stays until
	 * we leave, so a writer keeps readers out while it retries. */
	(*count)++;
	__atomic_fetch_or(&l->state, bit, __ATOMIC_SEQ_CST);
	if (!shared) {
		for (pp = &l->queue; *pp; pp = &(*pp)->next)
			;
		*pp = &self;
	}
	while ((r = writer ? try_write(l) : try_read_as(l, self.handed)) == EBUSY &&
	       !timed_out) {
		const struct timespec *dl = timed ? abstime : NULL;

		if (shared) {
			seq = a_load_relaxed(seqw);
			fthr_lll_unlock(&l->lock, shared);
			timed_out = fthr_futex_wait(seqw, seq, true, clk, dl) == ETIMEDOUT;
		} else {
			self.handed = 0;
			fthr_lll_unlock(&l->lock, shared);
			while (!self.handed && !timed_out)
				timed_out = fthr_futex_wait(&self.handed, 0, false, clk,
							    dl) == ETIMEDOUT;
		}
		fthr_lll_lock(&l->lock, shared);
	}
	if (!shared) {
		for (pp = &l->queue; *pp != &self; pp = &(*pp)->next)
			;
		*pp = self.next;
	}
	if (--(*count) == 0)
		__atomic_fetch_and(&l->state, ~bit, __ATOMIC_RELAXED);
	if (r == EBUSY) {
		/* timed out: a wake-up meant for us goes to the next one */
		wake_locked(l);
		r = ETIMEDOUT;
	}
	fthr_lll_unlock(&l->lock, shared);
	return r;
}

static int rdlock(pthread_rwlock_t *rw, clockid_t clk,
		  const struct timespec *abstime, bool timed)
{
	struct rwlock *l = R(rw);
	int r = try_read(l);

	if (likely(r != EBUSY))
		return r;
	if (a_load_relaxed(&l->writer) == fthr_tid())
		return EDEADLK;
	if (FTHR_SPIN_UNTIL((r = try_read(l)) != EBUSY))
		return r;
	return rw_sleep_loop(l, false, clk, abstime, timed);
}

static int wrlock(pthread_rwlock_t *rw, clockid_t clk,
		  const struct timespec *abstime, bool timed)
{
	struct rwlock *l = R(rw);

	if (likely(try_write(l) == 0))
		return 0;
	if (a_load_relaxed(&l->writer) == fthr_tid())
		return EDEADLK;
	if (FTHR_SPIN_UNTIL(try_write(l) == 0))
		return 0;
	return rw_sleep_loop(l, true, clk, abstime, timed);
}

FTHR_HIDDEN int fthr_rwlock_rdlock(pthread_rwlock_t *l)
{
	return rdlock(l, CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN int fthr_rwlock_tryrdlock(pthread_rwlock_t *l)
{
	return try_read(R(l));
}

FTHR_HIDDEN int fthr_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return rdlock(l, CLOCK_REALTIME, t, true);
}

FTHR_HIDDEN int fthr_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
					const struct timespec *t)
{
	if (!fthr_futex_clock_ok(clk))
		return EINVAL;
	return rdlock(l, clk, t, true);
}

FTHR_HIDDEN int fthr_rwlock_wrlock(pthread_rwlock_t *l)
{
	return wrlock(l, CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN int fthr_rwlock_trywrlock(pthread_rwlock_t *l)
{
	return try_write(R(l));
}

FTHR_HIDDEN int fthr_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return wrlock(l, CLOCK_REALTIME, t, true);
}

FTHR_HIDDEN int fthr_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
					const struct timespec *t)
{
	if (!fthr_futex_clock_ok(clk))
		return EINVAL;
	return wrlock(l, clk, t, true);
}

FTHR_HIDDEN int fthr_rwlock_unlock(pthread_rwlock_t *rw)
{
	struct rwlock *l = R(rw);
	int s = a_load_relaxed(&l->state), n;

	if (s & WRITER) {
		if (l->writer != fthr_tid())
			return EPERM;
		l->writer = 0;
		n = __atomic_and_fetch(&l->state, ~WRITER, __ATOMIC_RELEASE);
	} else {
		if ((s & READERS) == 0 || fthr_self_rec.rdlocks == 0)
			return EPERM;
		fthr_self_rec.rdlocks--;
		n = __atomic_sub_fetch(&l->state, 1, __ATOMIC_RELEASE);
	}
	if (unlikely((n & (WR_WAIT | RD_WAIT)) && !(n & (WRITER | READERS)))) {
		fthr_lll_lock(&l->lock, l->shared);
		wake_locked(l);
		fthr_lll_unlock(&l->lock, l->shared);
	}
	return 0;
}

FTHR_HIDDEN int fthr_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *a)
{
	struct rwlock *l = R(rw);
	const int *attr = a ? (const int *)a : NULL;

	*rw = (pthread_rwlock_t){ 0 };
	if (attr) {
		l->flags = (unsigned)attr[0];
		l->shared = attr[1] == PTHREAD_PROCESS_SHARED;
	}
	return 0;
}

FTHR_HIDDEN int fthr_rwlock_destroy(pthread_rwlock_t *rw)
{
	return (a_load_relaxed(&R(rw)->state) & (WRITER | READERS)) ? EBUSY : 0;
}

/* ---- attributes: glibc's { int lockkind; int pshared; } ---- */

FTHR_HIDDEN int fthr_rwlockattr_init(pthread_rwlockattr_t *a)
{
	int *w = (int *)a;

	w[0] = PTHREAD_RWLOCK_DEFAULT_NP;
	w[1] = PTHREAD_PROCESS_PRIVATE;
	return 0;
}

FTHR_HIDDEN int fthr_rwlockattr_destroy(pthread_rwlockattr_t *a)
{
	(void)a;
	return 0;
}

FTHR_HIDDEN int fthr_rwlockattr_setkind_np(pthread_rwlockattr_t *a, int kind)
{
	if (kind != PTHREAD_RWLOCK_PREFER_READER_NP &&
	    kind != PTHREAD_RWLOCK_PREFER_WRITER_NP &&
	    kind != PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
		return EINVAL;
	((int *)a)[0] = kind;
	return 0;
}

FTHR_HIDDEN int fthr_rwlockattr_getkind_np(const pthread_rwlockattr_t *a, int *kind)
{
	*kind = ((const int *)a)[0];
	return 0;
}

FTHR_HIDDEN int fthr_rwlockattr_setpshared(pthread_rwlockattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	((int *)a)[1] = pshared;
	return 0;
}

FTHR_HIDDEN int fthr_rwlockattr_getpshared(const pthread_rwlockattr_t *a, int *pshared)
{
	*pshared = ((const int *)a)[1];
	return 0;
}

FTHR_EXPORT(pthread_rwlock_init, fthr_rwlock_init);
FTHR_EXPORT(pthread_rwlock_destroy, fthr_rwlock_destroy);
FTHR_EXPORT(pthread_rwlock_rdlock, fthr_rwlock_rdlock);
FTHR_EXPORT(pthread_rwlock_tryrdlock, fthr_rwlock_tryrdlock);
FTHR_EXPORT(pthread_rwlock_timedrdlock, fthr_rwlock_timedrdlock);
FTHR_EXPORT(pthread_rwlock_clockrdlock, fthr_rwlock_clockrdlock);
FTHR_EXPORT(pthread_rwlock_wrlock, fthr_rwlock_wrlock);
FTHR_EXPORT(pthread_rwlock_trywrlock, fthr_rwlock_trywrlock);
FTHR_EXPORT(pthread_rwlock_timedwrlock, fthr_rwlock_timedwrlock);
FTHR_EXPORT(pthread_rwlock_clockwrlock, fthr_rwlock_clockwrlock);
FTHR_EXPORT(pthread_rwlock_unlock, fthr_rwlock_unlock);
FTHR_EXPORT(pthread_rwlockattr_init, fthr_rwlockattr_init);
FTHR_EXPORT(pthread_rwlockattr_destroy, fthr_rwlockattr_destroy);
FTHR_EXPORT(pthread_rwlockattr_setkind_np, fthr_rwlockattr_setkind_np);
FTHR_EXPORT(pthread_rwlockattr_getkind_np, fthr_rwlockattr_getkind_np);
FTHR_EXPORT(pthread_rwlockattr_setpshared, fthr_rwlockattr_setpshared);
FTHR_EXPORT(pthread_rwlockattr_getpshared, fthr_rwlockattr_getpshared);
/* glibc's alternate names */
FTHR_EXPORT(__pthread_rwlock_init, fthr_rwlock_init);
FTHR_EXPORT(__pthread_rwlock_destroy, fthr_rwlock_destroy);
FTHR_EXPORT(__pthread_rwlock_rdlock, fthr_rwlock_rdlock);
FTHR_EXPORT(__pthread_rwlock_tryrdlock, fthr_rwlock_tryrdlock);
FTHR_EXPORT(__pthread_rwlock_wrlock, fthr_rwlock_wrlock);
FTHR_EXPORT(__pthread_rwlock_trywrlock, fthr_rwlock_trywrlock);
FTHR_EXPORT(__pthread_rwlock_unlock, fthr_rwlock_unlock);
