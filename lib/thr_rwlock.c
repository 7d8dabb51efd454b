/* lib/thr_rwlock.c: read-write locks: the entry points and the state
 * word. Sleeping and waking: thr_rwlock_sleep.c; the reader bias:
 * thr_rwlock_bias.c; what the files share: rwlock.h.
 *
 * Words (overlaid on the 56-byte pthread_rwlock_t, 32 bytes on 32-bit
 * arches: rwlock.h, rwlock32.h; glibc's __cur_writer, __shared and
 * __flags offsets are kept, so the static initializers work):
 *   state    bit 31 WRITER (write-locked), bit 30 WR_WAIT (writers sleep),
 *            bit 29 RD_WAIT (readers sleep), bits 0-28 readers holding
 *   lock     a low-level lock (lll.h) over the sleeping bookkeeping below
 *   rseq     pshared: futex word readers sleep on; wseq, the writers' one
 *   pending  private (in rseq's place): 1 when a hand-over may find
 *            someone new to wake; 0 once one ran (it wakes whom the rules
 *            choose, and another would choose the same), until a sleeper
 *            starts a round of its loop (queued, or after a wake-up)
 *   rwait, wwait   sleeping readers and writers (under lock; a private
 *            lock on a 32-bit arch counts its queue instead)
 *   queue    private: the sleepers, one node each on its own stack (prio,
 *            reader or writer, and 'handed', the futex word it sleeps on)
 *   writer   tid of the write owner; shared: pshared; flags: the kind
 *
 *   rdlock   CAS readers + 1 while not WRITER and -- for the writer-
 *            preferring kinds -- not WR_WAIT, unless the thread already
 *            holds a read lock (its TLS record counts them): a recursive
 *            read never waits behind a writer that waits behind it.
 *   wrlock   CAS to WRITER while no WRITER and no readers.
 *   spin     a contended rdlock/wrlock retries a while first, after the
 *            patience (wait.h) -- unless sleepers are queued
 *            (RD_WAIT/WR_WAIT): then it queues behind them at once, and a
 *            spin stops when one queues. More waiters than the lock serves
 *            then sleep instead of burning the cpu the holder needs.
 *   sleep, unlock: thr_rwlock_sleep.c
 *
 * Process-shared locks are the host library's (host.h) where it has the
 * calls: init with the attribute calls the host's, which sets __shared
 * (this struct's shared) to 1, and every call on a lock with shared set
 * goes to the host's function, so a plain-glibc process can make, read and
 * write the same lock. The rseq/wseq protocol (thr_rwlock_sleep.c) serves
 * only on a host without them.
 */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include "diag.h"
#include "host.h"
#include "lll.h"
#include "self.h"
#include "wait.h"
#include "tsan.h"
#include "rwlock_bias.h"

/* Every read lock: through the reader slots, through state, sleeping. */
static FTHR_NOINLINE int rdlock_full(struct rwlock *l, clockid_t clk,
				     const struct timespec *abstime, bool timed)
{
	int r;

	if ((r = try_read_biased(l)) != EBUSY)
		return r;
	if (likely((r = try_read(l)) != EBUSY)) {
		if (r == 0)
			maybe_bias(l);
		return r;
	}
	return fthr_rw_rdlock_slow(l, clk, abstime, timed);
}

/* ---- process-shared: the host's rwlock (host.h) ---- */

/* Made by the host's init with the process-shared attribute: its __shared
 * (this struct's shared) is 1 (glibc.h, 5). fthr's own process-shared
 * protocol is left for a host without the calls. */
static inline bool host_rw(const struct rwlock *l)
{
	return unlikely(l->shared) && fthr_hs()->ok_rwlock;
}

enum host_rw_op { HR_RD, HR_TRYRD, HR_TIMEDRD, HR_CLOCKRD, HR_WR, HR_TRYWR,
		  HR_TIMEDWR, HR_CLOCKWR, HR_UNLOCK, HR_DESTROY };

static FTHR_COLD int host_rw_call(pthread_rwlock_t *rw, enum host_rw_op op, clockid_t clk,
				  const struct timespec *t)
{
	const struct fthr_host_shared *h = &fthr_host_shared;

	switch (op) {
	case HR_RD: return h->rw_rdlock(rw);
	case HR_TRYRD: return h->rw_tryrdlock(rw);
	case HR_TIMEDRD: return h->rw_timedrdlock(rw, t);
	case HR_CLOCKRD: return h->rw_clockrdlock(rw, clk, t);
	case HR_WR: return h->rw_wrlock(rw);
	case HR_TRYWR: return h->rw_trywrlock(rw);
	case HR_TIMEDWR: return h->rw_timedwrlock(rw, t);
	case HR_CLOCKWR: return h->rw_clockwrlock(rw, clk, t);
	case HR_UNLOCK: return h->rw_unlock(rw);
	default: return h->rw_destroy(rw);
	}
}

/* The common read lock inline (no call, no saved register): nobody holds
 * or waits for l, its bias is not on and the caller holds no biased read;
 * the rest out of line, where a read that finds other readers holding l
 * may turn the bias on (maybe_bias). */
static inline int rdlock(pthread_rwlock_t *rw, clockid_t clk,
			 const struct timespec *abstime, bool timed)
{
	struct rwlock *l = R(rw);
	int s = a_load_relaxed(&l->state);

	if (likely(!(s & (WRITER | WR_WAIT | READERS)) &&
		   !bias_on(a_load_relaxed(&l->bias)) && !fthr_self_rec.rbheld) &&
	    likely(__atomic_compare_exchange_n(&l->state, &s, s + 1, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))) {
		fthr_self_rec.rdlocks++;
		return 0;
	}
	return rdlock_full(l, clk, abstime, timed);
}

static inline int wrlock(pthread_rwlock_t *rw, clockid_t clk,
			 const struct timespec *abstime, bool timed)
{
	struct rwlock *l = R(rw);
	int r;

	bias_stop(l);
	/* (EAGAIN: it found the bias on and waited for the biased readers) */
	if (likely(try_write(l) == 0) &&
	    likely((r = write_acquired(l, true, clk, timed ? abstime : NULL)) != EAGAIN))
		return r;
	return fthr_rw_wrlock_slow(l, clk, abstime, timed);
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_rdlock(pthread_rwlock_t *l)
{
	if (host_rw(R(l)))
		return host_rw_call(l, HR_RD, 0, NULL);
	return rdlock(l, CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	struct rwlock *l = R(rw);
	int r;

	if (host_rw(l))
		return host_rw_call(rw, HR_TRYRD, 0, NULL);
	if ((r = try_read_biased(l)) != EBUSY)
		return r;
	if ((r = try_read(l)) == 0)
		maybe_bias(l);
	return r;
}

/* As glibc, a deadline's nanoseconds are checked before anything else,
 * even when the lock is free (POSIX allows either). */
FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{
	if (unlikely(fthr_abstime_nsec_bad(t)))
		return EINVAL;
	if (host_rw(R(l)))
		return host_rw_call(l, HR_TIMEDRD, 0, t);
	return rdlock(l, CLOCK_REALTIME, t, true);
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t clk,
					const struct timespec *t)
{
	if (!fthr_futex_clock_ok(clk) || fthr_abstime_nsec_bad(t))
		return EINVAL;
	if (host_rw(R(l)))
		return host_rw_call(l, HR_CLOCKRD, clk, t);
	return TSAN_LOCK(l, TSAN_READ_LOCK, rdlock(l, clk, t, true));
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_wrlock(pthread_rwlock_t *l)
{
	if (host_rw(R(l)))
		return host_rw_call(l, HR_WR, 0, NULL);
	return wrlock(l, CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	struct rwlock *l = R(rw);
	int r;

	if (host_rw(l))
		return host_rw_call(rw, HR_TRYWR, 0, NULL);
	/* biased readers: look once (no wait), then one more try */
	for (int i = 0; i < 2; i++) {
		if (try_write(l) != 0)
			return EBUSY;
		r = write_acquired(l, false, CLOCK_REALTIME, NULL);
		if (r != EAGAIN)
			return r ? EBUSY : 0;
	}
	return EBUSY;
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{
	if (unlikely(fthr_abstime_nsec_bad(t)))
		return EINVAL;
	if (host_rw(R(l)))
		return host_rw_call(l, HR_TIMEDWR, 0, t);
	return wrlock(l, CLOCK_REALTIME, t, true);
}

FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t clk,
					const struct timespec *t)
{
	if (!fthr_futex_clock_ok(clk) || fthr_abstime_nsec_bad(t))
		return EINVAL;
	if (host_rw(R(l)))
		return host_rw_call(l, HR_CLOCKWR, clk, t);
	return TSAN_LOCK(l, 0, wrlock(l, clk, t, true));
}

/* An unlock by a thread that holds no read lock, of a lock read-held
 * through state: as glibc, one of the other threads' read holds goes. */
static FTHR_NOINLINE int unlock_others_read(struct rwlock *l, int s)
{
	do {
		if (s & WRITER || !(s & READERS))
			return 0;
	} while (!__atomic_compare_exchange_n(&l->state, &s, s - 1, true,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	wake_if_free(l, s - 1);
	return 0;
}

/* Every unlock: biased holds, the write lock, misuse, wakes. An unlock of
 * a lock the thread does not hold is undefined in POSIX; glibc returns 0
 * (and corrupts its reader count); fthr returns 0 too, leaving an unlocked
 * lock or another thread's write lock alone (FTHR_CHECK reports it). */
static FTHR_NOINLINE int unlock_slow(struct rwlock *l)
{
	int s, n;

	if (fthr_self_rec.rbheld && unlock_biased(l))
		return 0;
	s = a_load_relaxed(&l->state);
	if (s & WRITER) {
		if (l->writer != fthr_tid())
			return 0;
		return write_release(l);
	}
	if ((s & READERS) == 0)
		return 0;
	if (unlikely(fthr_self_rec.rdlocks == 0))
		return unlock_others_read(l, s);
	fthr_self_rec.rdlocks--;
	n = __atomic_sub_fetch(&l->state, 1, __ATOMIC_ACQ_REL); /* (pending) */
	FTHR_ASSERT((n & READERS) != READERS); /* no reader count wrapped */
	wake_if_free(l, n);
	return 0;
}

/* The common unlocks inline (no call, no saved register): the write
 * lock, or a read hold through state, with nobody asleep; the rest out of
 * line. */
FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_unlock(pthread_rwlock_t *rw)
{
	struct rwlock *l = R(rw);
	struct fthr_self *self = &fthr_self_rec;
	int s = a_load_relaxed(&l->state);

	if (host_rw(l))
		return host_rw_call(rw, HR_UNLOCK, 0, NULL);
	if (s == WRITER && l->writer == self->tid && self->tid)
		return write_release(l);
	if (likely(!self->rbheld && self->rdlocks &&
		   !(s & (WRITER | WR_WAIT | RD_WAIT)) && (s & READERS)) &&
	    likely(__atomic_compare_exchange_n(&l->state, &s, s - 1, false,
					       __ATOMIC_RELEASE, __ATOMIC_RELAXED))) {
		self->rdlocks--;
		return 0;
	}
	return unlock_slow(l);
}

/* An init over a lock that reader slots still hold (undefined, but glibc
 * starts afresh: a program that re-inits a lock its threads misused works
 * there) forgets them first, as a destroy does: a slot left holding l
 * would make its thread's later reads of the new lock nest on that slot,
 * unseen by writers (tests/difftest.c found it). Whether to look is
 * decided without reading the object, whose bytes may never have been a
 * lock (memcheck: a branch on uninitialised memory): once any thread has
 * had reader slots, every init looks. */
FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *a)
{
	struct rwlock *l = R(rw);
	const int *attr = a ? (const int *)a : NULL;

	if (unlikely(a_load_relaxed(&fthr_rw_nblocks) != 0))
		fthr_rw_forget_slots(l);
	if (attr && attr[1] == PTHREAD_PROCESS_SHARED && fthr_hs()->ok_rwlock)
		return fthr_hs()->rw_init(rw, a); /* the same attribute layout */
	*rw = (pthread_rwlock_t){ 0 };
	if (attr) {
		l->flags = (unsigned)attr[0];
		l->shared = attr[1] == PTHREAD_PROCESS_SHARED;
	}
	return 0;
}

/* As glibc's, 0 whatever the lock's state: POSIX leaves the destroy of a
 * held lock undefined, glibc does nothing, and a program that destroys a
 * lock whose holder has exited works there (FTHR_CHECK reports it). The
 * lock's words are left alone: as on glibc, a later use works on them. */
FTHR_HIDDEN FTHR_INLINED int fthr_rwlock_destroy(pthread_rwlock_t *rw)
{
	struct rwlock *l = R(rw);

	if (host_rw(l))
		return host_rw_call(rw, HR_DESTROY, 0, NULL);
	/* a slot can hold l only while the bias is not off */
	if (!bias_off(a_load_relaxed(&l->bias)))
		fthr_rw_forget_slots(l);
	return 0;
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

FTHR_EXPORT(pthread_rwlockattr_init, fthr_rwlockattr_init);
FTHR_EXPORT(pthread_rwlockattr_destroy, fthr_rwlockattr_destroy);
FTHR_EXPORT(pthread_rwlockattr_setkind_np, fthr_rwlockattr_setkind_np);
FTHR_EXPORT(pthread_rwlockattr_getkind_np, fthr_rwlockattr_getkind_np);
FTHR_EXPORT(pthread_rwlockattr_setpshared, fthr_rwlockattr_setpshared);
FTHR_EXPORT(pthread_rwlockattr_getpshared, fthr_rwlockattr_getpshared);
/* The entry points FTHR_PROFILE/FTHR_CHECK can watch (diag.h), and the
 * names glibc also exports. */
FTHR_EXPORT_WATCHED(int, pthread_rwlock_init, fthr_rwlock_init,
		    (pthread_rwlock_t *l, const pthread_rwlockattr_t *a), (l, a))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_destroy, fthr_rwlock_destroy, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_rdlock, fthr_rwlock_rdlock, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_tryrdlock, fthr_rwlock_tryrdlock, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_timedrdlock, fthr_rwlock_timedrdlock,
		    (pthread_rwlock_t *l, const struct timespec *t), (l, t))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_clockrdlock, fthr_rwlock_clockrdlock,
		    (pthread_rwlock_t *l, clockid_t c, const struct timespec *t), (l, c, t))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_wrlock, fthr_rwlock_wrlock, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_trywrlock, fthr_rwlock_trywrlock, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_timedwrlock, fthr_rwlock_timedwrlock,
		    (pthread_rwlock_t *l, const struct timespec *t), (l, t))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_clockwrlock, fthr_rwlock_clockwrlock,
		    (pthread_rwlock_t *l, clockid_t c, const struct timespec *t), (l, c, t))
FTHR_EXPORT_WATCHED(int, pthread_rwlock_unlock, fthr_rwlock_unlock, (pthread_rwlock_t *l), (l))
FTHR_EXPORT_ALIAS(__pthread_rwlock_init, pthread_rwlock_init);
FTHR_EXPORT_ALIAS(__pthread_rwlock_destroy, pthread_rwlock_destroy);
FTHR_EXPORT_ALIAS(__pthread_rwlock_rdlock, pthread_rwlock_rdlock);
FTHR_EXPORT_ALIAS(__pthread_rwlock_tryrdlock, pthread_rwlock_tryrdlock);
FTHR_EXPORT_ALIAS(__pthread_rwlock_wrlock, pthread_rwlock_wrlock);
FTHR_EXPORT_ALIAS(__pthread_rwlock_trywrlock, pthread_rwlock_trywrlock);
FTHR_EXPORT_ALIAS(__pthread_rwlock_unlock, pthread_rwlock_unlock);
