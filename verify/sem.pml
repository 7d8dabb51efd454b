/* verify/sem.pml: the unnamed semaphore of lib/thr_sem.c (glibc's layout).
 *
 * The 64-bit word data = value (low half, the futex word mem[VAL]) +
 * nwaiters << 32 (sem_nw). Every 64-bit atomic operation of the C code
 * (CAS, fetch_add, sub_fetch) is one atomic step on both halves.
 *
 * Threads: NPOST posters post NTOK tokens between them; NWAIT waiters each
 * take one by sem_wait (with TIMEOUTS: sem_timedwait, which may fail with
 * ETIMEDOUT; with EINTRS a signal handler may interrupt the sleep, EINTR;
 * with CANCELS a waiter may be cancelled in the futex wait: sem_cancelled
 * runs and the thread exits). With -DTRYWAIT a waiter may also just try
 * once (sem_trywait). NTOK = NWAIT by default: enough tokens for every
 * waiter; -DNTOK=1 -DNWAIT=2 (pan -E): scarce tokens, see quiescence.
 *
 * Checked: tokens are conserved (a waiter returns 0 only with a token:
 * at the end value == posted - taken, nwaiters == 0, and value never
 * underflows); no deadlock / no lost wake-up (a registered waiter left
 * asleep while the others finished is an invalid end state: there is
 * always a token left for it).
 *
 * Seeded bug (run seeded/sem_cancel_nopass, with -DNTOK=1 -DCANCELS=1 and
 * pan -E; must fail):
 *   -DSEED_CANCEL_NOPASS  sem_cancelled only unregisters, as glibc's does: a
 *             post's wake-up consumed by a waiter cancelled right after it
 *             woke is lost, and another registered waiter sleeps on while a
 *             token is there (the quiescence assertion).
 */
#ifndef NWAIT
#define NWAIT 2
#endif
#ifndef NPOST
#define NPOST 1
#endif
#ifndef NTOK
#define NTOK NWAIT
#endif
#define NPROC (NWAIT + NPOST)		/* the threads; the checkers come after */
#define NADDR 2
#define VAL 1			/* the value half of data, the futex word */

#include "futex.pml"

byte sem_nw;			/* the nwaiters half of data */
byte posted, taken;		/* ghost */
byte finished;

/* thr_sem.c fthr_sem_post (SEM_VALUE_MAX never reached here) */
inline sem_post()
{
	atomic {			/* CAS data -> data + 1; d: the old data */
		d_nw = sem_nw;
		mem[VAL]++;
		posted++
	};
	if
	:: d_nw != 0 -> futex_wake(VAL, 1)	/* (d >> 32) != 0 */
	:: else -> skip
	fi;
	d_nw = 0
}

/* thr_sem.c sem_take: CAS data -> data - 1 while the value is > 0 */
inline sem_take(ok)
{
	atomic {
		if
		:: mem[VAL] > 0 -> mem[VAL]--; ok = 1
		:: else -> ok = 0
		fi
	}
}

/* thr_sem.c sem_cancelled: unregister; if tokens and other waiters remain,
 * pass on the wake-up this thread may have consumed */
inline sem_cancelled()
{
	atomic {			/* d = sub_fetch(&data, 1 << 32) */
		sem_nw--;
		d_val = mem[VAL];
		d_nw = sem_nw
	};
#ifdef SEED_CANCEL_NOPASS
	/* SEEDED BUG: like glibc, do not pass on the wake-up this thread may
	 * have consumed (the post's futex_wake woke us, then we were
	 * cancelled) */
	d_val = 0; d_nw = 0
#else
	if
	:: d_val != 0 && d_nw != 0 -> futex_wake(VAL, 1)
	:: else -> skip
	fi
#endif
}

/* thr_sem.c sem_wait_slow(s, clk, abstime, timed); res 0, F_ETIMEDOUT,
 * F_EINTR or F_CANCELLED */
inline sem_wait_slow(timed, res)
{
	sem_take(ok);				/* FTHR_WAIT_EVENT(sem_take(s)) */
	if
	:: ok -> res = F_OK
	:: else ->
		atomic {			/* d = fetch_add(&data, 1 << 32) */
			d_val = mem[VAL];
			d_nw = sem_nw;
			sem_nw++
		};
		do
		:: d_val == 0 ->
			futex_wait_cancelable(VAL, 0, err, timed);
			if
			:: err == F_CANCELLED ->
				sem_cancelled(); res = F_CANCELLED; break
			:: err == F_ETIMEDOUT || err == F_EINTR ->
				sem_nw--;		/* fetch_sub(&data, 1 << 32) */
				res = err; break
			:: else ->
				atomic { d_val = mem[VAL]; d_nw = sem_nw }	/* d = load */
			fi
		:: d_val != 0 ->
			/* CAS(&data, &d, d - 1 - (1 << 32)); on failure d = data */
			atomic {
				if
				:: mem[VAL] == d_val && sem_nw == d_nw ->
					mem[VAL]--; sem_nw--; ok = 1
				:: else -> d_val = mem[VAL]; d_nw = sem_nw; ok = 0
				fi
			};
			if
			:: ok -> res = F_OK; break
			:: else -> skip
			fi
		od
	fi;
	ok = 0; err = 0; d_val = 0; d_nw = 0
}

/* thr_sem.c fthr_sem_wait / fthr_sem_timedwait */
inline sem_wait(timed, res)
{
	sem_take(ok);
	if
	:: ok -> res = F_OK; ok = 0
	:: else -> sem_wait_slow(timed, res)
	fi
}

active [NWAIT] proctype waiter()
{
	byte ok, err, d_val, d_nw, res;

#ifdef TRYWAIT
	if
	:: true -> sem_wait(TIMEOUTS > 0, res)
	:: true -> sem_take(ok); res = (ok -> F_OK : F_EAGAIN); ok = 0	/* sem_trywait */
	fi;
#else
	sem_wait(TIMEOUTS > 0, res);
#endif
	if
	:: res == F_OK -> taken++
	:: else -> skip
	fi;
	finished++
}

active [NPOST] proctype poster()
{
	byte d_nw, k;

	k = _pid - NWAIT;
	do
	:: k < NTOK -> sem_post(); k = k + NPOST
	:: else -> break
	od;
	finished++
}

/* no lost wake-up, stated directly: whenever the whole system is stuck
 * (timeout: no thread can move), no waiter sleeps while a token is there.
 * With NTOK < NWAIT some waiter must stay blocked; run pan with -E then
 * (blocked ends are not errors) and this is the lost wake-up check. */
active proctype quiescence()
{
	byte i;

	timeout;
	do
	:: i < NPROC -> assert(!(fsleep[i] == VAL && mem[VAL] > 0)); i++
	:: else -> break
	od
}

/* the end-of-run check (runs once every thread is done) */
active proctype check()
{
	finished == NPROC;
	assert(mem[VAL] == posted - taken);
	assert(sem_nw == 0);
	assert(posted == NTOK)
}
