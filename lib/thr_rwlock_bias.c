/* lib/thr_rwlock_bias.c: read-write locks: the reader bias (its words and
 * fast paths: rwlock_bias.h; the lock's words and state word:
 * thr_rwlock.c).
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
 *            cleared its slots. fthr_rw_nblocks: the pool's high-water mark.
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
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include "futex.h"
#include "self.h"
#include "wait.h"
#include "rwlock_bias.h"

#define RBLOCKS 128

static struct fthr_rblock rblocks[RBLOCKS];
FTHR_HIDDEN volatile int fthr_rw_nblocks;

static void rblock_thread_exit(void);

/* Claim a block for the calling thread (once; false when none is left or
 * the thread-exit step cannot be armed: the thread then reads through
 * state). */
FTHR_HIDDEN FTHR_NOINLINE bool fthr_rw_rblock_claim(void)
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
	n = a_load_relaxed(&fthr_rw_nblocks);
	while (n <= i && !__atomic_compare_exchange_n(&fthr_rw_nblocks, &n, i + 1, true,
						      __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED))
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

FTHR_HIDDEN FTHR_NOINLINE void fthr_rw_revoke_wake(struct rwlock *l)
{
	__atomic_fetch_add(&l->rev, REV_SEEN, __ATOMIC_SEQ_CST);
	fthr_futex_wake(&l->rev, INT_MAX, false);
}

/* A nested read of slot i near glibc's reader limit: EAGAIN when the
 * lock's readers this thread can see (its slot's holds and those through
 * state) are at the limit already; otherwise one more hold. */
FTHR_HIDDEN FTHR_NOINLINE int fthr_rw_nest_near_limit(struct rwlock *l, struct fthr_rblock *b,
						     int i)
{
	if (b->nest[i] + 1 + (unsigned)(a_load_relaxed(&l->state) & READERS) >= MAX_READERS)
		return EAGAIN;
	b->nest[i]++;
	fthr_self_rec.rdlocks++;
	return 0;
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
FTHR_HIDDEN FTHR_NOINLINE int fthr_rw_revoke(struct rwlock *l, bool wait, clockid_t clk,
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
	n = __atomic_load_n(&fthr_rw_nblocks, __ATOMIC_SEQ_CST);
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

/* Destroy: no slot may keep l's address past it (a lock later made at
 * that address would wait for the slot forever). Clears every slot that
 * holds l: the caller's own (its counts follow), a live thread's (its
 * later unlock of l finds none and returns 0), an exited thread's (its
 * block goes back to the pool once empty). */
FTHR_HIDDEN FTHR_NOINLINE FTHR_COLD void fthr_rw_forget_slots(struct rwlock *l)
{
	struct fthr_self *self = &fthr_self_rec;
	int n = __atomic_load_n(&fthr_rw_nblocks, __ATOMIC_SEQ_CST);

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
