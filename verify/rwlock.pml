/* verify/rwlock.pml: the read-write lock of lib/thr_rwlock.c (with
 * lib/rwlock.h and lib/thr_rwlock_sleep.c).
 *
 * The state word (WRITER, WR_WAIT, RD_WAIT, readers) is four fields updated
 * together in atomic steps (the C code's CAS / fetch_or / fetch_and /
 * and_fetch / sub_fetch on the one word). The internal low-level lock
 * 'lock' is mem[LOCK] with lll.pml's 0/1/2 protocol; rwait/wwait are plain
 * ints under it.
 *   pshared (default): readers sleep on mem[RSEQ], writers on mem[WSEQ].
 *   -DPRIVATE: the private queue hand-over; each sleeper queues itself
 *     (queued[_pid]) and sleeps on its own 'handed' word mem[H0 + _pid].
 *     All threads have priority 0 (SCHED_OTHER), so wake_queued hands the
 *     lock to a queued writer if the kind prefers writers or no reader is
 *     queued, else to every queued reader; the queue order only decides
 *     WHICH writer, and that choice is left nondeterministic here. hand()
 *     skips a sleeper whose 'handed' is 1 already (handed, not run since).
 *     'pending' (in rseq's place): set to 1 (seq_cst exchange, under lock)
 *     by a sleeper at the top of every round of rw_sleep_loop's loop (with
 *     self.handed = 0 first; it leaves the loop only in a round that set
 *     it, under the same hold of the lock, so the dequeue need not);
 *     set to 0 by wake_queued once it has made its choice (under lock,
 *     before it hands); an unlock that left the lock free with a WAIT bit
 *     set (wake_if_free) reads it with an RMW after its state RMW and
 *     takes the lock to wake only if it reads 1.
 * Kind: writer-preferring (PTHREAD_RWLOCK_PREFER_WRITER_NP, the default
 * here), or -DPREFER_READER (PTHREAD_RWLOCK_PREFER_READER_NP).
 *
 * Threads: NR readers, NW writers, each taking the lock ITERS times (with
 * TIMEOUTS, the timed variants, which may fail with ETIMEDOUT). With
 * -DRECURSIVE_READ a reader takes its read lock twice (nested), the case
 * the rdlocks count exists for. With -DFOREVER the threads loop forever
 * (for the liveness property below).
 *
 * Checked:
 *   safety     readers and a writer never hold the lock together, at most
 *              one writer (assert); no deadlock and no lost wake-up (every
 *              thread reaches its end; a sleeper left asleep is an invalid
 *              end state).
 *   liveness   (-DFOREVER -DLTL_WRITER, pan -a -f: weak fairness) in a
 *              writer-preferring kind a writer that has registered (set
 *              WR_WAIT in rw_sleep_loop) eventually holds the lock:
 *              [] (wreg -> <> whold): readers cannot overtake it and its
 *              wake-up is not lost. With -DPREFER_READER the same property
 *              fails (readers may starve a writer there, as documented),
 *              which shows the property has teeth.
 *              Not claimed: progress BEFORE registering. The writer first
 *              takes the internal lock, a barging 0/1/2 lock (as glibc's):
 *              a reader cycling through its unlock's wake path can win that
 *              lock every time, which weak fairness does not exclude, so
 *              [] (wants -> <> holds) fails in the model for that reason
 *              alone (not a protocol bug; the window is a few
 *              instructions long).
 *
 * -DHOLDER (glibc's tst-rwlock15): reader 0 holds its read lock until
 * reader 1 has been inside; only the writer's wrlock is timed (TIMEOUTS).
 * Reader 1 may sleep behind the writer's WR_WAIT (writer-preferring kind)
 * or its WRITER; once the writer timed out or unlocked, reader 1 must be
 * let in though reader 0 still reads (or slipped in before the waker), as
 * no unlock will make the lock free first: wake_locked wakes the readers
 * that may join the holders.
 *   -DNO_READER_WAKE  the protocol before that fix (wake_locked woke
 *              nobody while readers held the lock; realbug/rwlock-holder,
 *              realbug/rwlock-private-holder): reader 1 sleeps for good
 *              (invalid end state).
 *
 * Seeded bugs (runs seeded/rwlock_seq_late, seeded/rwlock_pending_noresleep,
 * which must fail):
 *   -DSEED_SEQ_LATE  the pshared sleeper reads rseq/wseq only after it
 *              released the internal lock: a wake between the two is
 *              missed (invalid end state).
 *   -DSEED_PENDING_NORESLEEP  (PRIVATE) a handed sleeper about to try again
 *              clears self.handed but does not set pending: if its try
 *              fails (a thread that was not queued took the lock first) it
 *              sleeps, and the holder's unlock reads pending 0 (the
 *              hand-over that chose it cleared it) and wakes nobody
 *              (invalid end state; the run has -DNR=1 -DNW=2: with one
 *              writer, the only writer that could take the lock first is
 *              the one handed, and readers keep off WR_WAIT).
 *   -DPENDING_DEQ  (PRIVATE; not in run.sh, it passes) the sleeper
 *              that leaves sets pending again when it dequeues itself, as
 *              the C code did at first: it repeats the exchange made under
 *              the same hold of the internal lock at the top of the round,
 *              and was dropped as redundant.
 */
#ifndef NR
#define NR 2
#endif
#ifndef NW
#define NW 1
#endif
#ifndef ITERS
#define ITERS 1
#endif
#define NPROC (NR + NW)
#define LOCK 1			/* struct rwlock lock (lll.h) */
#define RSEQ 2			/* struct rwlock rseq */
#define WSEQ 3			/* struct rwlock wseq */
#define H0 4			/* private: waiter.handed of thread p is mem[H0 + p] */
#define NADDR (H0 + NPROC)

#include "lll.pml"

#ifdef PREFER_READER
#define PREFERS_WRITERS 0
#else
#define PREFERS_WRITERS 1
#endif

/* pshared sequence words wrap (as 32-bit ints do) at SEQMOD; only the
 * forever-looping liveness model needs a small bound. It must exceed the
 * number of wake_locked calls that can fall between a sleeper's read of
 * its seq and its futex_wait (at most one per other thread here: with a
 * writer registered, readers can neither take the lock nor unlock it
 * again); SEQMOD=2 with two readers gives a false (ABA) starvation trace,
 * SEQMOD=3 is enough for NR=2, NW=1. */
#ifndef SEQMOD
#define SEQMOD 256
#endif

#define EBUSY 16

/* struct rwlock state */
bit st_writer, st_wrwait, st_rdwait;
byte st_readers;
byte rwait, wwait;		/* struct rwlock rwait, wwait (under lock) */
#ifdef PRIVATE
bit queued[NPROC];		/* struct rwlock queue membership */
bit pending;			/* struct rwlock pending (private) */
#endif

byte nread, nwrite;		/* ghost: holders */
#ifdef HOLDER
bit r1in;			/* the program's flag: reader 1 was inside */
#define RD_TIMED 0		/* only the writer waits with a deadline */
#else
#define RD_TIMED (TIMEOUTS > 0)
#endif
bit wreg, whold;		/* ghost, liveness: writer NR registered (its
				 * WR_WAIT set, in rw_sleep_loop) / holds */

/* rwlock.h try_read_as(l, handed): one attempt, r = 0 or EBUSY */
inline try_read_as(handed, r)
{
	atomic {
		if
		:: st_writer -> r = EBUSY
		:: !st_writer && st_wrwait && PREFERS_WRITERS && !handed && rdlocks == 0 ->
			r = EBUSY
		:: else -> st_readers++; rdlocks++; r = 0	/* CAS s -> s + 1 */
		fi
	}
}

/* rwlock.h try_write: CAS to WRITER while no WRITER and no readers */
inline try_write(r)
{
	atomic {
		if
		:: !st_writer && st_readers == 0 -> st_writer = 1; r = 0
		:: else -> r = EBUSY
		fi
	}
}

#ifdef PRIVATE
/* thr_rwlock_sleep.c hand(w): if (w->handed) return (handed by an earlier
 * unlock and not run since: not woken again); w->handed = 1;
 * futex_wake(&w->handed, 1) */
inline hand(p)
{
	if
	:: mem[H0 + p] != 0 -> skip
	:: else ->
		mem[H0 + p] = 1;
		futex_wake(H0 + p, 1)
	fi
}

/* thr_rwlock_sleep.c wake_queued, all priorities 0: bw = a queued writer (the
 * first in queue order; any one here), rmax = 0 if a reader is queued;
 * tie_to_writer = bw && prefers_writers. */
inline wake_queued()
{
	wq_i = NR; wq_c = 0;
	do
	:: wq_i < NPROC -> if :: queued[wq_i] -> wq_c++ :: else -> skip fi; wq_i++
	:: else -> break
	od;
	wq_bw = NPROC; wq_i = NR;
	do
	:: wq_i < NPROC && queued[wq_i] && wq_bw == NPROC -> wq_bw = wq_i; wq_c--; wq_i++
	:: wq_i < NPROC && queued[wq_i] && (wq_bw != NPROC || wq_c > 1) -> wq_c--; wq_i++
	:: wq_i < NPROC && !queued[wq_i] -> wq_i++
	:: wq_i >= NPROC -> break
	od;
	wq_i = 0; wq_r = 0;
	do
	:: wq_i < NR -> if :: queued[wq_i] -> wq_r = 1 :: else -> skip fi; wq_i++
	:: else -> break
	od;
	/* a_store_relaxed(&l->pending, 0): this choice wakes whom a next one
	 * would choose, until the queue changes */
	pending = 0;
	/* if (bw && (bw->prio > rmax || (bw->prio == rmax && tie_to_writer))) */
	if
	:: wq_bw < NPROC && (!wq_r || PREFERS_WRITERS) -> hand(wq_bw)
	:: else ->
		/* every reader with !bw || prio > || (== && !tie_to_writer) */
		wq_i = 0;
		do
		:: wq_i < NR && queued[wq_i] -> hand(wq_i); wq_i++
		:: wq_i < NR && !queued[wq_i] -> wq_i++
		:: else -> break
		od
	fi;
	wq_i = 0; wq_r = 0; wq_bw = 0; wq_c = 0
}
#endif

/* thr_rwlock_sleep.c fthr_rw_wake_locked: under lock. Nobody while
 * WRITER; while readers hold the lock, the sleeping readers if no writer
 * sleeps or the kind prefers readers (all priorities 0; private: handed,
 * pending left as it is); when free, the rules' choice.
 * -DNO_READER_WAKE: nobody while readers hold it, the protocol before
 * tst-rwlock15's fix. */
inline wake_locked()
{
	if
	:: st_writer -> skip				/* s & WRITER */
	:: !st_writer && st_readers > 0 ->		/* s & READERS */
#ifdef NO_READER_WAKE
		skip
#else
		if
		:: wwait == 0 || !PREFERS_WRITERS ->
#ifdef PRIVATE
			wq_i = 0;			/* wake_queued(l, true) */
			do
			:: wq_i < NR && queued[wq_i] -> hand(wq_i); wq_i++
			:: wq_i < NR && !queued[wq_i] -> wq_i++
			:: else -> break
			od;
			wq_i = 0
#else
			if
			:: rwait > 0 ->
				mem[RSEQ] = (mem[RSEQ] + 1) % SEQMOD;
				futex_wake(RSEQ, ALL)
			:: else -> skip
			fi
#endif
		:: else -> skip
		fi
#endif
	:: !st_writer && st_readers == 0 ->
#ifdef PRIVATE
		wake_queued()
#else
		if
		:: wwait > 0 && (PREFERS_WRITERS || rwait == 0) ->
			mem[WSEQ] = (mem[WSEQ] + 1) % SEQMOD;	/* fetch_add(&wseq, 1) */
			futex_wake(WSEQ, 1)
		:: else ->
			if
			:: rwait > 0 ->
				mem[RSEQ] = (mem[RSEQ] + 1) % SEQMOD;
				futex_wake(RSEQ, ALL)
			:: else -> skip
			fi
		fi
#endif
	fi
}

/* thr_rwlock_sleep.c rw_sleep_loop(l, writer, ..., timed); r: 0 or
 * F_ETIMEDOUT */
inline rw_sleep_loop(writer, timed, r)
{
	timed_out = 0;
	lll_lock(LOCK);
	if						/* (*count)++ */
	:: writer -> wwait++
	:: else -> rwait++
	fi;
	if						/* fetch_or(&state, bit) */
	:: writer -> atomic { st_wrwait = 1; wreg = (wreg || _pid == NR) }
	:: else -> st_rdwait = 1
	fi;
#ifdef PRIVATE
	queued[_pid] = 1;				/* *pp = &self */
#endif
	do						/* for (;;) */
	::
#ifdef PRIVATE
	   /* self.handed = 0; xchg(&l->pending, 1): queued, or about to
	    * sleep again (handed is the local: self.handed as read after the
	    * last lll_lock) */
	   mem[H0 + _pid] = 0;				/* self.handed = 0 */
#ifdef SEED_PENDING_NORESLEEP
	   /* SEEDED BUG: a handed sleeper does not tell the next hand-over
	    * that it may sleep again */
	   if
	   :: !handed -> pending = 1
	   :: else -> skip
	   fi;
#else
	   pending = 1;					/* __atomic_exchange_n(&l->pending, 1) */
#endif
#endif
	   if						/* r = writer ? try_write(l) */
	   :: writer -> try_write(r)
	   :: else -> try_read_as(handed, r)		/*   : try_read_as(l, handed) */
	   fi;
	   if
	   :: r != EBUSY || timed_out -> break
	   :: else -> skip
	   fi;
#ifdef PRIVATE
	   lll_unlock(LOCK);
	   do						/* while (!self.handed && !timed_out) */
	   :: mem[H0 + _pid] == 0 && !timed_out ->
		futex_wait(H0 + _pid, 0, fr, timed);
		timed_out = (fr == F_ETIMEDOUT); fr = 0
	   :: else -> break
	   od;
	   lll_lock(LOCK);
	   handed = mem[H0 + _pid]			/* handed = self.handed */
#else
#ifdef SEED_SEQ_LATE
	   /* SEEDED BUG: read the sequence word after dropping the internal
	    * lock: an unlock's wake_locked between the try and this read is
	    * missed (its seq bump is read as the value to sleep on) */
	   lll_unlock(LOCK);
#endif
	   if
	   :: writer -> seq = mem[WSEQ]			/* seq = a_load_relaxed(seqw) */
	   :: else -> seq = mem[RSEQ]
	   fi;
#ifndef SEED_SEQ_LATE
	   lll_unlock(LOCK);
#endif
	   if
	   :: writer -> futex_wait(WSEQ, seq, fr, timed)
	   :: else -> futex_wait(RSEQ, seq, fr, timed)
	   fi;
	   timed_out = (fr == F_ETIMEDOUT); fr = 0; seq = 0;
	   lll_lock(LOCK)
#endif
	od;
#ifdef PRIVATE
	queued[_pid] = 0;				/* dequeue self */
#ifdef PENDING_DEQ
	pending = 1;					/* xchg(&l->pending, 1) */
#endif
	handed = 0;
#endif
	if						/* --(*count) == 0 -> fetch_and(~bit) */
	:: writer -> wreg = (wreg && _pid != NR); wwait--;
		if
		:: wwait == 0 -> st_wrwait = 0
		:: else -> skip
		fi
	:: else -> rwait--;
		if
		:: rwait == 0 -> st_rdwait = 0
		:: else -> skip
		fi
	fi;
	if
	:: r == EBUSY ->			/* timed out: pass it on */
		wake_locked();
		r = F_ETIMEDOUT
	:: else -> skip
	fi;
	lll_unlock(LOCK);
	timed_out = 0
}

/* thr_rwlock.c rdlock: try_read, FTHR_WAIT_LOCK(try_read), rw_sleep_loop */
inline rdlock(timed, r)
{
	try_read_as(0, r);
	if
	:: r == EBUSY ->
		try_read_as(0, r);			/* the spin's attempt(s) */
		if
		:: r == EBUSY -> rw_sleep_loop(0, timed, r)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* thr_rwlock.c wrlock */
inline wrlock(timed, r)
{
	try_write(r);
	if
	:: r == EBUSY ->
		try_write(r);
		if
		:: r == EBUSY -> rw_sleep_loop(1, timed, r)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* thr_rwlock.c fthr_rwlock_unlock */
inline rw_unlock(writer)
{
	atomic {
		if
		:: writer -> st_writer = 0			/* and_fetch(&state, ~WRITER) */
		:: else -> st_readers--; rdlocks--		/* sub_fetch(&state, 1) */
		fi;
		n_wait = (st_wrwait || st_rdwait);
		n_free = (!st_writer && st_readers == 0)
	};
	/* wake_if_free(l, n) */
	if
	:: n_wait && n_free ->
		n_wait = 0; n_free = 0;
#ifdef PRIVATE
		/* fetch_add(&l->pending, 0) == 0: nobody to hand over to but
		 * sleepers handed already, who have not run yet */
		if
		:: pending == 0 -> skip
		:: else ->
			lll_lock(LOCK);
			wake_locked();
			lll_unlock(LOCK)
		fi
#else
		lll_lock(LOCK);
		wake_locked();
		lll_unlock(LOCK)
#endif
	:: else -> n_wait = 0; n_free = 0
	fi
}

#ifdef FOREVER
#define MORE true
#else
#define MORE (i < ITERS)
#endif

active [NR] proctype reader()
{
	LLL_LOCALS;
	byte r, seq, i, rdlocks;
	bit timed_out, handed, n_wait, n_free;
	byte wq_i, wq_r, wq_bw, wq_c;

	do
	:: MORE ->
		rdlock(RD_TIMED, r);
		if
		:: r == 0 ->
#ifdef RECURSIVE_READ
			rdlock(0, r);			/* nested: must not wait */
			assert(r == 0);
#endif
			nread++;
			assert(nwrite == 0);
#ifdef HOLDER
			if			/* reader 0 waits for reader 1 */
			:: _pid == 0 -> r1in
			:: else -> r1in = 1
			fi;
#endif
			nread--;
#ifdef RECURSIVE_READ
			rw_unlock(0);
#endif
			rw_unlock(0)
		:: else -> skip
		fi;
		r = 0;
#ifndef FOREVER
		i++
#endif
	:: !(MORE) -> break
	od
}

active [NW] proctype writer()
{
	LLL_LOCALS;
	byte r, seq, i, rdlocks;
	bit timed_out, handed, n_wait, n_free;
	byte wq_i, wq_r, wq_bw, wq_c;

	do
	:: MORE ->
		wrlock(TIMEOUTS > 0, r);
		if
		:: r == 0 ->
			nwrite++;
			if
			:: _pid == NR -> whold = 1
			:: else -> skip
			fi;
			assert(nwrite == 1 && nread == 0);
			nwrite--;
			if
			:: _pid == NR -> whold = 0
			:: else -> skip
			fi;
			rw_unlock(1)
		:: else -> skip				/* ETIMEDOUT */
		fi;
		r = 0;
#ifndef FOREVER
		i++
#endif
	:: !(MORE) -> break
	od
}

#ifdef LTL_WRITER
ltl writer_progress { [] (wreg -> <> whold) }
#endif
