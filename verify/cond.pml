/* verify/cond.pml: the condition variable of lib/thr_cond.c, with the
 * private normal mutex it waits with (lib/thr_mutex.c, lib/lll.h); and,
 * with -DREQUEUE, the old protocol, whose
 * broadcast requeued waiters onto that mutex (kept to replay its bugs).
 *
 * Words: mem[SEQ] the cond's seq (futex word), mem[M] the mutex's lock word
 * (futex word, 0/1/2); c_waiters (the drain count), c_sleepers as plain
 * shared ints; for REQUEUE also c_mutex (c->mutex set by a waiter), and
 * c->rq_begun and c->rq_done as c_rq_busy and rqs[] (below: the two
 * questions the waiters asked of them).
 *
 * The sleepers count (thr_cond.c head comment, Linux: exact futex counts):
 * sleepers are the waiters in futex_wait that no wake-up took off the futex
 * queue yet. fthr_futex_wake returns how many it took off (futex.pml's
 * count), and the signaller, broadcaster or cancellation cleanup subtracts
 * that in a later step (count_out). A waiter whose wait returned 0 was
 * counted out so; one whose wait returned EAGAIN or ETIMEDOUT subtracts
 * itself; one whose wait returned EINTR waits again, still counted (the
 * old protocol, REQUEUE, subtracted itself then too). A cancelled sleeper
 * stays counted, and so does one whose wait returned 0 without a wake (SPURIOUS; the
 * kernel does not, it restarts the wait, RESTARTS): an over-count costs a
 * wake that wakes nobody, never a lost wake-up. Checked besides: sleepers
 * never goes negative (assert at every subtraction; the C code's
 * FTHR_ASSERT(sleepers > 0) before a waiter's own, and
 * FTHR_ASSERT(left >= 0) in count_out), and it is exact: 0 once every
 * thread is done, unless a cancellation or SPURIOUS struck (exact_at_end).
 *
 * REQUEUE, the old protocol: a broadcast woke 1 and moved the rest onto
 * the mutex word (fthr_futex_cmp_requeue), counting out woken + moved; it
 * did rq_begun += 1, then its FUTEX_CMP_REQUEUE, then rq_done += 1 (three
 * steps; then count_out). A waiter, before sleepers += 1, read b0 =
 * rq_begun, then (a separate step) d0 = rq_done; after the wait it
 * subtracted itself only if the wait returned non-zero, d0 == b0 (no
 * requeue under way) and rq_begun, read again, was still b0 (none begun
 * since): a requeued sleeper can time out or be interrupted on the mutex
 * word after the broadcast counted it out. REAL BUG 6 (see README.md):
 * a waiter cannot tell whether it was moved, and both guesses fail. Its
 * wait returned EAGAIN while a requeue was under way (it was never
 * queued) and it stayed counted: sleepers crept up without bound
 * (realbug/cond-requeue-creep: exact_at_end's assertion); and a moved
 * sleeper whose wait the kernel restarted compared seq again, slept on it
 * counted out, and the next signal, finding no sleeper, woke nobody
 * (realbug/cond-requeue-restart, -DRESTARTS=1: invalid end state). So the
 * broadcast now wakes all.
 *
 * The counters' abstraction (both only grow, rq_done <= rq_begun; nothing
 * else reads them; their wrap-around is not modelled): c_rq_busy is
 * rq_begun - rq_done, the broadcasts between their two increments, and
 * rqs[p] is waiter p's answer so far: set to 1 by its read of b0, cleared
 * by every rq_begun += 1, and at its read of d0 cleared if c_rq_busy != 0.
 * This is exact: if rq_begun did not move between the b0 read and the
 * last read, it had the value b0 at the d0 read too, so d0 == b0 there
 * iff no broadcast was busy (c_rq_busy == 0); if rq_begun moved, the last
 * read differs from b0 and the answer is no whatever d0 was. So the waiter
 * subtracts itself iff rqs[p] == 1 at its last read, and the counters'
 * values stay out of the state.
 *
 * The re-take rule (thr_cond.c cond_wait, cond_cancelled): the mutex is
 * re-taken as a plain lock. REQUEUE: a waiter that slept in futex_wait
 * re-took it marked, with SWAP(2), because a broadcast may have requeued
 * it onto the mutex word; a spinner (it never slept, so it was never
 * requeued) took it with CAS 0->1, and the cancellation cleanup always
 * marked.
 *
 * One wake-up in flight (thr_cond.c head comment; not with INEXACT or
 * REQUEUE): c_fly and c_owed are the wake word's two fields. A signal
 * that finds sleepers reads c_sleepers (a step), then in one atomic step
 * (its CAS loop) either gives up (flying and owed >= the sleepers it
 * read), owes one more (flying), or sets flying and runs wake_one: a
 * counted wake, count_out, and if it woke nobody, the word cleared. back,
 * run by a waiter whose wait returned 0 and by every cancelled one:
 * flying and owed -> owed - 1 and wake_one; flying alone -> cleared.
 * A broadcast leaves the word alone (clearing it would drop what a
 * signal after it owes to a flying sleeper's back).
 *   -DSEED_FLY_DROP  (seeded) back clears the word without paying what
 *             is owed: a signal whose wake-up was left to a flying
 *             sleeper is lost (run seeded/cond_fly_drop: invalid end
 *             state).
 *   -DSEED_WAKE_STORE  (seeded) may clear the word with a plain store
 *             after a wake that woke nobody, the first form of wake_one: a
 *             signal's debt to a sleeper that went to sleep in between is
 *             lost (run seeded/cond_wake_store, -DSIG_UNLOCKED -DNSIG=2
 *             -DTIMEOUTS=1: invalid end state; the model caught it in the
 *             C code before it was committed).
 *
 * Deferred wake-ups (thr_cond.c head comment; not with REQUEUE or NO_DEFER):
 * a broadcast made by the mutex's holder moves seq at once, and if it
 * read sleepers > 0 leaves the wake of all to its release of the mutex
 * (pend): just before the release, the releaser holds the drain count
 * (c_defer: its DRAIN_HOLD units) if a thread is inside (c_waiters > 0;
 * else there is no sleeper, and nothing to wake); once the word is
 * released, it reads sleepers again, wakes them all and lets go of the
 * hold (flush). A waiter does not leave the count while a hold is
 * counted. Checked: a flush ends with a thread still inside, so the
 * condition lives through it. A signal wakes at once, and so does a
 * broadcast made without the mutex (SIG_UNLOCKED).
 *   -DSEED_LEAVE_HELD  (seeded) a waiter leaves the drain count while a
 *             hold is counted: the program may free the condition under
 *             the flush (run seeded/cond_leave_held: assertion violated).
 *   -DSEED_DEFER_UNLOCKED  (seeded) defers without holding the mutex (the
 *             holder check left out): the wake-up waits for the
 *             broadcaster's next release of the mutex, and the last one
 *             for ever (run seeded/cond_defer_unlocked, -DSIG_UNLOCKED
 *             -DFLAGS: invalid end state).
 *
 * Program (TOKENS, default): NWAIT waiters each do
 *     lock(m); while (tokens == 0) cond_[timed]wait(c, m); tokens--; unlock(m)
 * and NSIG signallers produce NWAIT tokens between them, each
 *     lock(m); tokens++; [signal|broadcast]; unlock(m)    (default)
 *     lock(m); tokens++; unlock(m); [signal|broadcast]    (SIG_UNLOCKED)
 * Program FLAGS: waiter i waits for its own flag go[i] instead, and the
 * signallers set the flags one at a time, each followed by a broadcast
 * (with per-waiter predicates only a broadcast is sure to reach the
 * right thread).
 * A waiter may be cancelled inside the futex wait (CANCELS budget): it runs
 * cond_cancelled, then its own cleanup handler unlocks the mutex and it
 * exits without a token.
 *
 * Options (spin -D...): NWAIT, NSIG, SIG_UNLOCKED, ONLY_SIGNAL,
 * ONLY_BROADCAST, FLAGS, FUTEX_FIFO, TIMEOUTS, CANCELS, SPURIOUS, EINTRS,
 * RESTARTS (futex.pml); REQUEUE, and with it SHARED (a pshared cond of
 * the old protocol: no requeue).
 *   -DNO_EXACT_CHECK  no exact_at_end (to see what an over- or
 *             under-count then does).
 *   -DINEXACT  the protocol of a backend without exact counts
 *             (fthr_futex_counts_exact false, futex_freebsd.c; also the
 *             Linux protocol before exact counts): every sleeper subtracts
 *             itself after its wait, and the cancellation cleanup for it;
 *             wakers subtract nothing (and with REQUEUE the counters were
 *             not used). (Run once, not in run.sh.)
 *   -DNO_INVARIANTS  a build without --enable-invariants: FTHR_ASSERT is
 *             nothing, sleepers is a signed int that may go negative, and
 *             no assertion checks it (what such a bug then does).
 *
 * Checked: mutual exclusion on the mutex (assert), the mutex held on return
 * from a wait, and no deadlock / no lost wake-up: every thread reaches its
 * end (a waiter asleep on seq or on the mutex word while the others are
 * done is an invalid end state; there are always enough tokens for it).
 *
 * REAL BUGS 1 and 5 are of the old protocol (REQUEUE, which they imply).
 * REAL BUG 1 (see README.md), fixed in the C code then: the old rule marked
 * only a waiter with requeued_since(c, seq), (int)(rq_seq - seq) > 0, and
 * lost a wake-up when a broadcast sent after the unlock requeued a waiter
 * that had read the broadcast's own seq.
 *   -DRQ_SEQ  the protocol before the fix, kept to reproduce the hang (run
 *             realbug/cond-bcast-unlocked, with -DFLAGS -DSIG_UNLOCKED
 *             -DFUTEX_FIFO: invalid end state): a requeueing broadcast
 *             stores its seq in c_rq_seq before its FUTEX_CMP_REQUEUE, and
 *             a waiter re-takes the mutex marked only if
 *             requeued_since(c, seq) (also in cond_cancelled).
 *
 * REAL BUG 5 (see README.md), fixed in the C code then (rq_begun, rq_done,
 * REQUEUE's default here): with one counter, requeues += 1 before every requeueing
 * broadcast, a waiter could take its snapshot rq = requeues after a
 * broadcast's += 1 and still be requeued by that broadcast's
 * FUTEX_CMP_REQUEUE (it read the broadcast's own seq, as in real bug 1,
 * and slept before the requeue). If it then timed out (or got EINTR) on
 * the mutex word, requeues == rq, and it counted itself out after the
 * broadcast did: sleepers one too low.
 *   -DRQ_ONE_COUNT  that protocol (commit bd122b7): one requeues counter,
 *             + 1 before the requeue; the waiter reads it once before
 *             sleepers += 1 and subtracts itself if the wait returned
 *             non-zero and requeues still equals its snapshot (rqs[p]: set
 *             by the read, cleared by every + 1). With -DFLAGS
 *             -DSIG_UNLOCKED -DTIMEOUTS=1 it fails (run
 *             realbug/cond-requeue-count: assertion violated;
 *             realbug/cond-requeue-count-lost with -DNO_INVARIANTS:
 *             sleepers -1, a later sleeper brings it to 0, the next
 *             broadcast wakes nobody: invalid end state).
 *
 * Seeded bugs (must fail):
 *   -DSEED_SIGNAL_NOSEQ  fthr_cond_signal does not bump seq: a waiter that
 *             has not yet slept (spinning, or counted in sleepers but not
 *             yet compared) misses the signal and sleeps forever (invalid
 *             end state; run seeded/cond_signal_noseq, with -DONLY_SIGNAL).
 *   -DSEED_DOUBLE_OUT  a waiter a signal woke (and counted out) counts
 *             itself out too (assertion violated: sleepers would go
 *             negative; run seeded/cond_double_out).
 *   -DSEED_NO_REQUEUE_CHECK  (REQUEUE) the waiter ignores the requeue counters and
 *             subtracts itself on every non-zero return: a sleeper that a
 *             broadcast requeued onto the mutex word, and so counted out,
 *             and that then times out there is counted out twice
 *             (assertion violated: sleepers would go negative; run
 *             seeded/cond_norequeue_check, with -DREQUEUE -DFLAGS -DTIMEOUTS=1:
 *             broadcasts under the mutex, where REQUEUE passes).
 */
#ifndef NWAIT
#define NWAIT 2
#endif
#ifndef NSIG
#define NSIG 1
#endif
#if defined(RQ_SEQ) || defined(RQ_ONE_COUNT)
#define REQUEUE			/* both are variants of the old protocol */
#endif
#define NPROC (NWAIT + NSIG)
#define NADDR 3
#define M 1			/* the mutex's __data.__lock */
#define SEQ 2			/* the cond's seq */

#include "lll.pml"

byte c_waiters;			/* struct cond waiters (drain.h count) */
#ifdef NO_INVARIANTS
short c_sleepers;		/* struct cond sleepers: an int, unchecked */
#define SLEEPERS_ASSERT(e)	skip
#else
byte c_sleepers;		/* struct cond sleepers (asserted never < 0) */
#define SLEEPERS_ASSERT(e)	assert(e)
#endif
bit c_mutex;			/* struct cond mutex != NULL */
#ifdef RQ_SEQ
int c_rq_seq;			/* old struct cond rq_seq */
#endif
byte tokens;			/* the program's predicate, under the mutex */
#if !defined(INEXACT) && !defined(REQUEUE)
#define FLY
bit c_fly;			/* struct cond wake bit 0: a wake-up in flight */
byte c_owed;			/* struct cond wake >> 1: wake-ups owed */
#endif
#if !defined(REQUEUE) && !defined(NO_DEFER) && \
	(!defined(SIG_UNLOCKED) || defined(SEED_DEFER_UNLOCKED))
#define DEFERS			/* the signallers' wake-ups are deferred */
#endif
byte c_defer;			/* struct cond waiters / DRAIN_HOLD: deferrals */
/* cond_leave: the drain count goes down by one, but not while a hold is
 * counted (fthr_drain_leave_unheld, one CAS; else it waits) */
#ifdef SEED_LEAVE_HELD
#define COND_LEAVE	c_waiters--	/* SEEDED BUG: leaves while held */
#else
#define COND_LEAVE	atomic { c_defer == 0 -> c_waiters-- }
#endif
byte holder;			/* _pid + 1 of the mutex holder (ghost) */
byte finished;			/* threads finished (ghost) */

/* struct cond rq_begun and rq_done (with RQ_ONE_COUNT the old requeues),
 * as the waiters' questions (head comment): rqs[p] = 1: waiter p read b0
 * and, so far, no broadcast began since and none was busy at its d0 read;
 * 0 otherwise, or p holds no snapshot (p reads rqs[p] only while it holds
 * one). With RQ_ONE_COUNT: requeues has not moved since p's snapshot. */
bit rqs[NWAIT];
#ifndef RQ_ONE_COUNT
byte c_rq_busy;			/* rq_begun - rq_done */
#endif

/* rq = __atomic_load_n(&c->rq_begun) (RQ_ONE_COUNT: rq = requeues) */
inline rq_snap_begun()
{
	rqs[_pid] = 1
}

/* rq_quiet = __atomic_load_n(&c->rq_done) == rq */
inline rq_snap_done()
{
	atomic { rqs[_pid] = (rqs[_pid] && c_rq_busy == 0) }
}

/* r != 0 && rq_quiet && __atomic_load_n(&c->rq_begun) == rq
 * (RQ_ONE_COUNT: load(&c->requeues) == rq), the loads' part */
#define RQ_SAME	(rqs[_pid] == 1)

/* The count is exact: once every thread is done, no sleeper is left,
 * unless something happened that may leave it one too high: a
 * cancellation, or a 0 return without a wake (SPURIOUS); with the old
 * protocol (REQUEUE) also a timeout, EINTR or restart, and EAGAIN while a
 * requeue was under way, which no option guards (real bug 6). Run by each
 * thread as it ends (the last one's check is the one that counts). */
#ifdef REQUEUE
#define COUNT_KEPT_EXACT	(tmo_left == TIMEOUTS && eintr_left == EINTRS && \
				 restart_left == RESTARTS)
#else
#define COUNT_KEPT_EXACT	true
#endif
#ifdef NO_EXACT_CHECK
#define exact_at_end()	skip
#else
inline exact_at_end()
{
	if
	:: finished == NPROC && spur_left == SPURIOUS && cancel_left == CANCELS &&
	   COUNT_KEPT_EXACT -> assert(c_sleepers == 0)
	:: else -> skip
	fi
}
#endif

/* a broadcast's rq_begun += 1 (RQ_ONE_COUNT: requeues += 1), part of its
 * atomic step */
inline rq_bump()
{
	fw_i = 0;
	do
	:: fw_i < NWAIT -> if
			  :: rqs[fw_i] -> rqs[fw_i] = 0
			  :: else -> skip
			  fi; fw_i++
	:: else -> break
	od;
	fw_i = 0
}

/* mutex_took / mutex_release bookkeeping, as a ghost check */
inline took()
{
	assert(holder == 0);		/* mutual exclusion */
	holder = _pid + 1
}
inline released()
{
	assert(holder == _pid + 1);
	holder = 0
}

/* fthr_mutex_lock of a normal mutex: mutex_lock_fast's CAS 0->1, then
 * mutex_lock_slow: CAS, lll_spin, fthr_lll_wait (lll_lock is exactly that
 * sequence bar one redundant CAS) */
inline mutex_lock()
{
	lll_lock(M);
	took()
}

/* fthr_mutex_unlock -> mutex_release -> fthr_lll_unlock */
inline mutex_unlock()
{
	released();
	lll_unlock(M)
}

/* thr_mutex.c fthr_mutex_cond_lock(m, saved, marked) */
inline mutex_cond_lock(marked)
{
	if
	:: marked ->
		atomic { lold = mem[M]; mem[M] = 2 };	/* a_swap_acquire(w, 2) != 0 */
		ok = (lold == 0); lold = 0
	:: else -> lll_trylock(M, ok)			/* !fthr_lll_trylock(w) */
	fi;
	if
	:: !ok -> lll_wait(M, 0, lret); lret = 0	/* fthr_lll_wait(w, ..., NULL) */
	:: else -> skip
	fi;
	ok = 0;
	took()						/* mutex_took */
}

/* thr_cond.c count_out(c, n): a waker took n sleepers off the futex queue
 * (n = 0 and the step is skipped when it took none); n back to 0 */
inline count_out(n)
{
	if
	:: n > 0 -> atomic { SLEEPERS_ASSERT(c_sleepers >= n);	/* never negative */
		c_sleepers = c_sleepers - n; n = 0 }	/* fetch_sub(&c->sleepers, n) */
	:: else -> skip
	fi
}

/* a waiter counts itself out: FTHR_ASSERT(sleepers > 0); fetch_sub(1) */
inline self_out()
{
	atomic { SLEEPERS_ASSERT(c_sleepers > 0); c_sleepers-- }
}

/* fthr_futex_wake(&c->seq, n) whose result goes to count_out (wn: the
 * caller's scratch, 0 between uses); without exact counts, dropped */
#ifdef INEXACT
#define WAKE_OUT(n, wn)	futex_wake(SEQ, n)
#else
#define WAKE_OUT(n, wn)	futex_wake_cnt(SEQ, n, wn); count_out(wn)
#endif

#ifdef FLY
/* thr_cond.c wake_one(c): futex_wake(&c->seq, 1) counted; count_out; if it
 * woke nobody, a CAS: owed -> owed - 1 and wake again, or clear */
inline wake_one()
{
	do
	:: futex_wake_cnt(SEQ, 1, wn);
		if
		:: wn > 0 -> count_out(wn); break
		:: else ->
			if	/* the CAS: pay one owed meanwhile, or clear */
			:: atomic { c_owed > 0 -> c_owed-- }
#ifdef SEED_WAKE_STORE
			/* SEEDED BUG: the first form, a plain store */
			:: atomic { c_owed > 0 -> c_fly = 0; c_owed = 0 } -> break
#endif
			:: atomic { c_owed == 0 -> c_fly = 0 } -> break
			fi
		fi
	od
}

/* thr_cond.c wake_back(c): if flying: owed ? owed -= 1, wake_one : clear */
inline wake_back()
{
	if
	:: atomic { c_fly && c_owed > 0 ->
#ifdef SEED_FLY_DROP
		/* SEEDED BUG: the debt is dropped, not paid */
		c_fly = 0; c_owed = 0; pay = 0 } -> skip
#else
		c_owed--; pay = 1 } -> wake_one(); pay = 0
#endif
	:: atomic { c_fly && c_owed == 0 -> c_fly = 0 }
	:: atomic { !c_fly -> skip }
	fi
}
#define WAKE_BACK()	wake_back()
#else
#define WAKE_BACK()	skip
#endif

#ifdef RQ_SEQ
/* old thr_cond.c requeued_since(c, seq): (int)(rq_seq - seq) > 0 */
#define REQUEUED_SINCE(s) (c_rq_seq - (s) > 0)
#endif

/* thr_cond.c cond_wait(c, m, clk, abstime); res: F_OK, F_ETIMEDOUT or
 * F_CANCELLED (the cleanup ran: the mutex is held again, the thread
 * unwinds). */
inline cond_wait(timed, res)
{
	c_waiters++;				/* fthr_drain_enter(&c->waiters) */
	s = mem[SEQ];				/* w.seq = seq = a_load_relaxed(&c->seq) */
#ifdef REQUEUE
	c_mutex = 1;				/* old: c->mutex = m (private) */
#endif
	released(); lll_unlock(M);		/* fthr_mutex_cond_unlock -> mutex_release */
	if
	:: mem[SEQ] != s -> r = F_OK		/* FTHR_WAIT_EVENT(seq != s) */
	:: else ->
#if defined(REQUEUE) && !defined(INEXACT)
		rq_snap_begun();		/* old: rq = load(&c->rq_begun) */
#ifndef RQ_ONE_COUNT
		rq_snap_done();			/* old: rq_quiet = load(&c->rq_done) == rq */
#endif
#endif
		c_sleepers++;			/* fetch_add(&c->sleepers, 1) */
#if defined(REQUEUE) && !defined(RQ_SEQ)
		slept = 1;			/* old: slept = true */
#endif
#ifdef REQUEUE
		futex_wait_cancelable(SEQ, s, r, timed);
#else
		/* again while it returns EINTR, still counted (no wake-up
		 * took it off the queue: cond_wait's loop) */
		do
		:: futex_wait_cancelable(SEQ, s, r, timed);
			if
			:: r == F_EINTR -> skip
			:: else -> break
			fi
		od;
#endif
		if
#if defined(REQUEUE) && !defined(INEXACT)
		:: atomic { r == F_CANCELLED -> rqs[_pid] = 0 } ->
#else
		:: r == F_CANCELLED ->
#endif
			/* cond_cancelled(&w) */
#ifdef RQ_SEQ
			slept = REQUEUED_SINCE(s);	/* old: marked = requeued_since(c, seq) */
#endif
#ifdef INEXACT
			self_out();		/* w->sleeping && !counts_exact */
#endif
			/* (exact counts: it stays counted, one too many at worst) */
			WAKE_BACK();		/* if (counts_exact) wake_back(c) */
			WAKE_OUT(1, wn);	/* pass on what we may have taken */
			COND_LEAVE;		/* cond_leave */
#ifdef RQ_SEQ
			mutex_cond_lock(slept)	/* old: (m, saved, marked) */
#elif defined(REQUEUE)
			mutex_cond_lock(1)	/* old: (m, saved, true): it slept */
#else
			mutex_cond_lock(0)	/* fthr_mutex_cond_lock(m, saved) */
#endif
#ifdef INEXACT
		:: else ->
			self_out()		/* !counts_exact: fetch_sub(&c->sleepers, 1) */
#elif !defined(REQUEUE)
		/* not counted out by a waker: r != 0 */
#ifdef SEED_DOUBLE_OUT
		/* SEEDED BUG: a sleeper a signal woke, and counted out, counts
		 * itself out too */
		:: r != F_CANCELLED -> self_out()
#else
		:: r != F_CANCELLED && r != F_OK -> self_out()
		:: r == F_OK ->			/* woken: its waker counted it out */
			WAKE_BACK()		/* wake_back(c) */
#endif
#else
		/* old: counted out by a waker? r != 0 && rq_quiet &&
		 * load(&c->rq_begun) == rq (RQ_ONE_COUNT: load(&c->requeues) == rq) */
#ifdef SEED_NO_REQUEUE_CHECK
		/* SEEDED BUG: requeue counters ignored: a sleeper requeued onto the
		 * mutex word (counted out by the broadcast) that times out or
		 * is interrupted there counts itself out again */
		:: atomic { r != F_CANCELLED && r != F_OK -> rqs[_pid] = 0 } ->
			self_out()
		:: atomic { r == F_OK -> rqs[_pid] = 0 }
#else
		:: atomic { r != F_CANCELLED && r != F_OK && RQ_SAME -> rqs[_pid] = 0 } ->
			self_out()
		:: atomic { r != F_CANCELLED && (r == F_OK || !RQ_SAME) -> rqs[_pid] = 0 }
			/* woken (0: by a waker that counts it out), or maybe
			 * requeued (counted out by the broadcast) */
#endif
#endif
		fi
	fi;
	if
	:: r == F_CANCELLED -> skip
	:: else ->
		if
		:: r == F_ETIMEDOUT && mem[SEQ] != s -> r = F_OK
		:: else -> skip
		fi;
#ifdef RQ_SEQ
		slept = REQUEUED_SINCE(s);	/* old: marked = requeued_since(c, seq) */
#endif
		COND_LEAVE;			/* cond_leave(c) */
		mutex_cond_lock(slept)		/* fthr_mutex_cond_lock(m, saved); old: slept */
	fi;
	res = (r == F_ETIMEDOUT -> F_ETIMEDOUT : (r == F_CANCELLED -> F_CANCELLED : F_OK));
	r = 0; s = 0; slept = 0
}

/* thr_cond.c signal_sleepers(c, sn): sn sleepers read */
inline signal_sleepers()
{
#ifdef FLY
	/* the CAS loop's successful step */
	if
	:: atomic { c_fly && c_owed >= sn -> skip }
	:: atomic { c_fly && c_owed < sn -> c_owed++ }
	:: atomic { !c_fly -> c_fly = 1 } -> wake_one()
	fi
#else
	WAKE_OUT(1, wn)				/* count_out(c, futex_wake(&c->seq, 1)) */
#endif
}

/* thr_cond.c fthr_cond_flush, run by the holder's release of the mutex
 * once the word is released: the deferred wake of all (pend), with
 * sleepers read again. The condition must live until its last step: a
 * waiter is still inside (asserted), so the program cannot have destroyed
 * or freed it. */
inline flush()
{
	if
	:: pend == 0 -> skip
	:: else ->
		if
		:: c_sleepers > 0 -> WAKE_OUT(ALL, wn)	/* wake_all */
		:: else -> skip
		fi;
		assert(c_waiters > 0);
		c_defer--; pend = 0		/* fthr_drain_unhold */
	fi
}

/* thr_cond.c fthr_cond_hold, before the holder's release of the mutex:
 * a hold on the drain count if a thread is inside; none: no sleeper
 * either, the wake-up is dropped */
inline hold()
{
	if
	:: pend == 0 -> skip
	:: else ->
		if
		:: atomic { c_waiters > 0 -> c_defer++ }	/* fthr_drain_hold */
		:: atomic { c_waiters == 0 -> pend = 0 }
		fi
	fi
}

/* thr_cond.c fthr_cond_signal */
inline cond_signal()
{
	if
	:: c_waiters + c_defer == 0 -> skip	/* fthr_drain_count(&c->waiters) == 0 */
	:: else ->
#ifdef SEED_SIGNAL_NOSEQ
		/* SEEDED BUG: no fetch_add(&c->seq, 1): a waiter between its
		 * read of seq and its futex_wait compare misses the signal */
#else
		mem[SEQ]++;			/* fetch_add(&c->seq, 1) */
#endif
		if
		:: atomic { c_sleepers > 0 -> sn = c_sleepers } ->	/* n = load(&c->sleepers) */
			signal_sleepers()		/* (a signal wakes at once) */
		:: else -> skip
		fi;
		sn = 0
	fi
}

/* thr_cond.c fthr_cond_broadcast */
inline cond_broadcast()
{
	if
	:: c_waiters + c_defer == 0 -> skip	/* fthr_drain_count(&c->waiters) == 0 */
	:: else ->
		atomic { mem[SEQ]++; bseq = mem[SEQ] };	/* seq = add_fetch(&c->seq, 1) */
		if
		:: c_sleepers <= 0 -> skip	/* spinners see seq move */
		:: else ->
#if defined(REQUEUE) && !defined(SHARED)
			if
			:: c_mutex ->		/* old: m && fthr_mutex_requeue_ok(m) */
#ifdef RQ_SEQ
				c_rq_seq = bseq;	/* old: store(&c->rq_seq, seq) */
#endif
#ifdef INEXACT
				atomic { futex_cmp_requeue(SEQ, bseq, 1, M, ALL, rr, fw_k); fw_k = 0 };
				bdone = (rr == F_OK)
#else
#ifdef RQ_ONE_COUNT
				atomic { rq_bump() };	/* fetch_add(&c->requeues, 1) */
#else
				/* fetch_add(&c->rq_begun, 1): busy until rq_done += 1 */
				atomic { c_rq_busy++; rq_bump() };
#endif
				/* n = fthr_futex_cmp_requeue(...) */
				atomic { futex_cmp_requeue(SEQ, bseq, 1, M, ALL, rr, wn);
					bdone = (rr == F_OK); rr = 0 };
#ifndef RQ_ONE_COUNT
				c_rq_busy--;		/* fetch_add(&c->rq_done, 1) */
#endif
				/* if (n >= 0) count_out(c, n) */
				count_out(wn)		/* (0 after EAGAIN) */
#endif
			:: else -> skip
			fi;
#endif
			if
#ifdef DEFERS
			:: !bdone -> pend = 1		/* defer(c, s) */
#else
			:: !bdone -> WAKE_OUT(ALL, wn)	/* count_out(c, futex_wake(&c->seq, INT_MAX)) */
#endif
			:: else -> skip
			fi;
			skip			/* the wake word left alone */
		fi
	fi;
	bseq = 0; rr = 0; bdone = 0
}

inline wake_op()
{
#if defined(FLAGS) || defined(ONLY_BROADCAST)
	cond_broadcast()
#elif defined(ONLY_SIGNAL)
	cond_signal()
#else
	if
	:: true -> cond_signal()
	:: true -> cond_broadcast()
	fi
#endif
}

/* The waiter's predicate: a token (TOKENS program, signal or broadcast) or
 * its own flag (FLAGS program: only a broadcast is then guaranteed to wake
 * the right thread, so FLAGS implies ONLY_BROADCAST). */
#ifdef FLAGS
bit go[NWAIT];
#define READY		(go[_pid] != 0)
#define CONSUME		skip
#else
#define READY		(tokens > 0)
#define CONSUME		tokens--
#endif

active [NWAIT] proctype waiter()
{
	LLL_LOCALS;
	byte s, r, slept, res;		/* with RQ_SEQ, slept is the old marked */
	byte wn;			/* a wake's count (rq: rqs[_pid]) */
	bit pay;			/* wake_back: a debt taken, to pay */

	mutex_lock();				/* pthread_mutex_lock(m) */
	do
	:: READY -> break
	:: else ->
		/* fthr_cond_wait, or with TIMEOUTS fthr_cond_timedwait (which
		 * may also never time out: the budget is shared) */
		cond_wait(TIMEOUTS > 0, res);
		assert(holder == _pid + 1);		/* returns with the mutex */
		if
		:: res == F_CANCELLED ->		/* the caller's cleanup handler */
			mutex_unlock();
			goto out
		:: else -> skip
		fi
	od;
	CONSUME;
	mutex_unlock();
out:
	finished++;
	exact_at_end()
}

/* signaller j makes waiters j, j + NSIG, ... ready, one at a time */
active [NSIG] proctype signaller()
{
	LLL_LOCALS;
	byte bseq, rr, bdone, k, wn;	/* wn: a wake's or requeue's count */
	byte sn;			/* signal_sleepers: the sleepers it read */
	byte pend;			/* 1: its broadcast's wake-up is deferred */

	k = _pid - NWAIT;
	do
	:: k < NWAIT ->
		mutex_lock();
#ifdef FLAGS
		go[k] = 1;
#else
		tokens++;
#endif
#ifndef SIG_UNLOCKED
		wake_op();
		hold();				/* fthr_mutex_unlock: word_release */
		mutex_unlock();
		flush();
#else
		hold();
		mutex_unlock();
		flush();
		wake_op();
#endif
		k = k + NSIG
	:: else -> break
	od;
	finished++;
	exact_at_end()
}
