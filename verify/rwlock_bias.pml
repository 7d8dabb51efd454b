/* verify/rwlock_bias.pml: the reader bias of lib/thr_rwlock_bias.c (BRAVO
 * with per-thread reader slots; see "Reader bias" in the file's head
 * comment; its fast paths: lib/rwlock_bias.h).
 *
 * Modeled, step by step (each shared access its own step, sequentially
 * consistent: the C code uses SEQ_CST on the slot XCHGs, the bias store
 * and CAS, the re-read of bias after publishing, and the rev RMWs; one
 * load it does not make SEQ_CST, biased_release's relaxed load of rev,
 * is discussed in README.md, and -DSEED_REV_FIRST (below) shows what its
 * reordering would do):
 *   bias      OFF / ON / DIRTY, and bepoch, the C word's epoch above the
 *             mode bits (+1 at every OFF -> ON, mod EPOCHMOD); one
 *             atomic step updates both, as the C code's CAS on one word.
 *   slots     NSLOT per reader thread (slot[p * NSLOT + j]; one lock is
 *             modeled, so a slot is NULL (0) or l (1)). Every reader has
 *             its block (rblock_claim succeeded; a thread without one
 *             reads through state, a subset of what is modeled); writers
 *             never read, so they have none and revoke never sees its own
 *             slot (EDEADLK is not modeled).
 *   rev       mem[REV], a futex word: the revokers at work in the low
 *             bits (REVS, the C code's low byte), +REV_SEEN per biased
 *             release seen while there were any.
 *   try_read_biased   bias == ON (acquire load); first free own slot;
 *             XCHG(slot, l); re-read bias (SEQ_CST): ON -> held (rdlocks,
 *             rbheld); else biased_release and the state path.
 *   biased_release   XCHG(slot, NULL); if (rev & REVS) revoke_wake:
 *             rev += REV_SEEN, futex_wake(rev, INT_MAX).
 *   unlock    rbheld and one of the caller's slots holds l -> biased
 *             release of the first such slot (unlock_biased); else the
 *             state unlock.
 *   maybe_bias   after a read lock through state on rdlock's fast path
 *             and in tryrdlock (not after rdlock_slow): bias == OFF and no
 *             revoker at work (rev & REVS), then (streak: nondeterministic,
 *             either counting up or reached) state has no WR_WAIT
 *             (writer-preferring kinds only) ->
 *             CAS(bias, (e, OFF) -> (e + 1, ON)), e the epoch the first
 *             look saw. The reader holds its read lock through state all
 *             along.
 *             Every kind (the writer does not hold WRITER while it waits
 *             for biased readers, below).
 *             Writer-preferring kinds, after a successful CAS: state is
 *             read again and a WR_WAIT set meanwhile stops the bias
 *             (bias_stop).
 *   bias_stop wrlock's entry: bias == ON -> CAS(ON -> DIRTY). A writer
 *             of a writer-preferring kind that registers (sets WR_WAIT)
 *             does it again, so a bias turned on after the first cannot
 *             let new readers pass it while it sleeps.
 *   write_acquired   holding WRITER: bias == OFF -> done; else
 *             write_release (WRITER given back), then revoke holding
 *             nothing; success -> the writer tries again from the start
 *             (AGAIN), failure -> its error (bias left DIRTY).
 *   revoke    rev += 1; CAS(bias, (e, ON) -> (e, DIRTY)), e the epoch
 *             now (one step: the C code's load-CAS loop); for every slot:
 *             while slot == l { v = rev; !wait -> EBUSY; slot == l ->
 *             futex_wait(rev, v) (timed: may time out) }; rev -= 1;
 *             success -> CAS(bias, (e, DIRTY) -> (e, OFF)). Several
 *             writers may revoke at once.
 *   -DNO_EPOCH: the protocol before 2026-12-01 (no epoch: OFF -> ON
 *             with a store, the revoker's CAS(ON -> DIRTY) before rev += 1,
 *             its final CAS(DIRTY -> OFF) of whatever epoch), kept to show
 *             real bug 4 below.
 *   trywrlock try_write; write_acquired without waiting; AGAIN -> once
 *             more (EBUSY: WRITER given back).
 *   -DREVOKE_HOLDING_WRITER: the protocol before 2026-11-30 (the writer
 *             revoked holding WRITER; bias for writer-preferring kinds
 *             only in C), kept to show the real bugs below.
 * The state path is abstracted: state is WRITER, the reader count and
 * WR_WAIT (the count of writers that registered to sleep), each update one
 * atomic step. A thread that would spin and sleep (rdlock_slow,
 * wrlock_slow's rw_sleep_loop) blocks until its try would succeed; that
 * this waiting loses no wake-up is rwlock.pml's result. A writer that
 * failed its first try_write may register (WR_WAIT; that is, it sleeps) or
 * not (it got the lock while spinning). Kind: writer-preferring (a reader
 * holding no read lock waits while WR_WAIT), or -DPREFER_READER (glibc's
 * and fthr's default: readers wait only for WRITER). The state path's
 * timeouts are not modeled; the revoke's are (-DTIMEOUTS=n: timedwrlock,
 * the futex_wait on rev may time out; fthr_abstime_check before it is the
 * same outcome).
 *
 * Threads: NR readers, NW writers, ITERS rounds each. A reader's round is
 * rdlock or tryrdlock (either); a writer's wrlock (timed with TIMEOUTS) or
 * trywrlock. -DRECURSIVE_TRY: inside its read lock a reader takes a nested
 * tryrdlock (a second slot with NSLOT=2).
 *
 * Real bug (README, real bug 3; fixed: nested reads nest on the hold,
 * FIX_NESTED, and the writer revokes holding nothing), shown with
 * -DREVOKE_HOLDING_WRITER: a read lock held through a slot is invisible to
 * state, so a writer takes WRITER and waits in revoke for that reader, and
 * meanwhile every read through state waits for WRITER:
 *   -DRECURSIVE_READ   a nested rdlock, which fthr promises never waits
 *             behind a writer (try_read_as's rdlocks exception): deadlock
 *             (invalid end state) when the outer hold is biased.
 *   -DHANDOFF -DPREFER_READER   reader 0, in its last round, holds its read
 *             lock until reader 1 has been inside (a program that is
 *             deadlock-free when readers wait only for a writer that holds
 *             the lock, the reader-preferring kinds' promise): deadlock.
 *             -DNOBIAS (the bias never goes on) is the control: no error.
 *   -DFIX_NESTED   a candidate fix for the first (not the C code): a read
 *             of a lock the caller already holds through a slot nests on
 *             that hold (a count in the thread's record; no new slot, no
 *             bias check). The hold it nests on keeps any revoker waiting
 *             until the count is back to 0, so this is safe; it does not
 *             help HANDOFF.
 * Real bug 4 (README; fixed by the epoch), shown with -DNO_EPOCH -DNR=1
 *   -DNW=2 -DITERS=3 (qemu-aarch64 hit it once in ~900 runs of
 *   t_rwlock's contention test: a writer and a reader in at once): writer
 *   A's scan passes the reader's slot; another revoker ends and turns the
 *   bias OFF; the reader (through state) turns it ON, then reads through
 *   its slot; writer B makes it DIRTY; A ends its scan and turns it OFF;
 *   A takes WRITER with the bias OFF while the reader is inside.
 *
 * Real bug 7 (README), -DNO_REBIAS_STOP: without the two looks after
 *   WR_WAIT and after bias ON, a reader's maybe_bias that read no WR_WAIT
 *   turns the bias on after a writer registered, and readers holding
 *   nothing pass that writer through their slots for as long as it sleeps
 *   (glibc's tst-rwlock15 saw a tryrdlock succeed beside a waiting writer
 *   until the writer timed out): assertion violated (REBIAS_CHECK).
 *
 * Seeded bugs (runs seeded/rwlock_bias_*, default threads; each must
 * fail):
 *   -DSEED_NOREREAD   the biased reader does not re-read bias after its
 *             XCHG(slot, l): a revoker that scanned the slot before it lets
 *             its writer in beside the reader (assertion violated).
 *   -DSEED_NOWAKE     biased_release clears the slot but never looks at
 *             rev: the revoker asleep on rev is not woken (invalid end
 *             state).
 *   -DSEED_REV_FIRST  biased_release reads rev before it clears the slot
 *             (the order the relaxed load allows on weak hardware): a
 *             revoker counted in between sleeps for good (invalid end
 *             state).
 *   -DSEED_NORECHECK  the revoker sleeps on v = rev without looking at the
 *             slot again: a release between its slot load and its load of
 *             v is missed (invalid end state).
 *   -DSEED_LATE_ON    maybe_bias runs after the read unlock instead of
 *             under the read lock: the bias goes ON while a writer that
 *             found it OFF is inside, and the next reader holds beside it
 *             (assertion violated).
 *   -DSEED_TRYWR_NOREVOKE  trywrlock takes WRITER without write_acquired,
 *             and the writer's "bias == OFF" assertion is left out: spin
 *             finds trywrlock succeeding beside a biased reader (assertion
 *             violated).
 *
 * Checked:
 *   writer's critical section: it is the only writer, no reader is inside
 *     (through state or a slot), no biased hold exists (nbias: from the
 *     reader's ON re-read to its XCHG(slot, NULL)), and bias is OFF.
 *   reader's critical section: no writer inside.
 *   writer-preferring kinds: a reader holding no read lock enters through
 *     its slot while a writer is registered only within the window of a
 *     writer's or reader's look (REBIAS_CHECK, nwin).
 *   trywrlock succeeding: no biased hold exists (the same assertion).
 *   no deadlock and no lost wake-up: every thread reaches its end (a
 *     revoker left asleep on rev is an invalid end state); the last thread
 *     to end checks that all slots are free, state is free, rev's bit 0 is
 *     clear (no revoker) and nobody sleeps.
 */
#ifndef NR
#define NR 2
#endif
#ifndef NW
#define NW 1
#endif
#ifndef ITERS
#define ITERS 2
#endif
#ifndef NSLOT
#define NSLOT 1
#endif
#ifndef REVMOD
#define REVMOD 64		/* bound on rev, asserted (no wrap to model): rev
				 * moves by 2 at most once per read lock call */
#endif
#define NPROC (NR + NW)
#define REV 1			/* struct rwlock rev */
#define NADDR 2

#include "futex.pml"

#ifdef PREFER_READER
#define PREFERS_WRITERS 0
#else
#define PREFERS_WRITERS 1
#endif

#define OFF 0			/* BIAS_OFF */
#define ON 1			/* BIAS_ON */
#define DIRTY 2			/* BIAS_DIRTY */
#define EBUSY 16
#define AGAIN 11		/* EAGAIN: write_acquired revoked, try again */
#ifdef REVOKE_HOLDING_WRITER
#define REVS 1			/* rev: bit 0 = a revoker waits */
#define REV_SEEN 2
#else
#define REVS 3			/* rev: revokers at work (NW <= 3) */
#define REV_SEEN 4
#endif

byte bias = OFF;		/* struct rwlock bias: its mode bits */
#ifndef EPOCHMOD
#define EPOCHMOD 8		/* bound of the modeled epoch (wraps) */
#endif
byte bepoch;			/* struct rwlock bias: its epoch */
bit slot[NR * NSLOT];		/* the readers' slots: 1 = holds l */
#define SL(j) (_pid * NSLOT + (j))

/* struct rwlock state, abstracted */
bit st_writer;			/* WRITER */
byte st_readers;		/* READERS */
byte st_wrwait;			/* writers registered (WR_WAIT set while > 0) */

byte nread, nwrite;		/* ghost: in the critical section */
byte nbias;			/* ghost: biased holds (ON re-read .. slot cleared) */
byte ndone;			/* ghost: threads finished */
byte nwin;			/* ghost: writer-preferring kinds, threads between
				 * a WR_WAIT set and its look at bias, or between
				 * bias ON and the look at WR_WAIT after it */
/* A reader holding no read lock gets in through its slot while a writer
 * is registered only inside such a window (the current protocol). */
#if defined(REVOKE_HOLDING_WRITER) || defined(NO_EPOCH)
#define REBIAS_CHECK	skip
#else
#define REBIAS_CHECK	assert(!PREFERS_WRITERS || st_wrwait == 0 || rdlocks > 0 || nwin > 0)
#endif
#ifdef HANDOFF
bit handoff;			/* the program's flag: reader 1 was in */
#endif

/* thr_rwlock_bias.c fthr_rw_revoke_wake */
inline revoke_wake()
{
	atomic {				/* fetch_add(&rev, REV_SEEN) */
		assert(mem[REV] + REV_SEEN < REVMOD);
		mem[REV] = mem[REV] + REV_SEEN
	};
	futex_wake(REV, ALL)
}

/* rwlock_bias.h biased_release(l, b, j); held: a hold (not a back-out) */
inline biased_release(j, held)
{
#ifdef SEED_REV_FIRST
	wk = ((mem[REV] & REVS) != 0);	/* SEEDED BUG: rev read first */
#endif
	atomic {				/* XCHG(&b->slot[j], NULL) */
		slot[SL(j)] = 0;
		if
		:: held -> nbias--
		:: else -> skip
		fi
	};
#if defined(SEED_NOWAKE)
	skip	/* SEEDED BUG: no "if (rev & REV_REVOKERS) revoke_wake(l)" */
#elif defined(SEED_REV_FIRST)
	if
	:: wk -> revoke_wake()
	:: else -> skip
	fi;
	wk = 0
#else
	if
	:: (mem[REV] & REVS) -> revoke_wake()	/* load(&rev) & REV_REVOKERS */
	:: else -> skip
	fi
#endif
}

/* rwlock_bias.h try_read_biased: r = 0 (held through slot) or EBUSY */
inline try_read_biased(r)
{
	r = EBUSY;
#ifdef FIX_NESTED
	if
	:: rbheld > 0 -> nest++; rdlocks++; r = 0	/* nests on its hold */
	:: rbheld == 0 ->
#endif
	if
	:: bias == ON ->			/* a_load_acquire(&bias) == ON */
		atomic {			/* first free slot (own, local) */
			j = 0;
			do
			:: j < NSLOT && slot[SL(j)] -> j++
			:: else -> break
			od
		};
		if
		:: j < NSLOT ->
			slot[SL(j)] = 1;	/* XCHG(&b->slot[j], l) */
#ifdef SEED_NOREREAD
			/* SEEDED BUG: no re-read of bias; held on the first load */
			atomic { rdlocks++; rbheld++; nbias++; r = 0 };
#else
			atomic {		/* bias == ON (SEQ_CST) */
				if
				:: bias == ON -> REBIAS_CHECK;
					rdlocks++; rbheld++; nbias++; r = 0
				:: else -> skip
				fi
			};
#endif
			if
			:: r != 0 -> biased_release(j, 0)
			:: else -> skip
			fi
		:: else -> skip
		fi
	:: else -> skip
	fi;
#ifdef FIX_NESTED
	fi;
#endif
	j = 0
}

/* rwlock.h try_read (try_read_as, not handed): one attempt */
#define READ_OK	(!st_writer && (st_wrwait == 0 || !PREFERS_WRITERS || rdlocks > 0))
inline try_read(r)
{
	atomic {
		if
		:: READ_OK -> st_readers++; rdlocks++; r = 0
		:: else -> r = EBUSY
		fi
	}
}

/* rwlock_bias.h bias_stop: CAS(&bias, ON, DIRTY) */
inline bias_stop()
{
	atomic {
		if
		:: bias == ON -> bias = DIRTY
		:: else -> skip
		fi
	}
}

/* rwlock_bias.h maybe_bias (the reader holds its read lock through state) */
inline maybe_bias()
{
#ifdef NOBIAS
	skip				/* control: the bias never goes on */
#else
	if
#ifdef REVOKE_HOLDING_WRITER
	:: bias == OFF ->			/* a_load_relaxed(&bias) == OFF */
#else
	:: atomic { bias == OFF && (mem[REV] & REVS) == 0 ->	/* and no revoker */
		be = bepoch }
#endif
		if
		:: true -> skip			/* streak < STREAK_ON: streak++ */
		:: true ->
			if
#if defined(REVOKE_HOLDING_WRITER) || defined(NO_EPOCH)
			:: st_wrwait == 0 -> bias = ON	/* !(state & WR_WAIT) */
#else
			:: st_wrwait == 0 || !PREFERS_WRITERS ->	/* !(state & WR_WAIT) */
				atomic {	/* CAS((be, OFF) -> (be + 1, ON)) */
					if
					:: bias == OFF && bepoch == be ->
						bias = ON;
						bepoch = (bepoch + 1) % EPOCHMOD;
						nwin = nwin + PREFERS_WRITERS
					:: else -> be = EPOCHMOD	/* CAS failed */
					fi
				};
				if		/* CAS succeeded, writer-preferring */
				:: be != EPOCHMOD && PREFERS_WRITERS ->
#ifndef NO_REBIAS_STOP
					if	/* state & WR_WAIT (SEQ_CST) */
					:: st_wrwait > 0 -> bias_stop()
					:: else -> skip
					fi;
#endif
					nwin--
				:: else -> skip
				fi
#endif
			:: else -> skip
			fi
		fi;
		be = 0
	:: else -> skip
	fi
#endif
}

/* after a read lock through state on rdlock's fast path and in tryrdlock */
#ifdef SEED_LATE_ON
#define MAYBE_BIAS	skip		/* SEEDED BUG: maybe_bias moved (rd_unlock) */
#else
#define MAYBE_BIAS	maybe_bias()
#endif

/* thr_rwlock.c rdlock: biased, try_read (+ maybe_bias), rdlock_slow */
inline rdlock(r)
{
	try_read_biased(r);
	if
	:: r == 0 -> skip
	:: else ->
		try_read(r);
		if
		:: r == 0 -> MAYBE_BIAS
		:: else ->			/* rdlock_slow: spin, rw_sleep_loop */
			atomic { READ_OK -> st_readers++; rdlocks++; r = 0 }
		fi
	fi
}

/* thr_rwlock.c fthr_rwlock_tryrdlock */
inline tryrdlock(r)
{
	try_read_biased(r);
	if
	:: r == 0 -> skip
	:: else ->
		try_read(r);
		if
		:: r == 0 -> MAYBE_BIAS
		:: else -> skip			/* EBUSY */
		fi
	fi
}

/* thr_rwlock.c fthr_rwlock_unlock, read-held */
inline rd_unlock()
{
#ifdef FIX_NESTED
	if
	:: nest > 0 -> nest--; rdlocks--
	:: nest == 0 ->
#endif
	atomic {				/* rbheld && unlock_biased: own slots */
		j = 0;
		do
		:: j < NSLOT && rbheld > 0 && !slot[SL(j)] -> j++
		:: else -> break
		od;
		if
		:: rbheld == 0 -> j = NSLOT
		:: else -> skip
		fi
	};
	if
	:: j < NSLOT -> biased_release(j, 1); rdlocks--; rbheld--
#ifdef SEED_LATE_ON
	:: else -> atomic { st_readers--; rdlocks-- };	/* sub_fetch(&state, 1) */
		maybe_bias()			/* SEEDED BUG: after the unlock */
#else
	:: else -> atomic { st_readers--; rdlocks-- }	/* sub_fetch(&state, 1) */
#endif
	fi;
	j = 0
#ifdef FIX_NESTED
	fi
#endif
}

/* rwlock.h try_write */
inline try_write(r)
{
	atomic {
		if
		:: !st_writer && st_readers == 0 -> st_writer = 1; r = 0
		:: st_writer || st_readers > 0 -> r = EBUSY
		fi
	}
}

/* rwlock.h write_release (wake_if_free: the abstraction's blocked
 * threads proceed by themselves once their condition holds) */
inline write_release()
{
	st_writer = 0				/* and_fetch(&state, ~WRITER) */
}

/* thr_rwlock_bias.c fthr_rw_revoke(l, wait, ...): r = 0, EBUSY or
 * F_ETIMEDOUT */
inline revoke(wait, timed, r)
{
	r = 0;
#ifdef REVOKE_HOLDING_WRITER
	bias = DIRTY;				/* store SEQ_CST */
	mem[REV] = mem[REV] | 1;		/* fetch_or(&rev, 1) */
#elif defined(NO_EPOCH)
	atomic {				/* CAS(&bias, ON, DIRTY) */
		if
		:: bias == ON -> bias = DIRTY
		:: else -> skip
		fi
	};
	mem[REV] = mem[REV] + 1;		/* fetch_add(&rev, 1) */
#else
	mem[REV] = mem[REV] + 1;		/* fetch_add(&rev, 1) */
	atomic {				/* load, CAS((e, ON) -> (e, DIRTY)) */
		if
		:: bias == ON -> bias = DIRTY
		:: else -> skip
		fi;
		rb = bepoch
	};
#endif
	k = 0;
	do
	:: k < NR * NSLOT && r == 0 ->
		do
		:: slot[k] ->			/* while (slot == l) */
			v = mem[REV];
			if
			:: !wait -> r = EBUSY
			:: wait ->
#ifdef SEED_NORECHECK
				/* SEEDED BUG: no re-check of the slot */
				futex_wait(REV, v, fr, timed);
				if
				:: fr == F_ETIMEDOUT -> r = F_ETIMEDOUT
				:: else -> skip
				fi;
				fr = 0
#else
				if
				:: slot[k] ->	/* still l: sleep */
					futex_wait(REV, v, fr, timed);
					if
					:: fr == F_ETIMEDOUT -> r = F_ETIMEDOUT
					:: else -> skip
					fi;
					fr = 0
				:: else -> skip
				fi
#endif
			fi;
			v = 0;
			if
			:: r != 0 -> break
			:: else -> skip
			fi
		:: else -> break
		od;
		k++
	:: else -> break
	od;
	k = 0;
#ifdef REVOKE_HOLDING_WRITER
	mem[REV] = mem[REV] & ~1;		/* fetch_and(&rev, ~1) */
	if
	:: r == 0 -> bias = OFF			/* store release */
	:: else -> skip
	fi
#else
	mem[REV] = mem[REV] - 1;		/* fetch_sub(&rev, 1) */
	if
	:: r == 0 ->
		atomic {			/* CAS(&bias, (rb, DIRTY), (rb, OFF)) */
			if
#ifdef NO_EPOCH
			:: bias == DIRTY -> bias = OFF
#else
			:: bias == DIRTY && bepoch == rb -> bias = OFF
#endif
			:: else -> skip
			fi
		}
	:: else -> skip
	fi;
	rb = 0
#endif
}

/* rwlock_bias.h write_acquired: holding WRITER */
inline write_acquired(wait, timed, r)
{
	if
	:: bias == OFF -> r = 0			/* a_load_relaxed(&bias) */
	:: bias != OFF ->
#ifdef REVOKE_HOLDING_WRITER
		revoke(wait, timed, r);
		if
		:: r != 0 -> write_release()
		:: else -> skip
		fi
#else
		write_release();		/* WRITER given back first */
		revoke(wait, timed, r);
		if
		:: r == 0 -> r = AGAIN
		:: else -> skip
		fi
#endif
	fi
}

/* thr_rwlock.c wrlock: bias_stop, try_write, wrlock_slow, write_acquired */
inline wrlock(timed, r)
{
	bias_stop();
	do					/* until write_acquired is done */
	:: try_write(r);
		if
		:: r == EBUSY ->		/* wrlock_slow */
			if
			:: true -> skip		/* got it while spinning */
			:: true ->		/* rw_sleep_loop: set WR_WAIT */
				atomic { st_wrwait++; nwin = nwin + PREFERS_WRITERS };
				reg = 1;
				if		/* writer-preferring: bias (SEQ_CST) */
				:: PREFERS_WRITERS ->
#if !defined(NO_REBIAS_STOP) && !defined(REVOKE_HOLDING_WRITER) && !defined(NO_EPOCH)
					bias_stop();
#endif
					nwin--
				:: else -> skip
				fi
			fi;
			atomic {
				!st_writer && st_readers == 0 -> st_writer = 1;
				if
				:: reg -> st_wrwait--; reg = 0
				:: else -> skip
				fi
			}
		:: else -> skip
		fi;
		write_acquired(1, timed, r);
		if
		:: r == AGAIN -> skip		/* revoked: again */
		:: else -> break
		fi
	od
}

/* thr_rwlock.c fthr_rwlock_trywrlock */
inline trywrlock(r)
{
#ifdef SEED_TRYWR_NOREVOKE
	try_write(r);
	/* SEEDED BUG: no write_acquired: WRITER alone, the bias not looked at */
	skip
#else
	tw = 0;
	do
	:: tw < 2 ->
		try_write(r);
		if
		:: r == 0 ->
			write_acquired(0, 0, r);
			if
			:: r == AGAIN -> tw++	/* revoked: once more */
			:: r == 0 -> break
			:: else -> r = EBUSY; break
			fi
		:: else -> break
		fi
	:: else -> r = EBUSY; break
	od;
	tw = 0
#endif
}

/* the last thread to finish: everything is released */
inline finish()
{
	atomic {
		assert(rdlocks == 0 && rbheld == 0);
		ndone++;
		if
		:: ndone == NPROC ->
			k = 0;
			do
			:: k < NR * NSLOT -> assert(!slot[k]); k++
			:: else -> break
			od;
			k = 0;
			do
			:: k < NPROC -> assert(fsleep[k] == 0); k++
			:: else -> break
			od;
			k = 0;
			assert(!st_writer && st_readers == 0 && st_wrwait == 0);
			assert(nbias == 0 && (mem[REV] & REVS) == 0)
		:: else -> skip
		fi
	}
}

active [NR] proctype reader()
{
	byte r, r2, i, j, k, rdlocks, rbheld, be;
#ifdef SEED_REV_FIRST
	bit wk;				/* the seeded bug's early look at rev */
#endif
#ifdef FIX_NESTED
	byte nest;			/* candidate fix: nested holds on a slot */
#endif

	do
	:: i < ITERS ->
#ifdef HANDOFF
		rdlock(r);
#else
		if
		:: rdlock(r)
		:: tryrdlock(r)
		fi;
#endif
		if
		:: r == 0 ->
#if defined(RECURSIVE_READ)
			rdlock(r2);		/* nested: returns 0 */
#elif defined(RECURSIVE_TRY)
			tryrdlock(r2);
#else
			r2 = EBUSY;
#endif
			nread++;
			assert(nwrite == 0);
#ifdef HANDOFF
			if			/* reader 0, last round: wait for 1 */
			:: _pid == 0 && i == ITERS - 1 -> handoff
			:: _pid == 1 -> handoff = 1
			:: else -> skip
			fi;
#endif
			nread--;
			if
			:: r2 == 0 -> rd_unlock()
			:: else -> skip
			fi;
			r2 = 0;
			rd_unlock()
		:: else -> skip			/* tryrdlock: EBUSY */
		fi;
		r = 0;
		i++
	:: else -> break
	od;
	finish()
}

active [NW] proctype writer()
{
	byte r, i, k, v, fr, rdlocks, rbheld, tw, rb;
	bit reg;

	do
	:: i < ITERS ->
		if
		:: wrlock(TIMEOUTS > 0, r)
		:: trywrlock(r)
		fi;
		if
		:: r == 0 ->
			nwrite++;
			assert(nwrite == 1 && nread == 0 && nbias == 0);
#ifndef SEED_TRYWR_NOREVOKE	/* so that spin has to find the reader inside */
			assert(bias == OFF);
#endif
			nwrite--;
			atomic { write_release() }	/* fthr_rwlock_unlock */
		:: else -> skip			/* EBUSY, ETIMEDOUT */
		fi;
		r = 0;
		i++
	:: else -> break
	od;
	finish()
}
