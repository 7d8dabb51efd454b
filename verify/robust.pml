/* verify/robust.pml: the robust mutex of lib/thr_mutex_robust.c (glibc's
 * protocol) with thread deaths and the kernel's robust-list handling.
 *
 * Word mem[W]: 0 free; tid (_pid + 1) held; | WAITERS (somebody may
 * sleep); OWNER_DIED (the holder died; | WAITERS kept).
 *   lock     pending = W; loop { 0: CAS to tid | waiters (waiters: WAITERS
 *            once this thread has slept); OWNER_DIED: CAS to tid | the
 *            old WAITERS | waiters (EOWNERDEAD: made consistent, ours);
 *            else set WAITERS (CAS) and futex_wait(W, old) }.
 *   unlock   SWAP(0); old WAITERS -> futex_wake(W, 1).
 *   recheck  a sleeper's sleep has a bound (0.1 s in the C code): modelled
 *            as a wait that returns F_RECHECK once nothing else can happen
 *            (futex.pml, RECHECK_OK); the sleeper then looks at the word
 *            again (free: takes it; held unmarked: marks it, sleeps on).
 *            Threads with _pid < NGLIBC are plain-glibc ones: no bound.
 *   death    (the kernel's handle_futex_death, for the dead thread's
 *            robust list and its list_op_pending) if the word's tid is the
 *            dead thread's: word = OWNER_DIED | its WAITERS, and one sleeper
 *            woken if WAITERS; else, if the death came during a lock
 *            (list_op_pending) and the word is 0, one sleeper woken.
 *            A thread may die (DEATHS budget) right after its futex_wait
 *            returned, before it looks at the word again (the window of the
 *            hole: woken, not yet re-marked), or while it holds the mutex.
 *   bargers  any thread's first CAS takes a free word without WAITERS.
 *
 * The hole this closes (lib/thr_mutex_robust.c, head comment: recheck):
 * an unlock wakes one sleeper, a barger takes the free word unmarked, the
 * woken sleeper is killed before it re-takes the word: the kernel wakes
 * nobody (the word is the barger's), the barger's unlock sees no WAITERS
 * and wakes nobody, the other sleepers sleep for ever.
 *
 * Checked: mutual exclusion; no lost wake-up (a live thread left asleep
 * is an invalid end state).
 *   -DNO_RECHECK  glibc's protocol, no bound: the hole
 *                 (realbug/robust-woken-dies, invalid end state)
 *   -DDEATHS=2    two deaths: still nothing lost (robust-two-deaths)
 *   -DNGLIBC=3    every thread a plain-glibc one: glibc's hole stays
 *                 (check/robust-glibc-sleepers, invalid end state)
 *   -DNGLIBC=2    one fthr thread: a plain-glibc sleeper left asleep once
 *                 the fthr one is gone keeps the hole too (check/robust-
 *                 glibc-mixed; the trail's stuck thread is a glibc one)
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef ITERS
#define ITERS 2
#endif
#ifndef DEATHS
#define DEATHS 1
#endif
#ifndef NGLIBC
#define NGLIBC 0
#endif
#ifndef NO_RECHECK
#define RECHECK_OK (_pid >= NGLIBC)
#endif
#define NPROC NTHR
#define NADDR 2
#define W 1

#define WAITERS 64
#define OWNER_DIED 128
#define TID_MASK 63

#include "futex.pml"

byte cs;		/* threads inside the critical section */
byte deaths_left = DEATHS;

/* The kernel's exit handling for thread me (pending: it died inside a
 * lock). One atomic step, as the kernel's cmpxchg and wake. */
inline kernel_death(me, pending)
{
	atomic {
		if
		:: (mem[W] & TID_MASK) == me ->
			mem[W] = (mem[W] & WAITERS) | OWNER_DIED;
			if
			:: mem[W] & WAITERS -> futex_pick(W, 1, 0, 0, fw_k); fw_k = 0
			:: else -> skip
			fi
		:: (mem[W] & TID_MASK) != me && pending && mem[W] == 0 ->
			futex_pick(W, 1, 0, 0, fw_k); fw_k = 0
		:: else -> skip
		fi
	}
}

active [NTHR] proctype thread()
{
	byte i, me = _pid + 1;
	int old, waiters, ret;
	bool dead;

	do
	:: i < ITERS && !dead ->
		/* fthr_robust_lock / glibc's robust lock */
		waiters = 0;
		old = mem[W];
		do
		:: old == 0 ->
			atomic { if
				 :: mem[W] == 0 -> mem[W] = me | waiters; old = 0; break
				 :: else -> old = mem[W]
				 fi }
		:: old & OWNER_DIED ->
			atomic { if
				 :: mem[W] == old -> mem[W] = me | (old & WAITERS) | waiters;
					old = 0; break
				 :: else -> old = mem[W]
				 fi }
		:: old != 0 && !(old & OWNER_DIED) ->
			assert((old & TID_MASK) != me);
			if
			:: !(old & WAITERS) ->
				atomic { if
					 :: mem[W] == old -> mem[W] = old | WAITERS; old = old | WAITERS
					 :: else -> old = mem[W]; ret = F_EAGAIN
					 fi }
			:: else -> skip
			fi;
			if
			:: ret == F_EAGAIN -> ret = 0	/* CAS failed: look again */
			:: else ->
				waiters = WAITERS;
				futex_wait(W, old, ret, 1);
				if
				:: ret == F_ETIMEDOUT -> ret = 0; old = 0; break
				:: ret == F_RECHECK -> ret = 0	/* look again */
				:: else -> ret = 0;
					/* killed here: woken, not yet looked at the word */
					if
					:: atomic { deaths_left > 0 -> deaths_left--; dead = true }
					:: true
					fi
				fi;
				if
				:: dead -> kernel_death(me, 1); break
				:: else -> old = mem[W]
				fi
			fi
		od;
		if
		:: dead -> skip
		:: (mem[W] & TID_MASK) != me -> skip	/* timed out */
		:: else ->
			cs++;
			assert(cs == 1);
			cs--;
			if
			:: atomic { deaths_left > 0 -> deaths_left--; dead = true }
				/* killed holding it */
				kernel_death(me, 0)
			:: true ->
				/* unlock: SWAP(0), wake */
				atomic { old = mem[W]; mem[W] = 0 };
				if
				:: old & WAITERS -> futex_wake(W, 1)
				:: else -> skip
				fi
			fi
		fi;
		old = 0; waiters = 0;
		i++
	:: else -> break
	od
}
