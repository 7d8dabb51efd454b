/* lib/thr_rwlock_sleep.c: read-write locks: sleeping and waking, the
 * private hand-over queue and the process-shared rseq/wseq (the words and
 * the state word: thr_rwlock.c; the reader bias: thr_rwlock_bias.c).
 *
 *   sleep    under lock: rwait/wwait += 1, set RD_WAIT/WR_WAIT (private: and
 *            queue the node); then loop { try (an unlock the try misses saw
 *            the bit); pshared: s = rseq/wseq, drop lock, futex_wait(rseq/
 *            wseq, s); private: (handed = 0, pending = 1 first) drop
 *            lock, futex_wait(node.handed, 0); take lock };
 *            count down (clear the bit at 0) and dequeue only when
 *            leaving, so a waking writer keeps readers off meanwhile.
 *            A writer of a writer-preferring kind, once WR_WAIT is set,
 *            stops a bias turned on since its entry (re-bias:
 *            thr_rwlock_bias.c).
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
 * The wake decision (fthr_rw_wake_locked) while readers hold the lock: the
 * sleeping readers the rules above put before every sleeping writer (all
 * of them when no writer sleeps) are woken, as they may read beside the
 * holders (private: handed, pending left as it is, for the writers' turn
 * is still to come; pshared: rseq += 1, wake all). No unlock would wake
 * them before the lock is free, and a holder may wait for them: a reader
 * that slipped in between a freeing unlock and its waker, or a writer that
 * timed out, leaving the readers its WR_WAIT kept off (glibc's bug 23861,
 * tst-rwlock15).
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include "host.h"
#include "lll.h"
#include "self.h"
#include "wait.h"
#include "rwlock_bias.h"

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
FTHR_HIDDEN void fthr_rw_wake_locked(struct rwlock *l)
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
		fthr_rw_wake_locked(l);
		r = ETIMEDOUT;
	}
	fthr_lll_unlock(&l->lock, shared);
	return r;
}

FTHR_HIDDEN FTHR_NOINLINE int fthr_rw_rdlock_slow(struct rwlock *l, clockid_t clk,
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

FTHR_HIDDEN FTHR_NOINLINE void fthr_rw_wake_if_free_slow(struct rwlock *l, int n)
{
	wake_if_free(l, n);
}

FTHR_HIDDEN FTHR_NOINLINE int fthr_rw_wrlock_slow(struct rwlock *l, clockid_t clk,
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
