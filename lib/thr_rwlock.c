/* lib/thr_rwlock.c: read-write locks.
 *
 * Words (overlaid on the 56-byte pthread_rwlock_t, 32 bytes on 32-bit
 * arches, below; glibc's __cur_writer, __shared and __flags offsets are
 * kept, so the static initializers work):
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
 *   sleep    under lock: rwait/wwait += 1, set RD_WAIT/WR_WAIT (private: and
 *            queue the node); then loop { try (an unlock the try misses saw
 *            the bit); pshared: s = rseq/wseq, drop lock, futex_wait(rseq/
 *            wseq, s); private: (handed = 0, pending = 1 first) drop
 *            lock, futex_wait(node.handed, 0); take lock };
 *            count down (clear the bit at 0) and dequeue only when
 *            leaving, so a waking writer keeps readers off meanwhile.
 *            A writer of a writer-preferring kind, once WR_WAIT is set,
 *            stops a bias turned on since its entry (re-bias, below).
 *   unlock   CAS the hold away; if that left the lock free with a WAIT bit
 *            set, wake under lock -- private: only if pending; else the
 *            sleepers the rules choose were handed the lock already and
 *            will try again. Every write of pending but wake_queued's is
 *            a sequentially consistent RMW, and the unlock reads it with
 *            one after its own RMW on state, so one of the two reads the
 *            other's write: a sleeper that sets pending before it tries
 *            either is seen by the unlock, or sees the unlock. A sleeper
 *            leaves (with the lock, or timed out to repeat the wake
 *            decision) in a round that set it under the lock it holds; one
 *            that leaves with the lock set it before its unlock, whose
 *            release the freeing unlock acquires (acq_rel state RMWs).
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
 * futex_wait. A sleeper that gives up (timeout) repeats the wake
 * decision, so a wake-up meant for it passes on.
 * The wake decision (wake_locked) while readers hold the lock: the
 * sleeping readers the rules above put before every sleeping writer (all
 * of them when no writer sleeps) are woken, as they may read beside the
 * holders (private: handed, pending left as it is, for the writers' turn
 * is still to come; pshared: rseq += 1, wake all). No unlock would wake
 * them before the lock is free, and a holder may wait for them: a reader
 * that slipped in between a freeing unlock and its waker, or a writer that
 * timed out, leaving the readers its WR_WAIT kept off (glibc's bug 23861,
 * tst-rwlock15).
 *
 * Reader bias (process-private rwlocks, every kind; BRAVO, USENIX ATC
 * 2019, with per-thread slots): read-mostly locks keep readers off the
 * shared line.
 *   bias     OFF (readers use state), ON (readers may use their slots),
 *            DIRTY (revoked; slots may still hold the lock), in bits 0-1;
 *            above them an epoch, + 1 at every OFF -> ON: (e, mode).
 *   rev      futex word: revokers at work (low 16 bits), + REV_SEEN per
 *            biased release that saw one.
 *   rblock   a thread's 4 reader slots, a 64-byte block of a static pool
 *            (so a revoker may read it any time); claimed on the first
 *            biased read with the thread-exit hook armed, given back at
 *            thread exit when empty, else once pthread_rwlock_destroy has
 *            cleared its slots. nblocks: the pool's high-water mark.
 *   biased read   a thread that holds l in a slot already: nest += 1,
 *            held (whatever the bias). Else XCHG(free slot, l); bias == ON
 *            -> held (rdlocks and rbheld count it). Else clear the slot (as
 *            unlock) and take the state path.
 *   biased unlock nest > 0: nest -= 1. Else XCHG(slot, NULL); if rev has
 *            revokers (both sequentially consistent): rev += REV_SEEN,
 *            futex_wake(rev, all).
 *   writer   on entry: bias ON -> DIRTY (new readers go to state). Having
 *            taken WRITER with bias not OFF, it gives WRITER back and
 *            revokes holding nothing (reads through state go on meanwhile:
 *            a reader-preferring kind's promise, a recursive read):
 *            rev += 1; CAS bias (e, ON) -> (e, DIRTY); for every slot of
 *            every block: while slot == l { v = rev; spin a while for
 *            slot != l; slot == l -> futex_wait(rev, v) }; rev -= 1; CAS
 *            bias (e, DIRTY) -> (e, OFF); then it starts again.
 *            Several writers may revoke at once: the epoch keeps one whose
 *            scan passed a slot before a re-bias from turning off the
 *            bias a later writer made DIRTY (2 writers, 4 readers: a
 *            reader and a writer in at once). A timed-out or trying
 *            writer leaves bias DIRTY for the next. WRITER is kept only
 *            when bias reads OFF after taking it: the bias turns ON only
 *            under a read lock through state, which WRITER excludes.
 *            The XCHGs and the bias/rev RMWs order "slot, then bias" against
 *            "bias/rev, then slots": a reader sees the revocation or the
 *            revoker sees the reader (Dekker).
 *   re-bias  a reader holding the read lock through state together with
 *            other readers, bias OFF, no revoker at work, no writer waiting
 *            (writer-preferring kinds only: a reader-preferring lock's
 *            readers pass a sleeping writer anyway, and that writer is
 *            woken by this reader's state unlock, then revokes), after
 *            STREAK_ON such reads of the lock by this thread with no write
 *            lock in between (the lock's 'writes' count unchanged): CAS
 *            bias (e, OFF) -> (e + 1, ON) (write-heavy locks stay unbiased).
 *            Writer-preferring kinds: then state is read again, and a
 *            WR_WAIT set meanwhile stops the bias (ON -> DIRTY, as a
 *            writer's entry); the writer, after setting WR_WAIT, does the
 *            same if it reads ON (all sequentially consistent: one of the
 *            two sees the other), so no biased reader passes a writer
 *            asleep for long (tst-rwlock15's reader never saw EBUSY).
 *
 * Process-shared locks are the host library's (host.h) where it has the
 * calls: init with the attribute calls the host's, which sets __shared
 * (this struct's shared) to 1, and every call on a lock with shared set
 * goes to the host's function, so a plain-glibc process can make, read and
 * write the same lock. The rseq/wseq protocol above serves only on a host
 * without them.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include "diag.h"
#include "host.h"
#include "lll.h"
#include "self.h"
#include "wait.h"
#include "tsan.h"

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
	int shared;	/* offset 28, glibc's __shared */
	struct waiter *queue;
	volatile int bias;	/* BIAS_OFF/ON/DIRTY, + an epoch, see above */
	volatile int rev;	/* revocation futex word, see the head comment */
	unsigned flags;	/* offset 48, glibc's __flags */
	int writes;	/* write locks taken, mod 2^32 (re-bias, below) */
};
_Static_assert(__builtin_offsetof(struct rwlock, writes) == 52, "glibc's padding");
#else
/* 32-bit arches: glibc's object is 32 bytes, __flags and __shared are the
 * bytes at 24 and 25, __cur_writer the int at 28. No room for the reader
 * bias: it stays off (bias, rev and writes are the pshared wseq's word,
 * which a private lock never writes, and read 0). A private lock counts
 * its sleepers by its queue, a pshared one (on a host without glibc's
 * calls) has no queue: the two share words. */
#define RW_WIDE 0
#define RW_BIAS 0
struct rwlock {
	volatile int state;
	volatile int lock;
	union {
		volatile int rseq;	/* pshared */
		volatile int pending;	/* private */
	};
	union {
		volatile int wseq;	/* pshared */
		volatile int bias;	/* private: BIAS_OFF for ever */
		volatile int rev;	/* private: 0 for ever */
		int writes;	/* private: never counted */
	};
	union {
		int rwait;	/* pshared */
		struct waiter *queue;	/* private */
	};
	int wwait;	/* pshared */
	unsigned char flags;	/* offset 24, glibc's __flags */
	unsigned char shared;	/* offset 25, glibc's __shared */
	unsigned char pad[2];
	int writer;	/* offset 28, glibc's __cur_writer */
};
_Static_assert(__builtin_offsetof(struct rwlock, writer) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__cur_writer), "__cur_writer");
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

/* ---- reader bias ---- */

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
#define RBLOCKS 128

struct fthr_rblock {
	struct rwlock *volatile slot[RSLOTS];
	volatile int owner; /* tid of the thread it belongs to, 0: free */
	unsigned nest[RSLOTS]; /* further read holds on a slot (owner only) */
} __attribute__((aligned(64)));

static struct fthr_rblock rblocks[RBLOCKS];
static volatile int nblocks;

static void rblock_thread_exit(void);

/* Claim a block for the calling thread (once; false when none is left or
 * the thread-exit step cannot be armed: the thread then reads through
 * state). */
static FTHR_NOINLINE bool rblock_claim(void)
{
	struct fthr_self *self = &fthr_self_rec;
	int tid = fthr_tid(), i, n;

	self->rblock_tried = true;
	if (!fthr_exit_arm(FTHR_EXIT_RWLOCK, rblock_thread_exit))
		return false;
	for (i = 0; i < RBLOCKS; i++) {
		int zero = 0;

		if (a_load_relaxed(&rblocks[i].owner) == 0 &&
		    __atomic_compare_exchange_n(&rblocks[i].owner, &zero, tid, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
	}
	if (i == RBLOCKS)
		return false;
	/* the revokers' scan must cover the block before any slot is used */
	n = a_load_relaxed(&nblocks);
	while (n <= i && !__atomic_compare_exchange_n(&nblocks, &n, i + 1, true,
						      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		;
	self->rblock = &rblocks[i];
	return true;
}

/* owner of a block whose thread exited holding read locks in it */
#define RBLOCK_DEAD (-1)

FTHR_NO_SANITIZE static bool rblock_empty(const struct fthr_rblock *b)
{
	for (int i = 0; i < RSLOTS; i++)
		if (__atomic_load_n(&b->slot[i], __ATOMIC_SEQ_CST))
			return false;
	return true;
}

/* The thread exits (step FTHR_EXIT_RWLOCK, self.h): an empty block goes
 * back to the pool. One that still holds read locks stays claimed (RBLOCK_DEAD), so the
 * locks stay read-held, as they would with any other implementation, until
 * pthread_rwlock_destroy forgets them. */
FTHR_NO_SANITIZE static void rblock_thread_exit(void)
{
	struct fthr_self *self = &fthr_self_rec;
	struct fthr_rblock *b = self->rblock;

	if (!b)
		return;
	self->rblock = NULL;
	self->rblock_tried = false;
	/* (rbheld also counts holds a destroy cleared from the slots) */
	__atomic_store_n(&b->owner, self->rbheld == 0 || rblock_empty(b) ? 0 : RBLOCK_DEAD,
			 __ATOMIC_RELEASE);
}

/* rev: revokers at work in the low 16 bits, biased releases seen by them
 * above it */
#define REV_REVOKERS 0xffff
#define REV_SEEN 0x10000

static FTHR_NOINLINE void revoke_wake(struct rwlock *l)
{
	__atomic_fetch_add(&l->rev, REV_SEEN, __ATOMIC_SEQ_CST);
	fthr_futex_wake(&l->rev, INT_MAX, false);
}

/* Release a biased read hold from slot i of the caller's block. */
static inline void biased_release(struct rwlock *l, struct fthr_rblock *b, int i)
{
	(void)__atomic_exchange_n(&b->slot[i], NULL, __ATOMIC_SEQ_CST);
	/* sequentially consistent, as the revoker's rev RMW and slot loads:
	 * store-buffering, where acquire/release would not do */
	if (unlikely(__atomic_load_n(&l->rev, __ATOMIC_SEQ_CST) & REV_REVOKERS))
		revoke_wake(l);
}

/* A nested read of slot i near glibc's reader limit: EAGAIN when the
 * lock's readers this thread can see (its slot's holds and those through
 * state) are at the limit already; otherwise one more hold. */
static FTHR_NOINLINE int nest_near_limit(struct rwlock *l, struct fthr_rblock *b, int i)
{
	if (b->nest[i] + 1 + (unsigned)(a_load_relaxed(&l->state) & READERS) >= MAX_READERS)
		return EAGAIN;
	b->nest[i]++;
	fthr_self_rec.rdlocks++;
	return 0;
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
					return nest_near_limit(l, b, i);
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
	if (!self->rblock && (self->rblock_tried || !rblock_claim()))
		return;
	/* a new epoch: a revoker whose scan began before it cannot turn
	 * this bias off (revoke) */
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

/* A writer that holds a read lock of l itself, in a slot: glibc's
 * results for a writer that waits for its own read (a try gets EBUSY, a
 * timed wait ETIMEDOUT at its deadline, whether or not the bias is on);
 * an untimed one, which glibc never returns from, fails with EDEADLK. */
static FTHR_COLD int own_read_hold(bool wait, clockid_t clk, const struct timespec *abstime)
{
	int r;

	if (!wait)
		return EBUSY;
	if (!abstime)
		return EDEADLK;
	if ((r = fthr_abstime_check(abstime)))
		return r;
	return fthr_sleep_until(clk, abstime);
}

/* A writer that found the bias on, holding nothing: wait until no slot
 * holds l. 'wait' false: only look. Returns 0 (every slot was seen free
 * with the bias off for new readers; OFF now, unless a reader turned it on
 * again meanwhile), EBUSY (a slot holds it and !wait), for the caller's
 * own slot what own_read_hold says, or for a deadline (abstime not NULL)
 * EINVAL or ETIMEDOUT. Several may run at once (rev counts them). */
static FTHR_NOINLINE int revoke(struct rwlock *l, bool wait, clockid_t clk,
				const struct timespec *abstime)
{
	struct fthr_rblock *mine = fthr_self_rec.rblock;
	int r = 0, n, b;

	/* Counted first (no reader turns the bias on while revokers work),
	 * then the epoch this scan covers, made DIRTY: every reader that saw
	 * it ON published its slot before, so the scan sees the slot. */
	__atomic_fetch_add(&l->rev, 1, __ATOMIC_SEQ_CST);
	b = __atomic_load_n(&l->bias, __ATOMIC_SEQ_CST);
	while (bias_on(b) &&
	       !__atomic_compare_exchange_n(&l->bias, &b, bias_with(b, BIAS_DIRTY), false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	b = bias_with(b, BIAS_DIRTY);
	n = __atomic_load_n(&nblocks, __ATOMIC_SEQ_CST);
	for (int i = 0; i < n && !r; i++)
		for (int j = 0; j < RSLOTS && !r; j++) {
			while (__atomic_load_n(&rblocks[i].slot[j], __ATOMIC_SEQ_CST) == l) {
				int v = __atomic_load_n(&l->rev, __ATOMIC_SEQ_CST);

				if (&rblocks[i] == mine) {
					r = own_read_hold(wait, clk, abstime);
				} else if (!wait) {
					r = EBUSY;
				} else if (abstime && (r = fthr_abstime_check(abstime))) {
					break;
				} else if (FTHR_WAIT_LOCK(__atomic_load_n(&rblocks[i].slot[j],
							__ATOMIC_SEQ_CST) != l)) {
					continue; /* a reader's hold is short: watch first */
				} else if (__atomic_load_n(&rblocks[i].slot[j],
							   __ATOMIC_SEQ_CST) == l) {
					r = fthr_futex_wait(&l->rev, v, false, clk, abstime);
					r = r == ETIMEDOUT ? r : 0;
				}
				if (r)
					break;
			}
		}
	__atomic_fetch_sub(&l->rev, 1, __ATOMIC_RELAXED);
	/* (A slot may hold l again already: a reader that published it after
	 * the scan sees the bias is not ON and takes it back.) Only DIRTY ->
	 * OFF of the epoch scanned: another revoker may have finished, a
	 * reader turned the bias on again (a new epoch), with readers in
	 * slots this scan had passed, and a writer made that epoch DIRTY. */
	if (!r)
		__atomic_compare_exchange_n(&l->bias, &b, bias_with(b, BIAS_OFF), false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	return r;
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

/* Wake w, unless an earlier unlock did and w has not run since (on a busy
 * cpu that may take a while: every unlock meanwhile finds the lock free
 * with w's mark set and comes here). */
static void hand(struct waiter *w)
{
	if (w->handed)
		return;
	w->handed = 1;
	fthr_futex_wake(&w->handed, 1, false);
}

/* pshared, under l->lock: every reader asleep on rseq */
static void wake_all_readers(struct rwlock *l)
{
	__atomic_fetch_add(&l->rseq, 1, __ATOMIC_RELEASE);
	fthr_futex_wake(&l->rseq, INT_MAX, true);
}

/* Private: priority order, see the head comment. */
static void wake_queued(struct rwlock *l, bool readers_in)
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
	if (!readers_in) {
		/* this choice wakes whom a next one would choose, until the
		 * queue changes (readers_in: the writer's turn is still to
		 * come, and the next unlock must see pending) */
		a_store_relaxed(&l->pending, 0);
		if (bw && (bw->prio > rmax || (bw->prio == rmax && tie_to_writer))) {
			hand(bw);
			return;
		}
	}
	for (w = l->queue; w; w = w->next)
		if (!w->writer && (!bw || w->prio > bw->prio ||
				   (w->prio == bw->prio && !tie_to_writer)))
			hand(w);
}

/* Under l->lock: wake whom the rules let in now. Nobody while a writer
 * holds l. While readers hold it, the sleeping readers the rules put
 * before every sleeping writer (all of them when no writer sleeps): they
 * may read beside the holders, and no unlock wakes them before l is free,
 * which a holder waiting for them would never make it (a reader that
 * slipped in before this waker, or a writer that timed out while readers
 * held l: glibc's tst-rwlock15). When l is free, the rules' choice. */
static void wake_locked(struct rwlock *l)
{
	int s = a_load_relaxed(&l->state);

	if (s & WRITER)
		return;
	if (!l->shared) {
		wake_queued(l, s & READERS);
	} else if (s & READERS) {
		if (l->rwait && (!l->wwait || !prefers_writers(l)))
			wake_all_readers(l);
	} else if (l->wwait && (prefers_writers(l) || !l->rwait)) {
		__atomic_fetch_add(&l->wseq, 1, __ATOMIC_RELEASE);
		fthr_futex_wake(&l->wseq, 1, true);
	} else if (l->rwait) {
		wake_all_readers(l);
	}
}

/* Under l->lock: count a sleeper in (d 1) or out (d -1, after it left the
 * queue); the sleepers of its kind left. */
static int sleepers_add(struct rwlock *l, bool writer, int d)
{
	int *count = writer ? &l->wwait : &l->rwait;
	int n = 0;

	if (RW_WIDE || l->shared) {
		FTHR_ASSERT(*count + d >= 0);
		return *count += d;
	}
	for (struct waiter *w = l->queue; w; w = w->next) /* 32-bit, private */
		n += w->writer == writer;
	return n;
}

static int rw_sleep_loop(struct rwlock *l, bool writer, clockid_t clk,
			 const struct timespec *abstime, bool timed)
{
	struct waiter self = { .writer = writer };
	volatile int *seqw = writer ? &l->wseq : &l->rseq;
	int bit = writer ? WR_WAIT : RD_WAIT;
	bool shared = l->shared, timed_out = false, handed = false;
	struct waiter **pp;
	int r, seq;

	if (timed && (r = fthr_abstime_check(abstime)) != 0)
		return r;
	if (!shared)
		self.prio = fthr_sched_prio();
	fthr_lll_lock(&l->lock, shared);
	/* Mark first, then look: an unlock the look misses sees the mark and
	 * wakes us (it needs the lock we hold to do so). The mark stays until
	 * we leave, so a writer keeps readers out while it retries. */
	sleepers_add(l, writer, 1);
	__atomic_fetch_or(&l->state, bit, __ATOMIC_SEQ_CST);
	/* a writer-preferring kind's readers keep off a registered writer:
	 * a bias turned on since wrlock's bias_stop stops now (maybe_bias) */
	if (RW_BIAS && writer && prefers_writers(l) &&
	    bias_on(__atomic_load_n(&l->bias, __ATOMIC_SEQ_CST)))
		bias_stop(l);
	if (!shared) {
		for (pp = &l->queue; *pp; pp = &(*pp)->next)
			;
		*pp = &self;
	}
	for (;;) {
		const struct timespec *dl = timed ? abstime : NULL;

		if (!shared) {
			/* queued, or about to sleep again: news for the next
			 * hand-over (head comment) */
			self.handed = 0;
			(void)__atomic_exchange_n(&l->pending, 1, __ATOMIC_SEQ_CST);
		}
		r = writer ? try_write(l) : try_read_as(l, handed);
		if (r != EBUSY || timed_out)
			break;
		if (shared) {
			seq = a_load_relaxed(seqw);
			fthr_lll_unlock(&l->lock, shared);
			timed_out = fthr_futex_wait(seqw, seq, true, clk, dl) == ETIMEDOUT;
		} else {
			fthr_lll_unlock(&l->lock, shared);
			while (!self.handed && !timed_out)
				timed_out = fthr_futex_wait(&self.handed, 0, false, clk,
							    dl) == ETIMEDOUT;
		}
		fthr_lll_lock(&l->lock, shared);
		handed = !shared && self.handed;
	}
	if (!shared) {
		for (pp = &l->queue; *pp != &self; pp = &(*pp)->next)
			;
		*pp = self.next;
		/* (pending is 1: this round set it, under the lock we hold) */
	}
	FTHR_ASSERT(a_load_relaxed(&l->state) & bit);
	if (sleepers_add(l, writer, -1) == 0)
		__atomic_fetch_and(&l->state, ~bit, __ATOMIC_RELAXED);
	if (r == EBUSY) {
		/* timed out: a wake-up meant for us goes to the next one; the
		 * last writer to leave lets in the readers it kept off */
		wake_locked(l);
		r = ETIMEDOUT;
	}
	fthr_lll_unlock(&l->lock, shared);
	return r;
}

/* Sleepers are queued on l: a waiter that finds them there queues behind
 * them at once, with no patience and no spin, and a spinner stops when one
 * queues (head comment, "spin"). */
static inline bool rw_queued(const struct rwlock *l)
{
	return a_load_relaxed(&l->state) & (RD_WAIT | WR_WAIT);
}

static FTHR_NOINLINE int rdlock_slow(struct rwlock *l, clockid_t clk,
				     const struct timespec *abstime, bool timed)
{
	int r;

	if (a_load_relaxed(&l->writer) == fthr_tid())
		return EDEADLK;
	if (!rw_queued(l))
		fthr_wait_patience();
	if (FTHR_WAIT_LOCK_OR((r = try_read(l)) != EBUSY, rw_queued(l)))
		return r;
	return rw_sleep_loop(l, false, clk, abstime, timed);
}

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
	return rdlock_slow(l, clk, abstime, timed);
}

/* ---- process-shared: the host's rwlock (host.h) ---- */

/* Made by the host's init with the process-shared attribute: its __shared
 * (this struct's shared) is 1. fthr's own process-shared protocol is left
 * for a host without the calls. */
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

/* After an unlock left state n: wake whom the rules say if it is free. */
static inline void wake_if_free(struct rwlock *l, int n)
{
	if (unlikely((n & (WR_WAIT | RD_WAIT)) && !(n & (WRITER | READERS)))) {
		/* private: nobody to hand over to but sleepers handed already,
		 * who have not run yet (head comment) */
		if (!l->shared && __atomic_fetch_add(&l->pending, 0, __ATOMIC_SEQ_CST) == 0)
			return;
		fthr_lll_lock(&l->lock, l->shared);
		wake_locked(l);
		fthr_lll_unlock(&l->lock, l->shared);
	}
}

static FTHR_NOINLINE void wake_if_free_slow(struct rwlock *l, int n)
{
	wake_if_free(l, n);
}

/* Give the write lock back; wake whom the rules say if it is free now. */
static inline int write_release(struct rwlock *l)
{
	int n;

	FTHR_ASSERT((a_load_relaxed(&l->state) & (WRITER | READERS)) == WRITER);
	l->writer = 0;
	n = __atomic_and_fetch(&l->state, ~WRITER, __ATOMIC_ACQ_REL); /* (pending) */
	if (unlikely(n & (WR_WAIT | RD_WAIT)))
		wake_if_free_slow(l, n);
	return 0;
}

/* WRITER is ours: the streak of reads ends (writes += 1). With the bias off, no reader
 * can hold l through a slot: done (0). Otherwise biased readers may; the
 * writer gives WRITER back and waits for them (revoke) holding nothing, so
 * that reads through state go on meanwhile (a reader-preferring kind's
 * promise; a recursive read through state), then the caller tries again
 * (EAGAIN), or the wait's error. */
static inline int write_acquired(struct rwlock *l, bool wait, clockid_t clk,
				 const struct timespec *abstime)
{
	int r;

	if (RW_BIAS)
		a_store_relaxed(&l->writes, a_load_relaxed(&l->writes) + 1);
	if (likely(bias_off(a_load_relaxed(&l->bias))))
		return 0;
	write_release(l);
	r = revoke(l, wait, clk, abstime);
	return r ? r : EAGAIN;
}

static FTHR_NOINLINE int wrlock_slow(struct rwlock *l, clockid_t clk,
				     const struct timespec *abstime, bool timed)
{
	const struct timespec *dl = timed ? abstime : NULL;
	int r;

	if (a_load_relaxed(&l->writer) == fthr_tid())
		return EDEADLK;
	do {
		if (!rw_queued(l))
			fthr_wait_patience();
		if (!FTHR_WAIT_LOCK_OR(try_write(l) == 0, rw_queued(l)) &&
		    (r = rw_sleep_loop(l, true, clk, abstime, timed)) != 0)
			return r;
	} while ((r = write_acquired(l, true, clk, dl)) == EAGAIN);
	return r;
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
	return wrlock_slow(l, clk, abstime, timed);
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

static void forget_slots(struct rwlock *l);

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

	if (unlikely(a_load_relaxed(&nblocks) != 0))
		forget_slots(l);
	if (attr && attr[1] == PTHREAD_PROCESS_SHARED && fthr_hs()->ok_rwlock)
		return fthr_hs()->rw_init(rw, a); /* the same attribute layout */
	*rw = (pthread_rwlock_t){ 0 };
	if (attr) {
		l->flags = (unsigned)attr[0];
		l->shared = attr[1] == PTHREAD_PROCESS_SHARED;
	}
	return 0;
}

/* Destroy: no slot may keep l's address past it (a lock later made at
 * that address would wait for the slot forever). Clears every slot that
 * holds l: the caller's own (its counts follow), a live thread's (its
 * later unlock of l finds none and returns 0), an exited thread's (its
 * block goes back to the pool once empty). */
static FTHR_NOINLINE FTHR_COLD void forget_slots(struct rwlock *l)
{
	struct fthr_self *self = &fthr_self_rec;
	int n = __atomic_load_n(&nblocks, __ATOMIC_SEQ_CST);

	for (int i = 0; i < n; i++) {
		struct fthr_rblock *b = &rblocks[i];
		int dead = RBLOCK_DEAD;

		for (int j = 0; j < RSLOTS; j++) {
			struct rwlock *held = l;
			unsigned nest;

			if (__atomic_load_n(&b->slot[j], __ATOMIC_SEQ_CST) != l)
				continue;
			nest = b->nest[j]; /* (the holder's, if it uses l meanwhile: undefined) */
			b->nest[j] = 0;
			if (!__atomic_compare_exchange_n(&b->slot[j], &held, NULL, false,
							 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				continue;
			if (b == self->rblock) {
				self->rbheld--;
				self->rdlocks -= nest + 1;
			}
		}
		if (a_load_relaxed(&b->owner) == RBLOCK_DEAD && rblock_empty(b))
			__atomic_compare_exchange_n(&b->owner, &dead, 0, false,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
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
		forget_slots(l);
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
