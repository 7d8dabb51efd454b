/* lib/thr_cond.c: condition variables on one futex word, a sequence count.
 *
 * Words (overlaid on the 48-byte pthread_cond_t; all-zero is the static
 * initializer: realtime clock, process-private):
 *   seq       the futex word: every signal and broadcast adds 1
 *   waiters   threads inside a wait, and the holds of deferred broadcasts
 *             under way (a drain count, drain.h: destroy waits for
 *             released waiters to leave the object's memory)
 *   flags     bit 0 process-shared (on a host without the calls, below),
 *             bits 1.. the clock of timedwait
 *   sleepers  waiters that gave up spinning and sleep in futex_wait, and
 *             that no wake-up has taken off the futex queue yet
 *   herd      seq as the last broadcast to a herd left it (below); a hint,
 *             no part of the protocol
 *   wake      owed << 1 | flying: flying while a sleeper that a signal
 *             woke is on its way back from futex_wait (one wake-up in
 *             flight); owed, the wake-ups signals sent meanwhile still owe
 *             to sleepers (below, One wake-up in flight)
 *   mutex     the mutex the last waiter came with (below, Deferred
 *             wake-ups)
 *
 *   wait       mutex = m; waiters += 1; s = seq; release the mutex;
 *              maybe spin a while for seq != s (wait.c); else sleepers += 1,
 *              futex_wait(seq, s) (again while it returns EINTR: a
 *              handler ran, nobody woke it), sleepers -= 1 unless a waker
 *              did it for us (below); leave (below); re-take the mutex: as
 *              a plain lock (it may spin while the signaller lets go), or,
 *              if it slept and herd == seq, in the mutex's queue: SWAP(2),
 *              futex_wait; else as the wait policy says (wait.c: a yield
 *              first, or not).
 *   signal     if waiters == 0: return (nobody to wake, no atomic write).
 *              seq += 1; if sleepers: if flying: owed += 1 unless owed
 *              >= sleepers; else flying = 1, wake_one (a spinner sees seq
 *              move by itself: no system call; and once the sleepers are
 *              woken, the signals sent before they run make none either,
 *              as in a producer's loop).
 *   wake_one   n = futex_wake(seq, 1), sleepers -= n; if n == 0: if owed:
 *              owed -= 1 and again, else wake = 0 (one CAS).
 *   back       (a sleeper a wake took off the queue: its wait returned 0;
 *              and every cancelled sleeper) if flying: if owed: owed -= 1,
 *              wake_one; else flying = 0.
 *   broadcast  if waiters == 0: return. seq += 1; if sleepers: (if they
 *              are a herd, herd = seq;) n = futex_wake(seq, all),
 *              sleepers -= n.
 *   deferred   a broadcast whose caller holds the waiters' mutex moves
 *              seq at once, and if it found sleepers, leaves the rest to
 *              the caller's release of that mutex, which holds the drain
 *              count if a thread is inside (else nothing is left to do),
 *              releases the word, reads sleepers again, wakes them all,
 *              and lets go of the hold.
 *   leave      a waiter leaves the drain count only while no hold is
 *              counted (else it waits for the holds to go).
 * A herd: a broadcast that woke more sleepers than the wait policy calls a
 * herd (wait.c) stores seq in herd, and those sleepers queue on the mutex
 * at once.
 * Who counts a sleeper out: a wait that returns 0 was taken off the queue
 * by a wake (futex.h: fthr_futex_counts_exact), whose caller subtracts
 * it; a wait that returns EAGAIN or ETIMEDOUT was not, and subtracts
 * itself; one that returns EINTR was not either, and waits again still
 * counted, as after a restart (below). So sleepers is exact: 0 once
 * nobody waits, bar a cancelled sleeper, which stays counted (its
 * cleanup cannot tell whether a wake-up took it off the queue); one too
 * many costs a futex_wake that wakes nobody, never a lost wake-up
 * (verify/cond.pml checks both). This holds through the kernel's restarts too: a wait
 * interrupted by a handler with SA_RESTART (or a stop signal) is taken
 * off the queue and compares seq again, and it was not counted out; a
 * wait the handler ended with EINTR (no SA_RESTART, or any deadline: the
 * kernel then does not restart) is called again by the waiter, the same.
 * One wake-up in flight (exact counts only; without, a signal wakes at once):
 * a signal that finds a woken sleeper still on its way leaves the next
 * wake-up to it, and each sleeper so woken wakes the next one owed. A
 * producer that signals each item wakes each sleeping consumer in turn,
 * one a few microseconds after the other, instead of all of them within
 * a microsecond, each a futex_wake system call and a cpu the producer
 * needs, to find the items taken (docs/performance.md). glibc 2.36 gets
 * there another way: a signal that finds every
 * waiter of its group signalled waits in __condvar_quiesce_and_switch_g1
 * until they have left. No wake-up is lost: flying is set only by a
 * signal or a back that then runs wake_one, which either woke a sleeper,
 * who will run back (a woken sleeper returns 0, and cond_cancelled runs
 * back too), or found none asleep and clears the word in the CAS that
 * finds nothing owed: every sleeper a signal counted before that had read
 * seq before the signal moved it, so its futex_wait returns at once (or
 * it read the new seq, and is owed nothing). owed < sleepers keeps the
 * chain from waking more threads than sleep. A broadcast wakes all and
 * leaves the word: a flying sleeper's back clears it, or a later signal's
 * owed wake-up is paid by that back (verify/cond.pml models it).
 * No requeue onto the mutex: a waiter cannot tell whether a requeue
 * moved it, and two real bugs came of guessing (verify/README.md, real
 * bug 6): sleepers crept up without bound (each a futex system call in
 * every later signal), and a moved
 * sleeper whose wait the kernel restarted slept on seq uncounted, so the
 * next signal skipped it: a lost wake-up. glibc (2.25 on) wakes all too.
 *
 * A waiter counts itself in sleepers before futex_wait compares seq, and a
 * signaller reads sleepers after it moved seq (both sequentially
 * consistent): a signaller that sees no sleeper moved seq before any
 * sleeper's compare, so that futex_wait returns at once.
 * No lost wake-up: a waiter reads seq before it releases the mutex, so a
 * signal sent after it started waiting changes seq and either makes its
 * futex_wait return at once (it had not slept yet) or finds it asleep in the
 * kernel's queue, behind all earlier sleepers (FIFO per priority), so the
 * one-wake goes to a thread that was waiting when the signal came. A
 * signaller holding the mutex runs entirely before or after a waiter's
 * registration, so a later waiter cannot take its wake-up.
 * Deferred wake-ups (wait morphing, as FreeBSD's libthr, for broadcasts):
 * the sleepers a broadcast wakes while its caller still holds the mutex
 * all find the mutex held, and each sleeps again on the mutex's word; the
 * futex_wake, a system call, also lengthens the caller's critical
 * section. So a broadcast made by the holder of a mutex of the plain kinds
 * (private, not robust nor priority: their every release passes through
 * one function, thr_mutex.c word_release) records the condition in the
 * thread (at most DEFER_MAX; one more wakes at once), and that release
 * wakes its sleepers once the word is released: the first to run takes
 * the mutex free. A later signal or broadcast of the same thread on the
 * same condition is served by that one wake of all. A signal wakes at
 * once: its one sleeper takes microseconds to run, and woken inside the
 * critical section it arrives about when the holder leaves, while
 * deferred it arrives later, after a producer has often taken the mutex
 * again (docs/performance.md has both measured).
 * Holder: c->mutex, the mutex the waiters came with (POSIX: one mutex for
 * all of a condition's waiters at a time), is the caller's by its owner
 * field. No wake-up is lost: seq moved at the broadcast, so a waiter that
 * had not slept yet does not; one asleep stays asleep, and counted, until
 * the release wakes it; no waiter can enter meanwhile, the mutex being
 * held; and the release reads sleepers again.
 * The condition must live until the last write of that wake-up (count_out
 * after the futex_wake, the hold's release), but the mutex is free: a
 * woken waiter may return at once, and its program free the condition,
 * destroyed or not. So just before the release the caller holds the
 * waiters' drain count (drain.h), if a thread is inside (one CAS; none
 * inside, no sleeper either, nothing to wake), and a waiter does not
 * leave the count while a hold is counted (one CAS; else it yields once,
 * the waker being perhaps this cpu's other thread, then sleeps on the
 * count until the hold goes): while the wake-up is under way a thread is
 * inside the wait, so no program may free the condition, and destroy
 * waits for the hold too. A destroy by the holder makes its own deferred
 * wake-ups first, still holding the mutex. verify/cond.pml models it and
 * checks that a thread is inside until every wake-up's end.
 * Whether a waiter spins before it sleeps, naps before it re-takes the
 * mutex, or yields first (batching, the nap, the relock yield, a young
 * condition's hand-shake): the wait policy's rules, lib/wait.c. None of
 * them writes a word of the protocol: the protocol sees a waiter that
 * spun, or that was descheduled for a while.
 * Timeouts: a waiter whose deadline passed returns 0, not ETIMEDOUT, if seq
 * moved meanwhile: the signal may have been meant for it.
 * Cancellation (a cancellation point, the host's machinery): the type is
 * asynchronous only around the futex wait, and every return of the wait,
 * spun or slept, checks for a request before it re-takes the mutex
 * (fthr_cancel_before_return, host.h); the cleanup handler leaves the
 * sleeper and waiter counts, re-takes the mutex before the caller's
 * handlers run, and passes on a wake-up it may have consumed (one
 * futex_wake).
 * Process-shared condition variables are the host library's (host.h):
 * init with the attribute calls the host's, which marks bit 0 of its
 * __wrefs (offset 36 on x86_64, past every word of fthr's), and each call
 * that finds the mark goes to the host's function. Chosen over a copy of
 * glibc's protocol: the waiter, waker and maker may each be a plain-glibc
 * process, on whatever layout the host's release uses (glibc changed it
 * between releases), and the host's wait releases and re-takes the mutex
 * with its own code on the bytes and protocol fthr's mutexes share with
 * it. What it costs: docs/performance.md.
 */
#include "config.h"
#include "objects.h"
#include <limits.h>
#include "diag.h"
#include "drain.h"
#include "host.h"
#include "mutex.h"
#include "self.h"
#include "wait.h"

struct cond {
	volatile int seq;
	volatile int waiters;
	int flags;
	volatile int sleepers; /* in futex_wait (or about to be), not yet woken */
	volatile int herd;     /* seq after the last broadcast that woke a herd */
	volatile int wake;     /* owed << 1 | flying (head comment) */
	pthread_mutex_t *volatile mutex; /* the waiters' mutex (head comment) */
};
_Static_assert(sizeof(struct cond) <= sizeof(pthread_cond_t), "cond fits");
_Static_assert(_Alignof(struct cond) <= _Alignof(pthread_cond_t), "cond aligned");
/* The host's process-shared mark lies beyond fthr's words (head comment). */
_Static_assert(sizeof(struct cond) <= __builtin_offsetof(pthread_cond_t, __data.__wrefs),
	       "fthr's cond leaves the host's __wrefs alone");
FTHR_COND_LAYOUT(struct cond); /* tests read it by these names */

#define CF_SHARED 1
#define CF_CLOCK_SHIFT 1

static inline struct cond *C(pthread_cond_t *c)
{
	return (struct cond *)c;
}

/* Broadcasts deferred to the holder's release of the mutex (head
 * comment): the condition, its mutex, the seq the broadcast left, and
 * whether fthr_cond_hold holds the condition; at most DEFER_MAX, a
 * broadcast on one more condition wakes at once. */
#define DEFER_MAX 4
struct deferred {
	struct cond *c;
	pthread_mutex_t *m;
	int seq;
	bool held;
};
static __thread struct deferred deferred[DEFER_MAX]
	__attribute__((tls_model("initial-exec")));
__thread int fthr_cond_deferred __attribute__((tls_model("initial-exec")));

/* ---- process-shared: the host's condition variable (host.h) ---- */

/* Made by the host's init with the process-shared attribute (glibc.h, 5):
 * fthr's own conds, all-zero in __wrefs, never have the mark. */
static inline bool host_cond(const pthread_cond_t *cv)
{
	return fthr_glibc_cond_shared(cv);
}

enum host_op { H_SIGNAL, H_BROADCAST, H_DESTROY };

static FTHR_COLD int host_call(pthread_cond_t *cv, enum host_op op)
{
	const struct fthr_host_shared *h = fthr_hs();

	if (!h->ok_cond) /* a glibc object on a host without glibc's calls */
		return EINVAL;
	return op == H_SIGNAL ? h->cond_signal(cv)
	       : op == H_BROADCAST ? h->cond_broadcast(cv) : h->cond_destroy(cv);
}

/* clk < 0: no deadline; clk == INT_MAX: timedwait (the cond's clock). */
static FTHR_COLD int host_wait(pthread_cond_t *cv, pthread_mutex_t *m, clockid_t clk,
			       const struct timespec *abstime)
{
	const struct fthr_host_shared *h = fthr_hs();
	int r;

	if (!h->ok_cond)
		return EINVAL;
	r = clk < 0 ? h->cond_wait(cv, m)
	    : clk == INT_MAX ? h->cond_timedwait(cv, m, abstime)
			     : h->cond_clockwait(cv, m, clk, abstime);
	if (a_load_relaxed(&m->__data.__kind) & FTHR_MUTEX_PRIO_PROTECT)
		fthr_pp_reapply();
	return r;
}

struct wait_ctx {
	struct cond *c;
	pthread_mutex_t *m;
	unsigned saved;
	bool sleeping; /* counted in sleepers */
};

/* A waker took n sleepers off the futex queue: they are not sleepers any
 * more (with exact counts; see the head comment). */
static inline void count_out(struct cond *c, int n)
{
	if (n > 0 && fthr_futex_counts_exact) {
		int left = __atomic_sub_fetch(&c->sleepers, n, __ATOMIC_RELAXED);

		FTHR_ASSERT(left >= 0); /* verify/cond.pml asserts it too */
		(void)left;
	}
}

/* If flying: take one owed wake-up (true; flying stays set), or clear the
 * word (false). Not flying: false. One CAS (head comment). */
static bool wake_take(struct cond *c)
{
	int w = __atomic_load_n(&c->wake, __ATOMIC_SEQ_CST);

	while (w & 1)
		if (__atomic_compare_exchange_n(&c->wake, &w, w > 1 ? w - 2 : 0, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return w > 1;
	return false;
}

/* wake_one (head comment): a wake-up with the flying mark set. One that
 * woke nobody clears the word, but with wake_take's CAS: a signal may have
 * owed a wake-up meanwhile to a sleeper that went to sleep since
 * (verify/cond.pml found the plain store's lost wake-up), and that one is
 * paid now. */
static FTHR_COLD void wake_one(struct cond *c, bool shared)
{
	int n;

	while ((n = fthr_futex_wake(&c->seq, 1, shared)) == 0)
		if (!wake_take(c))
			return;
	count_out(c, n);
}

/* A waiter leaves the drain count, but not while a deferred wake-up is
 * under way (head comment): it waits, first with a yield (the waker may
 * be this cpu's other thread, preempted by this one's wake-up), then on
 * the futex. */
static FTHR_COLD void holds_wait(struct cond *c, bool shared)
{
	fthr_yield();
	fthr_drain_hold_wait(&c->waiters, shared);
}

static inline void cond_leave(struct cond *c, bool shared)
{
	while (unlikely(!fthr_drain_leave_unheld(&c->waiters, shared)))
		holds_wait(c, shared);
}

/* back (head comment): a sleeper a wake-up took off the queue */
static void wake_back(struct cond *c, bool shared)
{
	if (wake_take(c))
		wake_one(c, shared);
}

static void cond_cancelled(void *arg)
{
	struct wait_ctx *w = arg;
	bool shared = w->c->flags & CF_SHARED;

	/* (whether a wake-up took us off the queue is not known here: with
	 * exact counts, stay counted, one too many at worst) */
	if (w->sleeping && !fthr_futex_counts_exact)
		__atomic_fetch_sub(&w->c->sleepers, 1, __ATOMIC_RELAXED);
	/* pass on what we may have taken */
	if (fthr_futex_counts_exact)
		wake_back(w->c, shared);
	count_out(w->c, fthr_futex_wake(&w->c->seq, 1, shared));
	cond_leave(w->c, shared);
	fthr_mutex_cond_lock(w->m, w->saved, FTHR_RELOCK_SPIN);
}

static int cond_wait(pthread_cond_t *cv, pthread_mutex_t *m, clockid_t clk,
		     const struct timespec *abstime)
{
	struct cond *c = C(cv);
	struct wait_ctx w = { .c = c, .m = m };
	bool shared = c->flags & CF_SHARED;
	int seq, r, lr;
	enum fthr_relock how = FTHR_RELOCK_SPIN;
	bool batching;

	if (abstime && (r = fthr_abstime_check(abstime)) != 0)
		return r;
	/* (before the count, which publishes it: a broadcast that sees this
	 * waiter counted sees its mutex) */
	if (__atomic_load_n(&c->mutex, __ATOMIC_RELAXED) != m)
		__atomic_store_n(&c->mutex, m, __ATOMIC_RELAXED);
	fthr_drain_enter(&c->waiters);
	seq = a_load_relaxed(&c->seq);
	r = fthr_mutex_cond_unlock(m, &w.saved);
	if (r) {
		cond_leave(c, shared);
		return r;
	}
	if (fthr_wait_cond_spin(&c->seq, seq, &c->waiters, &batching)) {
		r = 0;
	} else {
		w.sleeping = true;
		__atomic_fetch_add(&c->sleepers, 1, __ATOMIC_SEQ_CST);
		/* EINTR: a handler ran, no wake-up took us off the queue; still
		 * counted, sleep again, as the kernel's restart does: no
		 * spurious wake-up (glibc's guarantee, tst-eintr5) */
		do
			r = fthr_futex_wait_cancelable(&c->seq, seq, shared, clk, abstime,
						       cond_cancelled, &w);
		while (r == EINTR);
		/* not counted out by a waker (head comment) */
		if (!fthr_futex_counts_exact || r != 0) {
			FTHR_ASSERT(a_load_relaxed(&c->sleepers) > 0);
			__atomic_fetch_sub(&c->sleepers, 1, __ATOMIC_RELAXED);
		}
		w.sleeping = false;
		if (r == 0 && fthr_futex_counts_exact)
			wake_back(c, shared);
		if (r == 0)
			how = fthr_wait_cond_relock(&c->seq, &c->herd);
		if (batching)
			fthr_wait_cond_woken(&c->seq, seq, &c->waiters, m, r, abstime != NULL);
	}
	/* Every return of the wait passes here, whichever way it saw seq
	 * move (or timed out): a request made before the wake-up was sent,
	 * or pending at entry, is acted on inside the wait, the wake-up passed
	 * on and the mutex re-taken for the handlers. */
	fthr_cancel_before_return(cond_cancelled, &w);
	if (r == ETIMEDOUT && a_load_relaxed(&c->seq) != seq)
		r = 0;
	cond_leave(c, shared);
	/* EOWNERDEAD / ENOTRECOVERABLE of a robust mutex outrank a timeout. */
	lr = fthr_mutex_cond_lock(m, w.saved, how);
	if (lr)
		return lr;
	return r == ETIMEDOUT ? ETIMEDOUT : 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (unlikely(host_cond(c)))
		return host_wait(c, m, -1, NULL);
	return cond_wait(c, m, CLOCK_REALTIME, NULL);
}

FTHR_HIDDEN FTHR_INLINED int fthr_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				    const struct timespec *abstime)
{
	if (!abstime)
		return EINVAL;
	if (unlikely(host_cond(c)))
		return host_wait(c, m, INT_MAX, abstime);
	return cond_wait(c, m, C(c)->flags >> CF_CLOCK_SHIFT, abstime);
}

FTHR_HIDDEN FTHR_INLINED int fthr_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
				    clockid_t clk, const struct timespec *abstime)
{
	if (!fthr_futex_clock_ok(clk) || !abstime)
		return EINVAL;
	if (unlikely(host_cond(c)))
		return host_wait(c, m, clk, abstime);
	return cond_wait(c, m, clk, abstime);
}

/* The caller's pending broadcast on c, or NULL. */
static struct deferred *deferred_on(const struct cond *c)
{
	for (int i = 0; i < fthr_cond_deferred; i++)
		if (deferred[i].c == c)
			return &deferred[i];
	return NULL;
}

/* A signal that found sleepers (head comment, One wake-up in flight). */
static FTHR_COLD void signal_sleepers(struct cond *c, int sleepers)
{
	bool shared = c->flags & CF_SHARED;
	int w;

	if (fthr_cond_deferred && deferred_on(c))
		return; /* our broadcast, at our unlock, wakes them all */
	if (!fthr_futex_counts_exact) {
		count_out(c, fthr_futex_wake(&c->seq, 1, shared));
		return;
	}
	w = __atomic_load_n(&c->wake, __ATOMIC_SEQ_CST);
	for (;;) {
		if ((w & 1) && (w >> 1) >= sleepers)
			return; /* every sleeper is owed a wake-up already */
		if (__atomic_compare_exchange_n(&c->wake, &w, (w & 1) ? w + 2 : 1, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			break;
	}
	if (!(w & 1))
		wake_one(c, shared);
}

/* A broadcast's wake-up of n sleepers, which left seq at s. */
static FTHR_COLD void wake_all(struct cond *c, int s, int n)
{
	if (fthr_wait_herd(n))
		a_store_relaxed(&c->herd, s);
	count_out(c, fthr_futex_wake(&c->seq, INT_MAX, c->flags & CF_SHARED));
}

/* A broadcast, seq left at s: if the caller holds the waiters' mutex,
 * leave the wake-up to its release (head comment); false if it must be
 * made now. */
static bool defer(struct cond *c, int s)
{
	pthread_mutex_t *m = __atomic_load_n(&c->mutex, __ATOMIC_RELAXED);
	struct deferred *d;
	int n = fthr_cond_deferred;

	if (!m || (c->flags & CF_SHARED) || !fthr_mutex_defers(m))
		return false;
	if ((d = deferred_on(c))) {
		if (d->m != m)
			return false;
		d->seq = s; /* one wake of all serves both */
		return true;
	}
	if (n == DEFER_MAX)
		return false;
	deferred[n] = (struct deferred){ .c = c, .m = m, .seq = s };
	fthr_cond_deferred = n + 1;
	return true;
}

/* Before the release of mutex m (every mutex: NULL): hold each of its
 * conditions that has a thread inside; one that has none has no sleeper
 * either, and nothing to wake. */
FTHR_COLD void fthr_cond_hold(const pthread_mutex_t *m)
{
	for (int i = 0; i < fthr_cond_deferred; i++)
		if (!m || deferred[i].m == m)
			deferred[i].held = fthr_drain_hold(&deferred[i].c->waiters);
}

/* Make the deferred wake-ups of mutex m (every mutex: NULL), held by
 * fthr_cond_hold; those of other mutexes stay. */
FTHR_COLD void fthr_cond_flush(const pthread_mutex_t *m)
{
	int n = fthr_cond_deferred, kept = 0, k;

	for (int i = 0; i < n; i++) {
		struct deferred d = deferred[i];

		if (m && d.m != m) {
			deferred[kept++] = d;
			continue;
		}
		if (!d.held)
			continue;
		if ((k = __atomic_load_n(&d.c->sleepers, __ATOMIC_SEQ_CST)) > 0)
			wake_all(d.c, d.seq, k);
		fthr_drain_unhold(&d.c->waiters, false);
	}
	fthr_cond_deferred = kept;
}

/* A broadcast that found n sleepers, seq left at s: deferred, or now. */
static FTHR_COLD void broadcast_sleepers(struct cond *c, int s, int n)
{
	if (!defer(c, s))
		wake_all(c, s, n);
}

FTHR_HIDDEN int fthr_cond_signal(pthread_cond_t *cv)
{
	struct cond *c = C(cv);
	int n;

	if (unlikely(host_cond(cv)))
		return host_call(cv, H_SIGNAL);
	if (fthr_drain_count(&c->waiters) == 0)
		return 0;
	__atomic_fetch_add(&c->seq, 1, __ATOMIC_SEQ_CST);
	if ((n = __atomic_load_n(&c->sleepers, __ATOMIC_SEQ_CST)) > 0)
		signal_sleepers(c, n);
	return 0;
}

FTHR_HIDDEN int fthr_cond_broadcast(pthread_cond_t *cv)
{
	struct cond *c = C(cv);
	int s, n;

	if (unlikely(host_cond(cv)))
		return host_call(cv, H_BROADCAST);
	if (fthr_drain_count(&c->waiters) == 0)
		return 0;
	s = __atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
	/* (no sleeper: spinners see seq move) */
	n = __atomic_load_n(&c->sleepers, __ATOMIC_SEQ_CST);
	if (n > 0)
		broadcast_sleepers(c, s, n);
	return 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_cond_init(pthread_cond_t *cv, const pthread_condattr_t *a)
{
	struct cond *c = C(cv);

	if (a && (a->__align & CF_SHARED) && fthr_hs()->ok_cond)
		return fthr_hs()->cond_init(cv, a); /* the same attribute layout */
	*cv = (pthread_cond_t){ 0 };
	c->flags = a ? a->__align : 0;
	return 0;
}

FTHR_HIDDEN FTHR_INLINED int fthr_cond_destroy(pthread_cond_t *cv)
{
	struct cond *c = C(cv);

	if (unlikely(host_cond(cv)))
		return host_call(cv, H_DESTROY);
	/* The caller's own deferred wake-ups first, or it would wait for
	 * their holds. */
	if (fthr_cond_deferred) {
		fthr_cond_hold(NULL);
		fthr_cond_flush(NULL);
	}
	/* Released waiters may still be leaving: wait them out (as glibc). */
	fthr_drain_wait(&c->waiters, c->flags & CF_SHARED);
	return 0;
}

/* ---- attributes: one int, bit 0 pshared, bits 1.. the clock ---- */

FTHR_HIDDEN int fthr_condattr_init(pthread_condattr_t *a)
{
	a->__align = CLOCK_REALTIME << CF_CLOCK_SHIFT;
	return 0;
}

FTHR_HIDDEN int fthr_condattr_destroy(pthread_condattr_t *a)
{
	(void)a;
	return 0;
}

FTHR_HIDDEN int fthr_condattr_setclock(pthread_condattr_t *a, clockid_t clk)
{
	if (!fthr_futex_clock_ok(clk))
		return EINVAL;
	a->__align = (a->__align & CF_SHARED) | (clk << CF_CLOCK_SHIFT);
	return 0;
}

FTHR_HIDDEN int fthr_condattr_getclock(const pthread_condattr_t *a, clockid_t *clk)
{
	*clk = a->__align >> CF_CLOCK_SHIFT;
	return 0;
}

FTHR_HIDDEN int fthr_condattr_setpshared(pthread_condattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__align = (a->__align & ~CF_SHARED) |
		     (pshared == PTHREAD_PROCESS_SHARED ? CF_SHARED : 0);
	return 0;
}

FTHR_HIDDEN int fthr_condattr_getpshared(const pthread_condattr_t *a, int *pshared)
{
	*pshared = (a->__align & CF_SHARED) ? PTHREAD_PROCESS_SHARED
					    : PTHREAD_PROCESS_PRIVATE;
	return 0;
}

FTHR_EXPORT(pthread_cond_signal, fthr_cond_signal);
FTHR_EXPORT(pthread_cond_broadcast, fthr_cond_broadcast);
FTHR_EXPORT(pthread_condattr_init, fthr_condattr_init);
FTHR_EXPORT(pthread_condattr_destroy, fthr_condattr_destroy);
FTHR_EXPORT(pthread_condattr_setclock, fthr_condattr_setclock);
FTHR_EXPORT(pthread_condattr_getclock, fthr_condattr_getclock);
FTHR_EXPORT(pthread_condattr_setpshared, fthr_condattr_setpshared);
FTHR_EXPORT(pthread_condattr_getpshared, fthr_condattr_getpshared);
/* The entry points FTHR_PROFILE/FTHR_CHECK can watch (diag.h). */
FTHR_EXPORT_WATCHED(int, pthread_cond_init, fthr_cond_init,
		    (pthread_cond_t *c, const pthread_condattr_t *a), (c, a))
FTHR_EXPORT_WATCHED(int, pthread_cond_destroy, fthr_cond_destroy, (pthread_cond_t *c), (c))
FTHR_EXPORT_WATCHED(int, pthread_cond_wait, fthr_cond_wait,
		    (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
FTHR_EXPORT_WATCHED(int, pthread_cond_timedwait, fthr_cond_timedwait,
		    (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t), (c, m, t))
FTHR_EXPORT_WATCHED(int, pthread_cond_clockwait, fthr_cond_clockwait,
		    (pthread_cond_t *c, pthread_mutex_t *m, clockid_t k,
		     const struct timespec *t), (c, m, k, t))
