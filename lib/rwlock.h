/* lib/rwlock.h: what the read-write lock's files share: the layout, the
 * state word's tries and release, the calls between the files.
 *
 *   thr_rwlock.c        the entry points and the state word (its head
 *                       comment: the words, the protocol)
 *   thr_rwlock_sleep.c  sleeping and waking: the private hand-over queue,
 *                       the process-shared rseq/wseq
 *   thr_rwlock_bias.c   the reader bias (its fast paths: rwlock_bias.h)
 *   rwlock32.h          the layout on 32-bit arches
 */
#ifndef FTHR_RWLOCK_H
#define FTHR_RWLOCK_H

#include <errno.h>
#include "lll.h"
#include "self.h"

#if __SIZEOF_LONG__ == 8
/* 64-bit arches: the 56-byte object, room for every word. */
#define RW_WIDE 1
#define RW_BIAS 1
struct rwlock {
	volatile int state;
	volatile int lock;
	union {
		volatile int rseq;	/* pshared */
		volatile int pending;	/* private */
	};
	volatile int wseq;
	int rwait;
	int wwait;
	int writer;	/* offset 24, glibc's __cur_writer */
	int shared;	/* offset 28, glibc's __shared (glibc.h, 5) */
	struct waiter *queue;
	volatile int bias;	/* BIAS_OFF/ON/DIRTY, + an epoch (thr_rwlock_bias.c) */
	volatile int rev;	/* revocation futex word (thr_rwlock_bias.c) */
	unsigned flags;	/* offset 48, glibc's __flags */
	int writes;	/* write locks taken, mod 2^32 (re-bias: thr_rwlock_bias.c) */
};
_Static_assert(__builtin_offsetof(struct rwlock, writes) == 52, "glibc's padding");
#else
#include "rwlock32.h"
#endif
_Static_assert(sizeof(struct rwlock) <= sizeof(pthread_rwlock_t), "rwlock fits");
_Static_assert(__builtin_offsetof(struct rwlock, flags) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__flags), "__flags");
_Static_assert(__builtin_offsetof(struct rwlock, shared) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__shared), "__shared");
FTHR_RWLOCK_LAYOUT(struct rwlock); /* tests read it by these names */

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
/* glibc's limit on a lock's readers (its 32-bit word counts them from bit 3
 * and fails at bit 31): one more read lock fails with EAGAIN. */
#define MAX_READERS ((1 << 28) - 1)

static inline struct rwlock *R(pthread_rwlock_t *l)
{
	return (struct rwlock *)l;
}

static inline bool prefers_writers(const struct rwlock *l)
{
	return l->flags != PTHREAD_RWLOCK_PREFER_READER_NP;
}

/* ---- the state word ---- */

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
		if ((s & READERS) >= MAX_READERS)
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

/* ---- sleeping and waking (thr_rwlock_sleep.c) ---- */

/* Sleepers are queued on l: a waiter that finds them there queues behind
 * them at once, with no patience and no spin, and a spinner stops when one
 * queues (thr_rwlock.c's head comment, "spin"). */
static inline bool rw_queued(const struct rwlock *l)
{
	return a_load_relaxed(&l->state) & (RD_WAIT | WR_WAIT);
}

/* Under l->lock: wake whom the rules let in now (thr_rwlock_sleep.c). */
FTHR_HIDDEN void fthr_rw_wake_locked(struct rwlock *l);
FTHR_HIDDEN void fthr_rw_wake_if_free_slow(struct rwlock *l, int n);
/* A read or write lock that must wait: patience, a spin, then sleep. */
FTHR_HIDDEN int fthr_rw_rdlock_slow(struct rwlock *l, clockid_t clk,
				    const struct timespec *abstime, bool timed);
FTHR_HIDDEN int fthr_rw_wrlock_slow(struct rwlock *l, clockid_t clk,
				    const struct timespec *abstime, bool timed);

/* After an unlock left state n: wake whom the rules say if it is free. */
static inline void wake_if_free(struct rwlock *l, int n)
{
	if (unlikely((n & (WR_WAIT | RD_WAIT)) && !(n & (WRITER | READERS)))) {
		/* private: nobody to hand over to but sleepers handed already,
		 * who have not run yet (thr_rwlock_sleep.c's head comment) */
		if (!l->shared && __atomic_fetch_add(&l->pending, 0, __ATOMIC_SEQ_CST) == 0)
			return;
		fthr_lll_lock(&l->lock, l->shared);
		fthr_rw_wake_locked(l);
		fthr_lll_unlock(&l->lock, l->shared);
	}
}

/* Give the write lock back; wake whom the rules say if it is free now. */
static inline int write_release(struct rwlock *l)
{
	int n;

	FTHR_ASSERT((a_load_relaxed(&l->state) & (WRITER | READERS)) == WRITER);
	l->writer = 0;
	n = __atomic_and_fetch(&l->state, ~WRITER, __ATOMIC_ACQ_REL); /* (pending) */
	if (unlikely(n & (WR_WAIT | RD_WAIT)))
		fthr_rw_wake_if_free_slow(l, n);
	return 0;
}

#endif
