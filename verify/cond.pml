/* verify/cond.pml: the condition variable of lib/thr_cond.c, with the
 * private normal mutex it waits with (lib/thr_mutex.c, lib/lll.h) as the
 * target of the broadcast's requeue.
 *
 * Words: mem[SEQ] the cond's seq (futex word), mem[M] the mutex's lock word
 * (futex word, 0/1/2); c_waiters (the drain count), c_sleepers, c_mutex
 * (c->mutex set by a waiter) as plain shared ints.
 *
 * The re-take rule (thr_cond.c head comment, cond_wait, cond_cancelled): a
 * waiter that slept in futex_wait re-takes the mutex marked, with SWAP(2),
 * because a broadcast may have requeued it onto the mutex word; a spinner
 * (it never slept, so it was never requeued) takes it with CAS 0->1. The
 * cancellation cleanup always re-takes it marked (only a sleeper can be
 * cancelled in the wait).
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
 * ONLY_BROADCAST, FLAGS, SHARED (pshared cond: no requeue), FUTEX_FIFO,
 * TIMEOUTS, CANCELS, SPURIOUS, EINTRS (futex.pml).
 *
 * Checked: mutual exclusion on the mutex (assert), the mutex held on return
 * from a wait, and no deadlock / no lost wake-up: every thread reaches its
 * end (a waiter asleep on seq or on the mutex word while the others are
 * done is an invalid end state; there are always enough tokens for it).
 *
 * REAL BUG 1 (see README.md), now fixed in the C code: the old rule marked
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
 * Seeded bug (run seeded/cond_signal_noseq, with -DONLY_SIGNAL; must fail):
 *   -DSEED_SIGNAL_NOSEQ  fthr_cond_signal does not bump seq: a waiter that
 *             has not yet slept (spinning, or counted in sleepers but not
 *             yet compared) misses the signal and sleeps forever (invalid
 *             end state).
 */
#ifndef NWAIT
#define NWAIT 2
#endif
#ifndef NSIG
#define NSIG 1
#endif
#define NPROC (NWAIT + NSIG)
#define NADDR 3
#define M 1			/* the mutex's __data.__lock */
#define SEQ 2			/* the cond's seq */

#include "lll.pml"

byte c_waiters;			/* struct cond waiters (drain.h count) */
byte c_sleepers;		/* struct cond sleepers */
bit c_mutex;			/* struct cond mutex != NULL */
#ifdef RQ_SEQ
int c_rq_seq;			/* old struct cond rq_seq */
#endif
byte tokens;			/* the program's predicate, under the mutex */
byte holder;			/* _pid + 1 of the mutex holder (ghost) */
byte finished;			/* threads finished (ghost) */

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
	c_mutex = 1;				/* c->mutex = m (private) */
	released(); lll_unlock(M);		/* fthr_mutex_cond_unlock -> mutex_release */
	if
	:: mem[SEQ] != s -> r = F_OK		/* FTHR_SPIN_UNTIL(seq != s) */
	:: else ->
		c_sleepers++;			/* fetch_add(&c->sleepers, 1) */
#ifndef RQ_SEQ
		slept = 1;			/* slept = true */
#endif
		futex_wait_cancelable(SEQ, s, r, timed);
		if
		:: r == F_CANCELLED ->
			/* cond_cancelled(&w) */
#ifdef RQ_SEQ
			slept = REQUEUED_SINCE(s);	/* old: marked = requeued_since(c, seq) */
#endif
			c_sleepers--;		/* fetch_sub(&c->sleepers, 1) */
			futex_wake(SEQ, 1);	/* pass on what we may have taken */
			c_waiters--;		/* fthr_drain_leave */
#ifdef RQ_SEQ
			mutex_cond_lock(slept)	/* old: (m, saved, marked) */
#else
			mutex_cond_lock(1)	/* (m, saved, true): it slept */
#endif
		:: else ->
			c_sleepers--		/* fetch_sub(&c->sleepers, 1) */
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
		c_waiters--;			/* fthr_drain_leave(&c->waiters) */
		mutex_cond_lock(slept)		/* fthr_mutex_cond_lock(m, saved, slept) */
	fi;
	res = (r == F_ETIMEDOUT -> F_ETIMEDOUT : (r == F_CANCELLED -> F_CANCELLED : F_OK));
	r = 0; s = 0; slept = 0
}

/* thr_cond.c fthr_cond_signal */
inline cond_signal()
{
	if
	:: c_waiters == 0 -> skip		/* fthr_drain_count(&c->waiters) == 0 */
	:: else ->
#ifdef SEED_SIGNAL_NOSEQ
		/* SEEDED BUG: no fetch_add(&c->seq, 1): a waiter between its
		 * read of seq and its futex_wait compare misses the signal */
#else
		mem[SEQ]++;			/* fetch_add(&c->seq, 1) */
#endif
		if
		:: c_sleepers != 0 -> futex_wake(SEQ, 1)
		:: else -> skip
		fi
	fi
}

/* thr_cond.c fthr_cond_broadcast */
inline cond_broadcast()
{
	if
	:: c_waiters == 0 -> skip		/* fthr_drain_count(&c->waiters) == 0 */
	:: else ->
		atomic { mem[SEQ]++; bseq = mem[SEQ] };	/* seq = add_fetch(&c->seq, 1) */
		if
		:: c_sleepers == 0 -> skip	/* spinners see seq move */
		:: else ->
#ifndef SHARED
			if
			:: c_mutex ->		/* m && fthr_mutex_requeue_ok(m) */
#ifdef RQ_SEQ
				c_rq_seq = bseq;	/* old: store(&c->rq_seq, seq) */
#endif
				futex_cmp_requeue(SEQ, bseq, 1, M, ALL, rr);
				bdone = (rr == F_OK)
			:: else -> skip
			fi;
#endif
			if
			:: !bdone -> futex_wake(SEQ, ALL)
			:: else -> skip
			fi
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
	finished++
}

/* signaller j makes waiters j, j + NSIG, ... ready, one at a time */
active [NSIG] proctype signaller()
{
	LLL_LOCALS;
	byte bseq, rr, bdone, k;

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
		mutex_unlock();
#else
		mutex_unlock();
		wake_op();
#endif
		k = k + NSIG
	:: else -> break
	od;
	finished++
}
