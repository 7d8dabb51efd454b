/* lib/thr_mutex_robust.c: robust mutexes, glibc's protocol and list layout,
 * so a robust process-shared mutex works between fthr and plain-glibc
 * processes and either side learns of the other's death.
 *
 * Futex protocol of __lock (the kernel's robust-futex ABI):
 *   0                        unlocked
 *   tid [| WAITERS]          held by thread tid; WAITERS: somebody may sleep
 *   OWNER_DIED [| WAITERS]   the holder died (the kernel set the bit and
 *                            woke one sleeper)
 *   lock     list_op_pending = our list entry; then loop:
 *            0 -> CAS to tid (| WAITERS once we have slept, since others
 *            may sleep too); OWNER_DIED -> CAS to tid keeping WAITERS: ours,
 *            inconsistent, EOWNERDEAD; our own tid -> EDEADLK (errorcheck) or
 *            count + 1 (recursive); otherwise CAS in WAITERS and
 *            futex_wait(word, value) on the shared futex key (the kernel
 *            wakes robust sleepers through it). Once ours: link the mutex
 *            into the thread's robust list, list_op_pending = NULL.
 *   unlock   list_op_pending = entry; unlink; __owner = 0 (or NOT-
 *            RECOVERABLE when left inconsistent); SWAP(0); WAITERS ->
 *            futex_wake(1); list_op_pending = NULL.
 *   death    the kernel walks the dead thread's list and list_op_pending;
 *            each word still holding the dead tid gets OWNER_DIED (WAITERS
 *            kept) and one sleeper is woken.
 *   recheck  (beyond glibc's protocol) a sleeper looks at the word again
 *            ROBUST_RECHECK_NS after it went to sleep, woken or not: free,
 *            it takes it; held without WAITERS, it marks it and sleeps on.
 *            The hole this closes: an unlock wakes the first sleeper; before
 *            it runs, a thread that never slept takes the free word
 *            without WAITERS; the woken sleeper is killed before it re-takes
 *            the word; the kernel wakes nobody (the word is not the dead
 *            thread's), the taker's unlock sees no WAITERS and wakes nobody,
 *            and the other sleepers would sleep for ever on a free mutex.
 *            With the recheck an fthr sleeper gets it 0.1 s later at most,
 *            whoever the others are, and its own unlock, marked, wakes the
 *            next (a plain-glibc sleeper too). A plain-glibc sleeper left
 *            with no fthr sleeper beside it keeps glibc's hole.
 *            verify/robust.pml.
 *            (Waking 2 at every marked unlock, or a wake note in __spins
 *            that an unmarked unlock acts on, also close it, but cost
 *            writers much of their throughput: docs/performance.md,
 *            Robust mutexes. The recheck costs a clock read per sleep.)
 * __owner: tid; INCONSISTENT (INT_MAX) after EOWNERDEAD until
 * pthread_mutex_consistent; NOTRECOVERABLE (INT_MAX - 1) after an unlock
 * without it: every later lock fails with ENOTRECOVERABLE.
 *
 * The list: glibc's layout. An entry is &m->__data.__list.__next, the
 * futex sits futex_offset bytes from it; on 64-bit arches __prev links back
 * (glibc's __pthread_list_t), on 32-bit ones the list is singly linked
 * (__pthread_slist_t, __PTHREAD_MUTEX_HAVE_PREV 0) and an unlink walks it
 * from the head, as glibc's does. The head is the
 * one the host registered for the thread (found with get_robust_list), so
 * glibc's and fthr's robust mutexes share it; a thread without one gets
 * fthr's own (set_robust_list).
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include "futex.h"
#include "mutex.h"
#include "self.h"

#define INCONSISTENT INT_MAX
#define NOTRECOVERABLE (INT_MAX - 1)
#define FUTEX_OFFSET                                                           \
	((long)__builtin_offsetof(pthread_mutex_t, __data.__lock) -            \
	 (long)__builtin_offsetof(pthread_mutex_t, __data.__list.__next))
/* the sleep's bound (head comment: recheck) */
#define ROBUST_RECHECK_NS 100000000L

struct fthr_robust_list {
	void *list;
	long futex_offset;
	void *list_op_pending;
};

static inline void *entry_of(pthread_mutex_t *m)
{
	return &m->__data.__list.__next;
}

#if __PTHREAD_MUTEX_HAVE_PREV
#define LINK_ADJUST __builtin_offsetof(__pthread_list_t, __next)

/* The list node whose __next field an entry pointer points at. */
static inline __pthread_list_t *node_of(void *entry)
{
	return (__pthread_list_t *)(((uintptr_t)entry & ~1ul) - LINK_ADJUST);
}
#endif

static inline void barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* The calling thread's robust list head: the host library's registered
 * one, or fthr's own, registered with the kernel when it accepts one. Where
 * it refuses (qemu-user, a seccomp filter), the list is kept all the same
 * and robust mutexes work without the kernel's marking of a dead owner's
 * mutexes: glibc's behaviour there. */
struct fthr_robust_list *fthr_robust_head(void)
{
	struct fthr_self *self = &fthr_self_rec;
	struct fthr_robust_list *h = self->robust;
	size_t len = 0;

	if (likely(h))
		return h;
	if (arch_syscall6(SYS_get_robust_list, 0, (long)&h, (long)&len, 0, 0, 0) != 0 ||
	    !h || len != sizeof(struct fthr_robust_list) || h->futex_offset != FUTEX_OFFSET) {
		h = (struct fthr_robust_list *)&self->own_robust.head;
		h->list = h;
		h->futex_offset = FUTEX_OFFSET;
		fthr_robust_pending(h, NULL);
		(void)arch_syscall6(SYS_set_robust_list, (long)h, sizeof(*h), 0, 0, 0, 0);
	}
	self->robust = h;
	return h;
}

/* list_op_pending: the entry being linked or unlinked (NULL: none), so a
 * death in between is not lost. */
void fthr_robust_pending(struct fthr_robust_list *h, pthread_mutex_t *m)
{
	barrier();
	h->list_op_pending = m ? entry_of(m) : NULL;
	barrier();
}

/* Link m at the head of the list; pi tags the entry for the kernel. */
void fthr_robust_enqueue(struct fthr_robust_list *h, pthread_mutex_t *m, bool pi)
{
#if __PTHREAD_MUTEX_HAVE_PREV
	node_of(h->list)->__prev = entry_of(m);
	m->__data.__list.__prev = (void *)h;
#endif
	m->__data.__list.__next = h->list;
	barrier(); /* the entry is whole before the kernel can see it */
	h->list = (void *)((uintptr_t)entry_of(m) | pi);
}

#if __PTHREAD_MUTEX_HAVE_PREV
void fthr_robust_dequeue(pthread_mutex_t *m)
{
	node_of(m->__data.__list.__next)->__prev = m->__data.__list.__prev;
	node_of(m->__data.__list.__prev)->__next = m->__data.__list.__next;
	barrier();
	m->__data.__list.__prev = NULL;
	m->__data.__list.__next = NULL;
}
#else
/* Singly linked: find the link that points at m (the head's or an
 * entry's, the PI tag bit masked off) and point it past m. m is on the
 * calling thread's list (it holds m), so the walk ends at m; it stops at
 * the head, where the list closes, all the same. */
void fthr_robust_dequeue(pthread_mutex_t *m)
{
	struct fthr_robust_list *h = fthr_robust_head();
	uintptr_t e = (uintptr_t)entry_of(m), next;
	void **link = &h->list;

	while ((next = (uintptr_t)*link & ~1ul) != e) {
		FTHR_ASSERT(next != (uintptr_t)h);
		if (next == (uintptr_t)h)
			return;
		link = (void **)next;
	}
	*link = m->__data.__list.__next;
	barrier();
	m->__data.__list.__next = NULL;
}
#endif

/* The word is ours: check recoverability, link it, book it. */
static int robust_took(struct fthr_robust_list *h, pthread_mutex_t *m, int tid)
{
	volatile int *w = &m->__data.__lock;

	if (unlikely(m->__data.__owner == NOTRECOVERABLE)) {
		m->__data.__count = 0;
		if (a_swap_release(w, 0) & FUTEX_WAITERS)
			fthr_futex_wake(w, 1, true);
		fthr_robust_pending(h, NULL);
		return ENOTRECOVERABLE;
	}
	m->__data.__count = 1;
	barrier();
	fthr_robust_enqueue(h, m, false);
	fthr_robust_pending(h, NULL);
	m->__data.__owner = tid;
	m->__data.__nusers++;
	return 0;
}

/* The previous holder died: take the word over, inconsistent. */
static int robust_took_dead(struct fthr_robust_list *h, pthread_mutex_t *m)
{
	m->__data.__count = 1;
	m->__data.__owner = INCONSISTENT;
	barrier();
	fthr_robust_enqueue(h, m, false);
	fthr_robust_pending(h, NULL);
	return EOWNERDEAD;
}

/* futex_wait(w, old) until woken, the caller's deadline (ETIMEDOUT) or
 * ROBUST_RECHECK_NS from now (0: look again; head comment). */
static int robust_sleep(volatile int *w, int old, clockid_t clk,
			const struct timespec *abstime, bool timed)
{
	clockid_t c = timed ? clk : CLOCK_MONOTONIC;
	struct timespec dl = fthr_deadline_in(c, ROBUST_RECHECK_NS);

	if (timed && (abstime->tv_sec < dl.tv_sec ||
		      (abstime->tv_sec == dl.tv_sec && abstime->tv_nsec <= dl.tv_nsec)))
		return fthr_futex_wait(w, old, true, clk, abstime);
	fthr_futex_wait(w, old, true, c, &dl);
	return 0;
}

static int fthr_robust_lock(pthread_mutex_t *m, int kind, clockid_t clk,
		     const struct timespec *abstime, bool timed)
{
	volatile int *w = &m->__data.__lock;
	struct fthr_robust_list *h = fthr_robust_head();
	int tid = fthr_tid(), type = kind & FTHR_MUTEX_KIND_MASK;
	int waiters = 0, old, r;

	fthr_robust_pending(h, m);
	old = a_load_relaxed(w);
	for (;;) {
		if (old == 0) {
			if (__atomic_compare_exchange_n(w, &old, tid | waiters, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return robust_took(h, m, tid);
			continue;
		}
		if (old & FUTEX_OWNER_DIED) {
			if (__atomic_compare_exchange_n(w, &old,
							tid | (old & FUTEX_WAITERS) | waiters,
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return robust_took_dead(h, m);
			continue;
		}
		if ((old & FUTEX_TID_MASK) == tid) {
			fthr_robust_pending(h, NULL);
			if ((r = fthr_mutex_relock(m, type, false)) >= 0)
				return r;
		}
		if (!(old & FUTEX_WAITERS)) {
			if (!__atomic_compare_exchange_n(w, &old, old | FUTEX_WAITERS, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				continue;
			old |= FUTEX_WAITERS;
		}
		waiters = FUTEX_WAITERS;
		if (timed && (r = fthr_abstime_check(abstime)) != 0) {
			fthr_robust_pending(h, NULL);
			return r;
		}
		if (robust_sleep(w, old, clk, abstime, timed) == ETIMEDOUT) {
			fthr_robust_pending(h, NULL);
			return ETIMEDOUT;
		}
		old = a_load_relaxed(w);
	}
}

static int fthr_robust_trylock(pthread_mutex_t *m, int kind)
{
	volatile int *w = &m->__data.__lock;
	struct fthr_robust_list *h = fthr_robust_head();
	int tid = fthr_tid(), old;

	fthr_robust_pending(h, m);
	old = a_load_relaxed(w);
	for (;;) {
		if (old == 0) {
			if (__atomic_compare_exchange_n(w, &old, tid, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return robust_took(h, m, tid);
			continue;
		}
		if (old & FUTEX_OWNER_DIED) {
			if (__atomic_compare_exchange_n(w, &old, tid | (old & FUTEX_WAITERS),
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return robust_took_dead(h, m);
			continue;
		}
		if ((old & FUTEX_TID_MASK) == tid) {
			fthr_robust_pending(h, NULL);
			/* glibc: a robust errorcheck trylock by the owner: EDEADLK */
			return (kind & FTHR_MUTEX_KIND_MASK) == PTHREAD_MUTEX_ERRORCHECK
				       ? EDEADLK
				       : fthr_mutex_relock(m, kind & FTHR_MUTEX_KIND_MASK, true);
		}
		fthr_robust_pending(h, NULL);
		return EBUSY;
	}
}

/* full: release a recursive mutex entirely (condition waits). */
static int fthr_robust_unlock(pthread_mutex_t *m, int kind, bool full)
{
	volatile int *w = &m->__data.__lock;
	int type = kind & FTHR_MUTEX_KIND_MASK, owner = 0;
	struct fthr_robust_list *h;

	if ((a_load_relaxed(w) & FUTEX_TID_MASK) != fthr_tid())
		return EPERM;
	if (m->__data.__owner == INCONSISTENT) {
		if (type == PTHREAD_MUTEX_RECURSIVE && !full && --m->__data.__count != 0)
			return ENOTRECOVERABLE;
		owner = NOTRECOVERABLE;
	} else if (type == PTHREAD_MUTEX_RECURSIVE && !full && --m->__data.__count != 0) {
		return 0;
	}
	h = fthr_robust_head();
	fthr_robust_pending(h, m);
	fthr_robust_dequeue(m);
	m->__data.__owner = owner;
	if (!full) /* a condition wait stays counted (thr_mutex.c) */
		m->__data.__nusers--;
	if (a_swap_release(w, 0) & FUTEX_WAITERS)
		fthr_futex_wake(w, 1, true);
	fthr_robust_pending(h, NULL);
	return 0;
}

const struct fthr_mutex_ops fthr_robust_ops = {
	.lock = fthr_robust_lock,
	.trylock = fthr_robust_trylock,
	.unlock = fthr_robust_unlock,
};

FTHR_HIDDEN int fthr_mutex_consistent(pthread_mutex_t *m)
{
	if (!(a_load_relaxed(&m->__data.__kind) & FTHR_MUTEX_ROBUST) ||
	    m->__data.__owner != INCONSISTENT)
		return EINVAL;
	m->__data.__owner = fthr_tid();
	return 0;
}

FTHR_EXPORT(pthread_mutex_consistent, fthr_mutex_consistent);
FTHR_EXPORT(pthread_mutex_consistent_np, fthr_mutex_consistent);
