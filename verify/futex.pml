/* verify/futex.pml: the futex primitive shared by every fthr model.
 *
 * Models lib/futex.h (fthr_futex_wait, fthr_futex_wake,
 * fthr_futex_cmp_requeue) and lib/cancel.c (fthr_futex_wait_cancelable) with
 * the kernel's semantics (lib/futex_linux.c: FUTEX_WAIT_BITSET, FUTEX_WAKE,
 * FUTEX_WAKE_BITSET, FUTEX_CMP_REQUEUE):
 *
 *   memory    every futex word (and, for convenience, other shared ints a
 *             model wants to name by address) is mem[a], a = 1 .. NADDR-1;
 *             address 0 means "no address".
 *   wait      atomically: if mem[a] != expect return EAGAIN, else enqueue
 *             the caller on a (fsleep[_pid] = a); then (a separate step:
 *             the thread is asleep, the others run) block until a waker
 *             dequeues it (fsleep[_pid] = 0). Blocking is real: a thread
 *             nobody wakes stays blocked forever, so with finite workloads a
 *             lost wake-up shows up as an invalid end state (pan's default
 *             check; not with -E).
 *   wake(n)   atomically dequeue up to n of the sleepers on a, ANY of them
 *             (nondeterministic choice: the kernel's order is priority then
 *             FIFO, so with real-time priorities any order can happen).
 *             -DFUTEX_FIFO: the order of one priority level instead, oldest
 *             sleeper first (a requeued sleeper goes to the tail of the
 *             target's queue, as in the kernel).
 *   bits      futex_wait_bits sleeps with a bitset, futex_wake_bits wakes
 *             only the sleepers whose bitset shares a bit with its own;
 *             plain waits and wakes match any.
 *   requeue   FUTEX_CMP_REQUEUE: if mem[a] != expect EAGAIN; else wake
 *             nwake of a's sleepers (any of them) and move up to nmove of
 *             the rest to sleep on a2.
 *   counts    futex_wake_cnt and futex_cmp_requeue also report, in the
 *             same atomic step, how many sleepers they took off a's queue
 *             (woken + moved: the return value of FUTEX_WAKE and
 *             FUTEX_CMP_REQUEUE, fthr_futex_counts_exact) into a variable
 *             of the caller, which must be 0 before the call; the caller
 *             acts on it in later steps and sets it back to 0. Plain
 *             futex_wake counts into the scratch fw_k and drops it.
 *   optional  events, each with a global budget (0 by default; set with
 *             spin -DSPURIOUS=1 etc.) so that a lost wake-up cannot be
 *             masked forever by them (once the budget is spent the sleeper
 *             is truly stuck and the end state is invalid):
 *               SPURIOUS  a sleeper returns 0 without a wake
 *               EINTRS    a sleeper returns EINTR (a signal handler ran)
 *               TIMEOUTS  a timed sleeper returns ETIMEDOUT
 *               RECHECK_OK (no budget: a model's predicate) a sleeper whose
 *                         sleep has a bound returns F_RECHECK once nothing
 *                         else can happen
 *               RESTARTS  a sleeper is interrupted and its call restarted
 *                         by the kernel (SA_RESTART, a stop signal, the
 *                         retry after a wake-up that found it still
 *                         queued): the same wait again on the word it was
 *                         called with, wherever a requeue had moved it
 *               CANCELS   (cancelable wait only) the thread is cancelled
 *                         while asleep, or after the wait returned but
 *                         before the cancel type is set back (cancel.c: the
 *                         type is asynchronous around the whole call).
 *             A sleeper that was woken always returns 0, never ETIMEDOUT or
 *             EINTR: the kernel reports the wake if the waker dequeued it.
 */
#ifndef FUTEX_PML
#define FUTEX_PML

#ifndef NPROC
#define NPROC 4			/* upper bound on _pid + 1 */
#endif
#ifndef NADDR
#define NADDR 8
#endif
#ifndef SPURIOUS
#define SPURIOUS 0
#endif
#ifndef EINTRS
#define EINTRS 0
#endif
#ifndef TIMEOUTS
#define TIMEOUTS 0
#endif
#ifndef CANCELS
#define CANCELS 0
#endif
#ifndef RESTARTS
#define RESTARTS 0
#endif

/* return values (the errno numbers fthr returns) */
#define F_OK		0
#define F_EINTR		4
#define F_EAGAIN	11
#define F_ETIMEDOUT	110
#define F_CANCELLED	255	/* model only: the thread was cancelled in the wait */
#define F_RECHECK	253	/* model only: the sleep's bound passed */
#ifndef RECHECK_OK
#define RECHECK_OK	0
#endif

#define ALL		255	/* INT_MAX as a wake / move count */

int mem[NADDR];			/* the futex words, by address */
byte fsleep[NPROC];		/* address thread _pid sleeps on, 0: not asleep */
byte fbits[NPROC];		/* its wait's bitset (FUTEX_WAIT_BITSET), 0: any */

byte spur_left = SPURIOUS;	/* budgets of the optional events */
byte eintr_left = EINTRS;
byte tmo_left = TIMEOUTS;
byte cancel_left = CANCELS;
byte restart_left = RESTARTS;

/* scratch of the atomic kernel operations (always 0 between operations,
 * so they add nothing to the state space) */
byte fw_i, fw_c, fw_n, fw_m, fw_k;
byte fw_b;			/* the wake's bitset, 0: any (FUTEX_WAKE) */

/* sleeper p is on addr's queue and the wake's bitset matches its own */
#define FMATCH(p, addr) (fsleep[p] == addr && \
			 (fw_b == 0 || fbits[p] == 0 || (fbits[p] & fw_b) != 0))

#ifdef FUTEX_FIFO
/* FIFO variant (all threads of one priority: the kernel's plist order):
 * frank[p] is sleeper p's place in one global arrival order (1 = oldest),
 * consistent with every address's own queue; kept dense (1..sleepers). */
byte frank[NPROC];

inline fq_remove(p)
{
	fw_i = 0;
	do
	:: fw_i < NPROC -> if
			  :: frank[fw_i] > frank[p] -> frank[fw_i]--
			  :: else -> skip
			  fi; fw_i++
	:: else -> break
	od;
	frank[p] = 0; fw_i = 0
}

inline fq_append(p)
{
	fw_i = 0; fw_c = 0;
	do
	:: fw_i < NPROC -> if
			  :: frank[fw_i] > fw_c -> fw_c = frank[fw_i]
			  :: else -> skip
			  fi; fw_i++
	:: else -> break
	od;
	frank[p] = fw_c + 1; fw_i = 0; fw_c = 0
}

/* fw_m = the oldest sleeper on addr, NPROC if none */
inline fq_oldest(addr)
{
	fw_i = 0; fw_m = NPROC;
	do
	:: fw_i < NPROC -> if
			  :: FMATCH(fw_i, addr) &&
			     (fw_m == NPROC || frank[fw_i] < frank[fw_m]) -> fw_m = fw_i
			  :: else -> skip
			  fi; fw_i++
	:: else -> break
	od;
	fw_i = 0
}

/* wake the n oldest sleepers on addr; with addr2, move all the others to
 * the tail of addr2's queue, in their order (nmove is always INT_MAX in
 * fthr, and this variant assumes it); cnt += the number woken or moved */
inline futex_pick(addr, n, addr2, nmove, cnt)
{
	fw_n = n;
	do
	:: fw_n > 0 -> fq_oldest(addr);
		if
		:: fw_m < NPROC -> fsleep[fw_m] = 0; fq_remove(fw_m); fw_n--; cnt++
		:: else -> fw_n = 0
		fi
	:: else -> break
	od;
	do
	:: addr2 != 0 -> fq_oldest(addr);
		if
		:: fw_m < NPROC -> fsleep[fw_m] = addr2; fw_n = fw_m;
			fq_remove(fw_n); fq_append(fw_n); cnt++
		:: else -> break
		fi
	:: else -> break
	od;
	fw_i = 0; fw_c = 0; fw_n = 0; fw_m = 0
}
#define FQ_ENQUEUE()	fq_append(_pid)
#define FQ_DEQUEUE()	fq_remove(_pid)
#else
#define FQ_ENQUEUE()	skip
#define FQ_DEQUEUE()	skip

/* the kernel's choice of n sleepers on addr out of fw_c of them, in one
 * atomic step: each sleeper in turn is woken (while n remain) or passed
 * over (while more sleepers remain than wakes to give); a passed-over one
 * is moved to addr2 while nmove remain (addr2 0: plain wake); cnt += the
 * number woken or moved. */
inline futex_pick(addr, n, addr2, nmove, cnt)
{
	fw_c = 0; fw_i = 0;
	do
	:: fw_i < NPROC -> if
			  :: FMATCH(fw_i, addr) -> fw_c++
			  :: else -> skip
			  fi; fw_i++
	:: else -> break
	od;
	fw_i = 0; fw_n = n; fw_m = nmove;
	do
	:: fw_i >= NPROC -> break
	:: fw_i < NPROC && !FMATCH(fw_i, addr) -> fw_i++
	:: fw_i < NPROC && FMATCH(fw_i, addr) && fw_n > 0 ->
		fsleep[fw_i] = 0; fw_n--; fw_c--; fw_i++; cnt++
	:: fw_i < NPROC && FMATCH(fw_i, addr) && fw_c > fw_n ->
		if
		:: addr2 != 0 && fw_m > 0 -> fsleep[fw_i] = addr2; fw_m--; cnt++
		:: else -> skip
		fi;
		fw_c--; fw_i++
	od;
	fw_i = 0; fw_c = 0; fw_n = 0; fw_m = 0
}
#endif

/* futex(2) FUTEX_WAIT(_BITSET): fthr_futex_wait(addr, expect, ..., abstime);
 * timed: the caller passed a deadline.
 * The compare and the enqueue are one atomic step; the sleep itself is
 * outside it, so that other threads run while this one sleeps and the
 * optional events can strike at any later moment (inside an atomic
 * sequence an executable option would be taken at once). */
#define F_ASLEEP	254	/* model only: enqueued, not yet returned */

inline futex_sleep(ret, timed, cancelable, addr, expect)
{
	do
	:: fsleep[_pid] == 0 -> ret = F_OK; break	/* woken: dequeued by a waker */
	:: atomic { spur_left > 0 && fsleep[_pid] != 0 ->
		spur_left--; FQ_DEQUEUE(); fsleep[_pid] = 0; ret = F_OK }; break
	:: atomic { eintr_left > 0 && fsleep[_pid] != 0 ->
		eintr_left--; FQ_DEQUEUE(); fsleep[_pid] = 0; ret = F_EINTR }; break
	:: atomic { timed && tmo_left > 0 && fsleep[_pid] != 0 ->
		tmo_left--; FQ_DEQUEUE(); fsleep[_pid] = 0; ret = F_ETIMEDOUT }; break
	:: atomic { cancelable && cancel_left > 0 && fsleep[_pid] != 0 ->
		cancel_left--; FQ_DEQUEUE(); fsleep[_pid] = 0; ret = F_CANCELLED }; break
	/* a sleep bounded in time (RECHECK_OK, a model's option: true for the
	 * sleepers whose sleep has a bound): once nothing else can happen
	 * (Promela's timeout), the bound passes */
	:: atomic { RECHECK_OK && timeout && fsleep[_pid] != 0 ->
		FQ_DEQUEUE(); fsleep[_pid] = 0; ret = F_RECHECK }; break
	/* interrupted and restarted (a handler with SA_RESTART, a stop and
	 * continue, the kernel's retry after a wake-up that dequeued
	 * nothing): off whatever queue it is on -- the word it waited on, or
	 * the one a requeue moved it to -- and the same wait again, on the
	 * word it was called with: EAGAIN if that moved, else asleep there */
	:: atomic { restart_left > 0 && fsleep[_pid] != 0 ->
		restart_left--; FQ_DEQUEUE(); fsleep[_pid] = 0;
		if
		:: mem[addr] != expect -> ret = F_EAGAIN
		:: else -> fsleep[_pid] = addr; FQ_ENQUEUE()
		fi };
		if
		:: ret == F_EAGAIN -> break
		:: else -> skip
		fi
	od
}

inline futex_wait(addr, expect, ret, timed)
{
	atomic {
		if
		:: mem[addr] != expect -> ret = F_EAGAIN
		:: else -> fsleep[_pid] = addr; FQ_ENQUEUE(); ret = F_ASLEEP
		fi
	};
	if
	:: ret == F_ASLEEP -> futex_sleep(ret, timed, 0, addr, expect)
	:: else -> skip
	fi
}

/* futex(2) FUTEX_WAIT_BITSET with a bitset of the caller's:
 * fthr_futex_wait_bits (bits 0: any, as futex_wait) */
inline futex_wait_bits(addr, expect, ret, timed, bits)
{
	atomic {
		if
		:: mem[addr] != expect -> ret = F_EAGAIN
		:: else -> fsleep[_pid] = addr; fbits[_pid] = bits; FQ_ENQUEUE(); ret = F_ASLEEP
		fi
	};
	if
	:: ret == F_ASLEEP -> futex_sleep(ret, timed, 0, addr, expect)
	:: else -> skip
	fi;
	fbits[_pid] = 0
}

/* cancel.c fthr_futex_wait_cancelable: the same, and asynchronous
 * cancellation may strike while asleep or after the wait returned (the
 * wake-up the thread may have consumed is then the cleanup's business).
 * ret == F_CANCELLED: the caller runs its cleanup handler next. */
inline futex_wait_cancelable(addr, expect, ret, timed)
{
	atomic {
		if
		:: mem[addr] != expect -> ret = F_EAGAIN
		:: else -> fsleep[_pid] = addr; FQ_ENQUEUE(); ret = F_ASLEEP
		fi
	};
	if
	:: ret == F_ASLEEP -> futex_sleep(ret, timed, 1, addr, expect)
	:: else -> skip
	fi;
	if
	:: atomic { cancel_left > 0 && ret != F_CANCELLED -> cancel_left--; ret = F_CANCELLED }
	:: true -> skip
	fi
}

/* futex(2) FUTEX_WAKE: fthr_futex_wake(addr, n), its result dropped */
inline futex_wake(addr, n)
{
	atomic { futex_pick(addr, n, 0, 0, fw_k); fw_k = 0 }
}

/* futex(2) FUTEX_WAKE_BITSET: fthr_futex_wake_bits(addr, n, bits), only
 * the sleepers whose bitset shares a bit with bits */
inline futex_wake_bits(addr, n, bits)
{
	atomic { fw_b = bits; futex_pick(addr, n, 0, 0, fw_k); fw_k = 0; fw_b = 0 }
}

/* the same, cnt = the result: how many it woke (cnt is 0 before) */
inline futex_wake_cnt(addr, n, cnt)
{
	atomic { futex_pick(addr, n, 0, 0, cnt) }
}

/* futex(2) FUTEX_CMP_REQUEUE: fthr_futex_cmp_requeue(addr, expect, nwake,
 * addr2, nmove); ret F_OK (>= 0) or F_EAGAIN (-EAGAIN); with F_OK, cnt =
 * the number woken plus moved (cnt is 0 before) */
inline futex_cmp_requeue(addr, expect, nwake, addr2, nmove, ret, cnt)
{
	atomic {
		if
		:: mem[addr] != expect -> ret = F_EAGAIN
		:: else -> ret = F_OK; futex_pick(addr, nwake, addr2, nmove, cnt)
		fi
	}
}

#endif
