/* lib/thr_mutex.c: pthread mutexes on one futex word, in glibc's byte layout
 * and with glibc's futex protocol, so that a process-shared mutex works
 * between an fthr process and a plain-glibc one.
 *
 * Futex protocol of __data.__lock (the low-level lock of lll.h):
 *   0  unlocked
 *   1  locked, nobody sleeps on the word
 *   2  locked, somebody may sleep on the word
 *
 *   lock     CAS 0->1 (the uncontended path, nothing else). Otherwise, for an
 *            adaptive mutex, a bounded number of spins (exponential backoff)
 *            retrying CAS 0->1 when the word reads 0, for the others a spin
 *            on reads while the word is 1 (lll.h); then, if the word
 *            already reads 2, futex_wait(word, 2) first; then loop { if
 *            SWAP(2) returned 0 we own it, in state 2; futex_wait(word, 2) }.
 *   cond     condition variables release the mutex and re-take it the
 *            same way (a re-take spins without the patience: the
 *            signaller is about to let go), or, woken in a herd, with
 *            SWAP(2) only: if that returned non-zero, sleep as above.
 *   unlock   SWAP(0); if the old value was 2, futex_wake(word, 1), or, on
 *            a mutex with starving sleepers, a hand-off (lll.h: the word
 *            goes 0->3, and a starving sleeper takes it).
 *   plain    in a process with a single thread, a private mutex's word is
 *            read and written without atomic read-modify-writes (the same
 *            transitions; nobody else can see them).
 *   wakes    every transition 2->0 is followed by one wake. The woken thread
 *            re-takes the word with SWAP(2), keeping the "maybe sleepers"
 *            mark, so its own unlock wakes the next sleeper. A thread only
 *            sleeps while the word is 2 (the kernel compares atomically), so
 *            no wake-up is lost.
 *
 * Fields beside the word, written only by the owner while it holds the word:
 *   __owner   kernel tid of the owner (every type, as glibc), 0 when free
 *   __count   recursion depth of a recursive mutex
 *   __nusers  glibc's count, which its pthread_mutex_destroy reads: holders
 *             (process-shared mutexes only: fthr's destroy reads the word
 *             too) plus threads in a condition wait with the mutex, less
 *             unlocks of an unlocked normal or adaptive mutex
 *   __spins   adaptive mutexes: running estimate of the spins that pay off;
 *             process-private normal, recursive and errorcheck ones: the
 *             int there (on x86 __spins and __elision, on 32-bit layouts
 *             the union with __list, which only robust mutexes use) is
 *             the fair word of lll.h, written by waiters and unlockers
 *             (fair_word below)
 *   __kind    type and flag bits, glibc's values (see fthr_impl.h)
 *
 * Robust mutexes keep the tid in the word instead (thr_mutex_robust.c), and
 * so do priority-inheritance ones (thr_mutex_pi.c); priority-protect ones
 * keep their ceiling in the word's high bits (thr_mutex_pp.c).
 */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/single_threaded.h>
#include "diag.h"
#include "lll.h"
#include "mutex.h"
#include "self.h"
#include "tsan.h"

/* Kinds with a file of their own. */
#define SPECIAL_KIND_BITS                                                      \
	(FTHR_MUTEX_ROBUST | FTHR_MUTEX_PRIO_INHERIT | FTHR_MUTEX_PRIO_PROTECT)
#define KNOWN_KIND_BITS                                                        \
	(FTHR_MUTEX_KIND_MASK | SPECIAL_KIND_BITS | FTHR_MUTEX_PSHARED |       \
	 FTHR_MUTEX_ELISION | FTHR_MUTEX_NO_ELISION | (int)FTHR_MUTEX_CEILING_MASK)

static inline volatile int *lockword(pthread_mutex_t *m)
{
	return &m->__data.__lock;
}

/* The int at __spins holds a fair word on every layout. */
_Static_assert(offsetof(pthread_mutex_t, __data.__spins) % sizeof(int) == 0 &&
		       offsetof(pthread_mutex_t, __data.__spins) + sizeof(int) <=
			       sizeof(pthread_mutex_t),
	       "an int at __spins");

/* The fair word (lll.h) of a mutex whose sleepers may be handed the lock:
 * a process-private one of type normal, recursive or errorcheck and no
 * other bit (not adaptive: __spins is its estimate, and an adaptive
 * mutex asks for glibc's barging); NULL for the others, and where the
 * futex layer has no bitsets. */
static inline volatile int *fair_word(pthread_mutex_t *m, int kind)
{
	if (!fthr_futex_has_bits || (kind & ~FTHR_MUTEX_KIND_MASK) ||
	    kind == PTHREAD_MUTEX_ADAPTIVE_NP)
		return NULL;
	return (volatile int *)(void *)&m->__data.__spins;
}

static inline int mutex_kind(const pthread_mutex_t *m)
{
	return a_load_relaxed(&m->__data.__kind);
}

static inline int mutex_owner(const pthread_mutex_t *m)
{
	return a_load_relaxed(&m->__data.__owner);
}

/* The word without atomics: a process with one thread needs no atomic
 * read-modify-write on a process-private mutex, nobody else can touch it
 * (glibc does the same). The host clears __libc_single_threaded before a
 * second thread starts, and pthread_create orders what was written plainly
 * before it. Process-shared mutexes always use atomics. */
static inline bool plain_ok(int kind)
{
	return !(kind & FTHR_MUTEX_PSHARED) && __libc_single_threaded;
}

/* CAS 0->1 on the word (plainly when plain_ok). */
static inline bool word_trylock(pthread_mutex_t *m, int kind)
{
	volatile int *w = lockword(m);

	if (plain_ok(kind)) {
		if (*w != 0)
			return false;
		*w = 1;
		return true;
	}
	return fthr_lll_trylock(w);
}

/* Bookkeeping once the word is ours. __nusers is glibc's count of holders,
 * which only pthread_mutex_destroy reads: kept for process-shared mutexes,
 * which a plain-glibc process may destroy. */
static inline void mutex_took(pthread_mutex_t *m, int tid, int kind)
{
	FTHR_ASSERT(mutex_owner(m) == 0); /* every release clears it first */
	a_store_relaxed(&m->__data.__owner, tid);
	if (kind & FTHR_MUTEX_PSHARED)
		m->__data.__nusers++;
}

/* Out of line, so that the unlock fast path needs no stack frame: a
 * marked word (2, or 3 after a stray unlock) is handed off (lll.h) or
 * wakes one sleeper. An unlocked one (0: the unlock of an
 * unlocked normal or adaptive mutex, which POSIX leaves undefined and
 * glibc lets pass) counts as glibc counts it: __nusers goes down, so a
 * later pthread_mutex_destroy fails with EBUSY as glibc's does
 * (mutex_release already did that for a process-shared mutex). */
static FTHR_NOINLINE int word_released(pthread_mutex_t *m, int old, int kind)
{
	volatile int *fair = fair_word(m, kind);

	if (old == 0) {
		if (!(kind & FTHR_MUTEX_PSHARED))
			m->__data.__nusers--;
		return 0;
	}
	if (fair && !plain_ok(kind) && fthr_lll_hand_off(lockword(m), fair))
		return 0;
	fthr_futex_wake(lockword(m), 1, kind & FTHR_MUTEX_PSHARED);
	return 0;
}

/* Release the word (plainly when plain_ok) and wake one sleeper if it was
 * marked; returns 0. */
static inline int word_release_now(pthread_mutex_t *m, int kind)
{
	volatile int *w = lockword(m);
	int old;

	if (plain_ok(kind)) {
		old = *w; /* 2: marked by a thread gone since */
		*w = 0;
	} else {
		old = a_swap_release(w, 0);
	}
	if (unlikely(old != 1))
		return word_released(m, old, kind);
	return 0;
}

/* The caller broadcast on a condition variable while it held this
 * mutex: the condition is held, the word released, then its sleepers
 * woken (thr_cond.c, Deferred wake-ups). Out of line: the fast path keeps
 * one test. */
static FTHR_NOINLINE int word_release_deferred(pthread_mutex_t *m, int kind)
{
	int r;

	fthr_cond_hold(m);
	r = word_release_now(m, kind);
	fthr_cond_flush(m);
	return r;
}

/* Every release of a mutex of the plain kinds passes here. */
static inline int word_release(pthread_mutex_t *m, int kind)
{
	if (unlikely(fthr_cond_deferred))
		return word_release_deferred(m, kind);
	return word_release_now(m, kind);
}

/* Bookkeeping and the release of the word. */
static inline void mutex_release(pthread_mutex_t *m, int kind)
{
	a_store_relaxed(&m->__data.__owner, 0);
	if (kind & FTHR_MUTEX_PSHARED)
		m->__data.__nusers--;
	word_release(m, kind);
}

/* Take the word after a failed CAS 0->1: spin (adaptive), then sleep. */
static int mutex_wait(pthread_mutex_t *m, int kind, clockid_t clk,
		      const struct timespec *abstime, bool timed)
{
	int r, spun = -1;

	if (timed && (r = fthr_abstime_check(abstime)) != 0)
		return r;
	if ((kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_ADAPTIVE_NP
		    ? !fthr_wait_adaptive(lockword(m), m->__data.__spins, &spun)
		    : !fthr_wait_word_spin(lockword(m), true)) {
		r = fthr_lll_wait(lockword(m), kind & FTHR_MUTEX_PSHARED, clk,
				  timed ? abstime : NULL, fair_word(m, kind));
		if (r)
			return r;
	}
	if (spun >= 0)
		m->__data.__spins += (spun - m->__data.__spins) / 8;
	return 0;
}

static int bad_kind_lock(pthread_mutex_t *m, int kind, clockid_t clk,
			 const struct timespec *abstime, bool timed)
{
	return EINVAL;
}

static int bad_kind_trylock(pthread_mutex_t *m, int kind)
{
	return EINVAL;
}

static int bad_kind_unlock(pthread_mutex_t *m, int kind, bool full)
{
	return EINVAL;
}

/* A kind no init made: a destroyed mutex, or one never initialized. */
static const struct fthr_mutex_ops bad_kind_ops = {
	.lock = bad_kind_lock,
	.trylock = bad_kind_trylock,
	.unlock = bad_kind_unlock,
};

/* A kind whose word protocol is this file's (kind_ops, below). */
static inline bool plain_kind(int kind)
{
	return !(kind & (SPECIAL_KIND_BITS | ~KNOWN_KIND_BITS));
}

/* The one dispatch on a mutex's kind, made by every lock, trylock and
 * unlock that leaves the fast paths and by a condition wait's release and
 * re-take: NULL for the plain kinds (normal, recursive, errorcheck,
 * adaptive; process-shared or not), whose word protocol is this file's;
 * else the calls of the kind's own file (priority inheritance first: it
 * does the robust part of a robust one too), or of bad_kind_ops. A new kind
 * is a row here and a file with its fthr_mutex_ops. */
static inline const struct fthr_mutex_ops *kind_ops(int kind)
{
	if (likely(plain_kind(kind)))
		return NULL;
	if (unlikely(kind & ~KNOWN_KIND_BITS))
		return &bad_kind_ops;
	return (kind & FTHR_MUTEX_PRIO_INHERIT)	  ? &fthr_pi_ops
	       : (kind & FTHR_MUTEX_PRIO_PROTECT) ? &fthr_pp_ops
						  : &fthr_robust_ops;
}

/* Everything but the normal-mutex fast path. */
static FTHR_NOINLINE int mutex_lock_slow(pthread_mutex_t *m, clockid_t clk,
					 const struct timespec *abstime,
					 bool timed)
{
	int kind = mutex_kind(m), type = kind & FTHR_MUTEX_KIND_MASK;
	const struct fthr_mutex_ops *ops = kind_ops(kind);
	int tid, r;

	if (unlikely(ops))
		return ops->lock(m, kind, clk, abstime, timed);
	tid = fthr_tid();
	if (mutex_owner(m) == tid && (r = fthr_mutex_relock(m, type, false)) >= 0)
		return r;
	if (!word_trylock(m, kind)) {
		r = mutex_wait(m, kind, clk, abstime, timed);
		if (r)
			return r;
	}
	mutex_took(m, tid, kind);
	if (type == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 1;
	return 0;
}

/* The owner's tid once the word is ours: the tid cache may still be empty
 * in a thread that has not called into fthr before. */
static FTHR_NOINLINE int mutex_took_fill(pthread_mutex_t *m, int kind)
{
	mutex_took(m, fthr_self_fill(), kind);
	if ((kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 1;
	return 0;
}

/* The bookkeeping of the lock fast path; returns 0. */
static inline int mutex_took_fast(pthread_mutex_t *m, int kind)
{
	int tid = fthr_self_rec.tid;

	if (unlikely(tid == 0))
		return mutex_took_fill(m, kind);
	FTHR_ASSERT(mutex_owner(m) == 0);
	a_store_relaxed(&m->__data.__owner, tid);
	if (kind == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 1;
	return 0;
}

/* Every lock starts here. The uncontended lock of a process-private mutex
 * without the robust, priority or elision bits, of any type, is one CAS (or
 * plain store) and the owner's tid; everything else (contended, a relock,
 * another kind) goes out of line. The normal type is tested first, so that
 * its path has no other test. Every exit is a tail call. */
static inline int mutex_lock_common(pthread_mutex_t *m, clockid_t clk,
				    const struct timespec *abstime, bool timed)
{
	int kind = mutex_kind(m);

	if (likely(kind == PTHREAD_MUTEX_NORMAL)) {
		if (likely(word_trylock(m, PTHREAD_MUTEX_NORMAL)))
			return mutex_took_fast(m, PTHREAD_MUTEX_NORMAL);
	} else if (!(kind & ~FTHR_MUTEX_KIND_MASK) && word_trylock(m, kind)) {
		return mutex_took_fast(m, kind);
	}
	return mutex_lock_slow(m, clk, abstime, timed);
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_lock(pthread_mutex_t *m)
{
	return mutex_lock_common(m, CLOCK_REALTIME, NULL, false);
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_timedlock(pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	return mutex_lock_common(m, CLOCK_REALTIME, abstime, true);
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abstime)
{
	if (!fthr_futex_clock_ok(clk))
		return EINVAL;
	return TSAN_LOCK(m, 0, mutex_lock_common(m, clk, abstime, true));
}

/* Out of line: the call through a pointer stays out of the trylock's hot
 * path (tests/fpu-free.sh proves that path makes none). The test before
 * the call has no unlikely(): with it, GCC 12 saved and restored a
 * register on the plain kinds' path. */
static FTHR_NOINLINE int mutex_trylock_kind(pthread_mutex_t *m, int kind)
{
	return kind_ops(kind)->trylock(m, kind);
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_trylock(pthread_mutex_t *m)
{
	int kind = mutex_kind(m), tid;

	if (!plain_kind(kind))
		return mutex_trylock_kind(m, kind);
	tid = fthr_tid();
	if (mutex_owner(m) == tid)
		return fthr_mutex_relock(m, kind & FTHR_MUTEX_KIND_MASK, true);
	if (!word_trylock(m, kind))
		return EBUSY;
	mutex_took(m, tid, kind);
	if ((kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 1;
	return 0;
}

static FTHR_NOINLINE int mutex_unlock_slow(pthread_mutex_t *m, int kind)
{
	const struct fthr_mutex_ops *ops = kind_ops(kind);

	if (unlikely(ops))
		return ops->unlock(m, kind, false);
	switch (kind & FTHR_MUTEX_KIND_MASK) {
	case PTHREAD_MUTEX_RECURSIVE:
		if (mutex_owner(m) != fthr_tid())
			return EPERM;
		FTHR_ASSERT(m->__data.__count > 0);
		if (--m->__data.__count != 0)
			return 0;
		break;
	case PTHREAD_MUTEX_ERRORCHECK:
		if (mutex_owner(m) != fthr_tid() ||
		    a_load_relaxed(lockword(m)) == 0)
			return EPERM;
		break;
	default: /* adaptive */
		break;
	}
	mutex_release(m, kind);
	return 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_unlock(pthread_mutex_t *m)
{
	int kind = mutex_kind(m);

	if (likely(kind == PTHREAD_MUTEX_NORMAL)) {
		a_store_relaxed(&m->__data.__owner, 0);
		return word_release(m, kind);
	}
	return mutex_unlock_slow(m, kind);
}

/* ---- for condition variables (mutex.h) ---- */

bool fthr_mutex_defers(const pthread_mutex_t *m)
{
	return !(mutex_kind(m) & ~FTHR_MUTEX_KIND_MASK) && mutex_owner(m) == fthr_tid();
}

/* As glibc, a thread in a condition wait stays in __nusers: the wait's
 * release does not count it off and its re-take does not count it again,
 * so that pthread_mutex_destroy fails with EBUSY meanwhile (as glibc's;
 * POSIX leaves it undefined). __nusers changes under the mutex only. */
int fthr_mutex_cond_unlock(pthread_mutex_t *m, unsigned *saved)
{
	int kind = mutex_kind(m), type = kind & FTHR_MUTEX_KIND_MASK;
	const struct fthr_mutex_ops *ops = kind_ops(kind);

	*saved = m->__data.__count;
	if (unlikely(ops))
		return ops->unlock(m, kind, true);
	if ((type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) &&
	    mutex_owner(m) != fthr_tid())
		return EPERM;
	if (type == PTHREAD_MUTEX_RECURSIVE)
		m->__data.__count = 0;
	m->__data.__nusers++; /* (a process-shared one's release takes it back) */
	mutex_release(m, kind);
	return 0;
}

int fthr_mutex_cond_lock(pthread_mutex_t *m, unsigned saved, enum fthr_relock how)
{
	volatile int *w = lockword(m);
	int kind = mutex_kind(m), r, old;
	const struct fthr_mutex_ops *ops = kind_ops(kind);

	if (unlikely(ops)) {
		r = ops->lock(m, kind, CLOCK_MONOTONIC, NULL, false);
		if (r == 0 || r == EOWNERDEAD) {
			m->__data.__count = saved;
			m->__data.__nusers--; /* counted all the wait */
		}
		return r;
	}
	/* Like a plain lock, but it may spin at once, while the signaller
	 * (typically about to wait itself, or to unlock) lets go; a herd's
	 * waiter queues at once (mutex.h; a SWAP(2) that returns 3 took a
	 * hand-off, lll.h). */
	if (how == FTHR_RELOCK_QUEUE ? (old = a_swap_acquire(w, 2)) != 0 && old != 3
	    : !fthr_lll_trylock(w) &&
		      !(how == FTHR_RELOCK_YIELD && fthr_wait_relock_yield(w)) &&
		      !fthr_wait_word_spin(w, false))
		fthr_lll_wait(w, kind & FTHR_MUTEX_PSHARED, CLOCK_MONOTONIC, NULL,
			      fair_word(m, kind));
	mutex_took(m, fthr_tid(), kind);
	m->__data.__count = saved;
	m->__data.__nusers--; /* counted all the wait */
	return 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_mutex_init(pthread_mutex_t *m,
				const pthread_mutexattr_t *attr)
{
	int a = attr ? attr->__align : 0;
	int type = a & ~FTHR_MATTR_FLAG_BITS;
	int proto = (a & FTHR_MATTR_PROTOCOL_MASK) >> FTHR_MATTR_PROTOCOL_SHIFT;

	int ceiling = (a & FTHR_MATTR_CEILING_MASK) >> FTHR_MATTR_CEILING_SHIFT;

	if (proto == PTHREAD_PRIO_PROTECT && (a & FTHR_MATTR_ROBUST))
		return ENOTSUP; /* robust priority-protect: not implemented */
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ADAPTIVE_NP)
		return EINVAL;
	memset(m, 0, sizeof(*m));
	if (proto == PTHREAD_PRIO_PROTECT) {
		int min = sched_get_priority_min(SCHED_FIFO);

		/* glibc: the ceiling lives in the lock word's high bits */
		m->__data.__lock = (ceiling < min ? min : ceiling) << 19;
	}
	/* glibc marks a robust mutex process-shared whatever the attribute
	 * says (the kernel's owner-death wake-up is a shared one): the same
	 * bytes (tests/t_abi.c). fthr's robust code uses shared futexes on
	 * every robust mutex anyway and never reads the mark. */
	m->__data.__kind = type |
			   ((a & (FTHR_MATTR_PSHARED | FTHR_MATTR_ROBUST)) ? FTHR_MUTEX_PSHARED : 0) |
			   ((a & FTHR_MATTR_ROBUST) ? FTHR_MUTEX_ROBUST : 0) |
			   (proto == PTHREAD_PRIO_INHERIT ? FTHR_MUTEX_PRIO_INHERIT : 0) |
			   (proto == PTHREAD_PRIO_PROTECT ? FTHR_MUTEX_PRIO_PROTECT : 0);
	return 0;
}

/* EBUSY while held, used by a condition wait or after a stray unlock (the
 * __nusers comment above); a robust mutex, as glibc's, whatever its state
 * (POSIX leaves that undefined; FTHR_CHECK reports a held one). */
FTHR_HIDDEN FTHR_INLINED int fthr_mutex_destroy(pthread_mutex_t *m)
{
	int kind = mutex_kind(m), word = a_load_relaxed(lockword(m));

	if (kind & FTHR_MUTEX_PRIO_PROTECT)
		word &= ~(int)FTHR_MUTEX_CEILING_MASK; /* the ceiling is no lock */
	if (!(kind & FTHR_MUTEX_ROBUST) && (word != 0 || m->__data.__nusers != 0))
		return EBUSY;
	/* As glibc: a destroyed mutex has an impossible kind, so a later lock
	 * returns EINVAL instead of silently working. */
	a_store_relaxed(&m->__data.__kind, -1);
	return 0;
}

/* The entry points FTHR_PROFILE/FTHR_CHECK can watch (diag.h), and the
 * names glibc also exports (old binaries and libraries use them). */
FTHR_EXPORT_WATCHED(int, pthread_mutex_init, fthr_mutex_init,
		    (pthread_mutex_t *m, const pthread_mutexattr_t *a), (m, a))
FTHR_EXPORT_WATCHED(int, pthread_mutex_destroy, fthr_mutex_destroy,
		    (pthread_mutex_t *m), (m))
FTHR_EXPORT_WATCHED(int, pthread_mutex_lock, fthr_mutex_lock, (pthread_mutex_t *m), (m))
FTHR_EXPORT_WATCHED(int, pthread_mutex_trylock, fthr_mutex_trylock,
		    (pthread_mutex_t *m), (m))
FTHR_EXPORT_WATCHED(int, pthread_mutex_timedlock, fthr_mutex_timedlock,
		    (pthread_mutex_t *m, const struct timespec *t), (m, t))
FTHR_EXPORT_WATCHED(int, pthread_mutex_clocklock, fthr_mutex_clocklock,
		    (pthread_mutex_t *m, clockid_t c, const struct timespec *t), (m, c, t))
FTHR_EXPORT_WATCHED(int, pthread_mutex_unlock, fthr_mutex_unlock, (pthread_mutex_t *m), (m))
FTHR_EXPORT_ALIAS(__pthread_mutex_init, pthread_mutex_init);
FTHR_EXPORT_ALIAS(__pthread_mutex_destroy, pthread_mutex_destroy);
FTHR_EXPORT_ALIAS(__pthread_mutex_lock, pthread_mutex_lock);
FTHR_EXPORT_ALIAS(__pthread_mutex_trylock, pthread_mutex_trylock);
FTHR_EXPORT_ALIAS(__pthread_mutex_unlock, pthread_mutex_unlock);
