/* lib/rwlock_bias.h: the read-write lock's reader bias, its words and the
 * fast paths that the entry points inline (the protocol:
 * thr_rwlock_bias.c). */
#ifndef FTHR_RWLOCK_BIAS_H
#define FTHR_RWLOCK_BIAS_H

#include "rwlock.h"

#define BIAS_OFF 0
#define BIAS_ON 1
#define BIAS_DIRTY 2
#define BIAS_MODE 3
#define BIAS_EPOCH 4	/* added by every OFF -> ON */
#define bias_with(b, mode) (((b) & ~BIAS_MODE) | (mode))
/* the mode, one bit test each (OFF 0, ON 1, DIRTY 2) */
#define bias_on(b) ((b) & BIAS_ON)
#define bias_off(b) (!((b) & BIAS_MODE))
/* 2, not 8: with more threads than cpus two readers are inside together
 * only now and then, and 8 such reads between two writes seldom came, so
 * the bias stayed off for most writes. Write-heavy locks stay unbiased
 * all the same (docs/performance.md, Rwlocks). */
#ifndef STREAK_ON
#define STREAK_ON 2
#endif
#define RSLOTS 4

struct fthr_rblock {
	struct rwlock *volatile slot[RSLOTS];
	volatile int owner; /* tid of the thread it belongs to, 0: free */
	unsigned nest[RSLOTS]; /* further read holds on a slot (owner only) */
} __attribute__((aligned(64)));

/* the pool's high-water mark (thr_rwlock_bias.c) */
FTHR_HIDDEN extern volatile int fthr_rw_nblocks;

/* rev: revokers at work in the low 16 bits, biased releases seen by them
 * above it */
#define REV_REVOKERS 0xffff
#define REV_SEEN 0x10000

/* thr_rwlock_bias.c */
FTHR_HIDDEN bool fthr_rw_rblock_claim(void);
FTHR_HIDDEN void fthr_rw_revoke_wake(struct rwlock *l);
FTHR_HIDDEN int fthr_rw_nest_near_limit(struct rwlock *l, struct fthr_rblock *b, int i);
FTHR_HIDDEN int fthr_rw_revoke(struct rwlock *l, bool wait, clockid_t clk,
			       const struct timespec *abstime);
FTHR_HIDDEN FTHR_COLD void fthr_rw_forget_slots(struct rwlock *l);

/* Release a biased read hold from slot i of the caller's block. */
static inline void biased_release(struct rwlock *l, struct fthr_rblock *b, int i)
{
	(void)__atomic_exchange_n(&b->slot[i], NULL, __ATOMIC_SEQ_CST);
	/* sequentially consistent, as the revoker's rev RMW and slot loads:
	 * store-buffering, where acquire/release would not do */
	if (unlikely(__atomic_load_n(&l->rev, __ATOMIC_SEQ_CST) & REV_REVOKERS))
		fthr_rw_revoke_wake(l);
}

/* A read lock through the caller's slots while the bias is on: 0, EAGAIN
 * (glibc's reader limit), or EBUSY when the caller must use state. */
static inline int try_read_biased(struct rwlock *l)
{
	struct fthr_self *self = &fthr_self_rec;
	struct fthr_rblock *b = self->rblock;

	if (!b)
		return EBUSY;
	/* A read of a lock this thread holds through a slot already counts on
	 * that hold, whatever the bias: it must never wait for a writer that
	 * waits for this very slot (verify/rwlock_bias.pml found that). */
	if (self->rbheld)
		for (int i = 0; i < RSLOTS; i++)
			if (b->slot[i] == l) {
				if (unlikely(b->nest[i] >= (1u << 27)))
					return fthr_rw_nest_near_limit(l, b, i);
				b->nest[i]++;
				self->rdlocks++;
				return 0;
			}
	if (!bias_on(a_load_acquire(&l->bias)))
		return EBUSY;
	for (int i = 0; i < RSLOTS; i++) {
		if (b->slot[i])
			continue;
		(void)__atomic_exchange_n(&b->slot[i], l, __ATOMIC_SEQ_CST);
		if (likely(bias_on(__atomic_load_n(&l->bias, __ATOMIC_SEQ_CST)))) {
			self->rdlocks++;
			self->rbheld++;
			return 0;
		}
		biased_release(l, b, i);
		break;
	}
	return EBUSY;
}

/* Unlock: a biased hold of l by the caller? Released if so. */
static inline bool unlock_biased(struct rwlock *l)
{
	struct fthr_self *self = &fthr_self_rec;
	struct fthr_rblock *b = self->rblock;

	for (int i = 0; i < RSLOTS; i++)
		if (b->slot[i] == l) {
			FTHR_ASSERT(self->rbheld > 0 && self->rdlocks > 0);
			self->rdlocks--;
			if (b->nest[i]) {
				b->nest[i]--;
				return true;
			}
			biased_release(l, b, i);
			self->rbheld--;
			return true;
		}
	return false;
}

/* A writer arrives: stop new biased readers. */
static inline void bias_stop(struct rwlock *l)
{
	int b = a_load_relaxed(&l->bias);

	if (unlikely(bias_on(b)))
		__atomic_compare_exchange_n(&l->bias, &b, bias_with(b, BIAS_DIRTY), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/* After a read lock through state: turn the bias on when the lock looks
 * read-mostly: this thread's last STREAK_ON reads were of this lock with
 * no write lock taken in between. The count is the thread's own (writing
 * the lock's line on every read would cost the readers more than the
 * bias saves them). */
static inline void maybe_bias(struct rwlock *l)
{
	struct fthr_self *self = &fthr_self_rec;
	int w, b, on;

	if (!RW_BIAS)
		return;
	w = a_load_relaxed(&l->writes);
	/* only a lock read by several threads at once gains: the bias moves
	 * their reads off the shared line (a lock one thread reads alone
	 * stays on the cheaper state path) */
	if ((a_load_relaxed(&l->state) & READERS) < 2)
		return;
	if (self->rb_lock != l || self->rb_writes != w) {
		self->rb_lock = l;
		self->rb_writes = w;
		self->rb_streak = 0;
		return;
	}
	if (++self->rb_streak < STREAK_ON || l->shared ||
	    !bias_off(b = a_load_relaxed(&l->bias)) ||
	    (a_load_relaxed(&l->rev) & REV_REVOKERS))
		return;
	if (!self->rblock && (self->rblock_tried || !fthr_rw_rblock_claim()))
		return;
	/* a new epoch: a revoker whose scan began before it cannot turn
	 * this bias off (fthr_rw_revoke) */
	if (prefers_writers(l) && (a_load_relaxed(&l->state) & WR_WAIT))
		return;
	on = bias_with((int)((unsigned)b + BIAS_EPOCH), BIAS_ON);
	/* a writer that registered (WR_WAIT) meanwhile stops the bias after
	 * it, or this look after the CAS sees it (both sequentially
	 * consistent: Dekker) and stops it, as that writer's entry would */
	if (__atomic_compare_exchange_n(&l->bias, &b, on, false, __ATOMIC_SEQ_CST,
					__ATOMIC_RELAXED) &&
	    prefers_writers(l) && (__atomic_load_n(&l->state, __ATOMIC_SEQ_CST) & WR_WAIT))
		bias_stop(l);
}

/* WRITER is ours: the streak of reads ends (writes += 1). With the bias off, no reader
 * can hold l through a slot: done (0). Otherwise biased readers may; the
 * writer gives WRITER back and waits for them (fthr_rw_revoke) holding
 * nothing, so that reads through state go on meanwhile (a
 * reader-preferring kind's promise; a recursive read through state), then
 * the caller tries again (EAGAIN), or the wait's error. */
static inline int write_acquired(struct rwlock *l, bool wait, clockid_t clk,
				 const struct timespec *abstime)
{
	int r;

	if (RW_BIAS)
		a_store_relaxed(&l->writes, a_load_relaxed(&l->writes) + 1);
	if (likely(bias_off(a_load_relaxed(&l->bias))))
		return 0;
	write_release(l);
	r = fthr_rw_revoke(l, wait, clk, abstime);
	return r ? r : EAGAIN;
}

#endif
