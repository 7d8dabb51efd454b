/* verify/once.pml: pthread_once of lib/thr_once.c on one futex word mem[W]:
 *   0 not run, gen|1 an initializer runs (fork generation gen), 2 done.
 *
 * NTHR threads call fthr_once. The init routine of the winner may be
 * cancelled (or longjmp'd out of: the same cleanup), at most CANCELS times
 * in all: once_abandoned stores 0 and wakes all, and that thread exits.
 * -DFORKED: the process is a fork child whose parent forked while its
 * initializer ran: the word starts as the parent's gen|1 (1) and this
 * process's generation is FTHR_FORK_GEN_STEP (4), so mine = 5 (the runner
 * the word names does not exist here).
 *
 * Checked: init never runs in two threads at once and completes exactly
 * once; no caller returns before it completed; no deadlock / no lost
 * wake-up (every thread ends; a caller left asleep is an invalid end
 * state).
 *
 * Seeded bug (run seeded/once_abandon_nowake, with -DCANCELS=1; must fail):
 *   -DSEED_ABANDON_NOWAKE  once_abandoned (a cancelled initializer) resets
 *             the word without waking the waiting callers (invalid end
 *             state).
 */
#ifndef NTHR
#define NTHR 3
#endif
#define NPROC (NTHR + 1)		/* init is _pid 0 */
#define NADDR 2
#define W 1			/* the pthread_once_t word */
#define ONCE_INPROGRESS 1
#define ONCE_DONE 2

#include "futex.pml"

#ifdef FORKED
#define MINE (4 | ONCE_INPROGRESS)	/* fthr_fork_gen | ONCE_INPROGRESS */
#else
#define MINE (0 | ONCE_INPROGRESS)
#endif

byte running, completed;	/* ghost: threads inside init / inits that returned */

proctype caller()
{
	int v;
	byte fr;

	/* fthr_once: the fast path */
	if
	:: mem[W] == ONCE_DONE -> goto out	/* a_load_acquire(once) == ONCE_DONE */
	:: else -> skip
	fi;
	/* once_slow */
	do
	:: v = mem[W];				/* v = a_load_acquire(w) */
	   if
	   :: v == ONCE_DONE -> goto out
	   :: v == MINE ->
		futex_wait(W, v, fr, 0); fr = 0	/* fthr_futex_wait(w, v, ...) */
	   :: else ->
		atomic {			/* a_cas_acq_rel(w, &v, mine) */
			if
			:: mem[W] == v -> mem[W] = MINE; v = 255
			:: else -> skip
			fi
		};
		if
		:: v == 255 -> break
		:: else -> skip
		fi
	   fi
	od;
	/* we run init; _pthread_cleanup_push(once_abandoned) */
	running++;
	assert(running == 1 && completed == 0);
	if
	:: cancel_left > 0 ->			/* init cancelled / longjmp'd out of */
		cancel_left--;
		running--;
		mem[W] = 0;			/* once_abandoned: a_store_release(w, 0) */
#ifdef SEED_ABANDON_NOWAKE
		/* SEEDED BUG: no futex_wake(w, INT_MAX): the callers asleep on
		 * the in-progress word never retry */
#else
		futex_wake(W, ALL);
#endif
		goto gone			/* the thread unwinds */
	:: true -> skip
	fi;
	running--;
	completed++;				/* init() returned */
	mem[W] = ONCE_DONE;			/* a_store_release(w, ONCE_DONE) */
	futex_wake(W, ALL);
out:
	assert(completed == 1);			/* returns only after init ran */
gone:
	skip
}

init {
	byte i;
#ifdef FORKED
	mem[W] = 0 | ONCE_INPROGRESS;	/* left behind by the parent's runner */
#endif
	atomic {
		do
		:: i < NTHR -> run caller(); i++
		:: else -> break
		od
	}
}
