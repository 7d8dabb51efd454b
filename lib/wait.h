/* lib/wait.h: fthr's wait policy, the one place that decides whether a
 * thread that found an object busy spins, yields, naps or sleeps.
 *
 * The objects keep their futex protocols (what verify/ models): which word
 * a waiter sleeps on, who wakes whom. Between "busy" and "sleep in the
 * kernel" they ask this module:
 *   a lock word (lll.h, mutexes)      fthr_wait_word_spin, and for the
 *                                     hand-off fthr_wait_fair_*
 *   an adaptive mutex                 fthr_wait_adaptive
 *   any other lock (rwlocks)          fthr_wait_patience, FTHR_WAIT_LOCK(_OR)
 *   an event (semaphores, barriers)   FTHR_WAIT_EVENT
 *   a condition wait                  fthr_wait_cond_spin, _cond_woken,
 *                                     _cond_relock, _herd, _relock_yield
 * Every constant is a field of fthr_wait_tune (wait_tune.h), set from
 * FTHR_WAIT at start (env.c; secure-execution mode: the defaults). The
 * state kept per thread is fthr_waiter_rec's, nothing else's.
 *
 * The rules, and why:
 * - Spin budget. Handing over to a thread that spins costs a fraction of a
 *   microsecond; waking one that sleeps costs tens. But a spin that never
 *   pays (the partner on the same cpu, long hold times) only burns the cpu
 *   the partner needs. So each thread keeps a budget of relax hints: it
 *   grows when a spin ends in success and halves when the spin gives up,
 *   between spin_min and spin_max.
 * - The closing yield. A spin that gives up, or a waiter that may not
 *   spin, yields the cpu once, so that a partner waiting for this cpu runs
 *   at once (no futex round trip), and looks again before the caller
 *   sleeps.
 * - A spin needs a second cpu: the thread it waits for must run meanwhile.
 *   A process whose affinity allows one cpu (fthr_cpus_affine) never
 *   spins; its waiter looks once, yields once (the closing yield) and
 *   sleeps. A cgroup's CPU quota does not stop the spin: under a quota of
 *   one cpu's time on two cpus, two threads still run at once for part of
 *   each period, and a short spin costs the quota less than a futex sleep
 *   and wake-up. With more cpus every waiter may spin: no count bounds
 *   the spinners of an object (docs/design.md), since with more threads
 *   than cpus most waiters are preempted in mid-spin, and a place held by
 *   a spinner that does not run would shut out a waiter that does.
 * - Crowded, for a thread. On a machine with more runnable threads than
 *   cpus the yield hands the cpu to another process for its whole slice,
 *   and the waiter, which never slept, is not woken ahead of it either. So
 *   a yield that kept the thread off its cpu longer than yield_long_us (a
 *   partner's hand-off takes microseconds, another process's slice
 *   milliseconds) marks the thread crowded for its next crowd_waits waits
 *   that find an object busy: those neither spin nor yield (a spinner
 *   there only takes the cpu from a holder that was preempted), they look
 *   once and sleep in the kernel, and are woken with a sleeper's priority.
 * - Crowded, the machine: more threads runnable than cpus, by the kernel's
 *   count (fthr_os_runnable: the whole machine), looked at by one thread
 *   at most every crowd_period_us, when one of its crowd_tick-th busy
 *   waits finds the last look that old. Then an event's wait looks once
 *   and sleeps (its spinner may be on the very cpu the signaller needs),
 *   and a lock's wait still spins (a lock taken with no sleeper queued has
 *   a holder that runs) but sleeps when the spin fails, without the
 *   closing yield, which would hand the cpu to a third thread.
 * - Patience. Every look at a lock pulls its line from the holder, whose
 *   next lock or unlock must fetch it back, and a waiter that takes the
 *   lock the moment it sees it free moves the lock, and its line, to the
 *   other cpu every few operations. A waiter that first leaves the holder
 *   alone for 'patience' relax hints lets it run a batch at full speed.
 *   A wait for an event that comes once (a condition waiter re-taking the
 *   mutex its signaller is about to release) looks at once, and so does a
 *   wait on a lock that has sleepers queued already: it queues behind them.
 * - Eventual fairness. A sleeper on a mutex that has waited fair_us is
 *   starving, and a mutex hands itself to a starving sleeper at most once
 *   every fair_us (the protocol, and why: lll.h).
 * The condition variable's rules (batching, the relock yield, a young
 * condition, a herd) are stated in wait.c beside their code.
 */
#ifndef FTHR_WAIT_H
#define FTHR_WAIT_H

#include "futex.h"
#include "self.h"
#include "wait_tune.h"

/* The constants (wait_tune.h), read by every wait; written once, by
 * fthr_wait_configure when the environment is read (diag_state.c: at
 * load), before the process's threads wait. */
extern struct fthr_wait_tune fthr_wait_tune FTHR_HIDDEN;

/* Take a set of constants (already checked: env.c). */
FTHR_HIDDEN void fthr_wait_configure(const struct fthr_wait_tune *t);

/* The state the policy keeps per thread: one initial-exec TLS block. */
struct fthr_waiter {
	int spin;	  /* spin budget, relax hints; 0: spin_start */
	int crowd_left;	  /* crowded: busy waits left that skip spin and yield */
	int crowd_tick;	  /* busy waits left before the next machine look */
	int batch_left;	  /* condition waits left that sleep at once */
	int probe_in;	  /* condition spins that succeed before the next probe, */
	int probe_gap;	  /* and between probes */
	int nap_off;	  /* chances to nap left that pass, */
	int nap_gap;	  /* and after the next nap that stalls */
};
extern __thread struct fthr_waiter fthr_waiter_rec
	__attribute__((tls_model("initial-exec"))) FTHR_HIDDEN;

/* ---- the machine ---- */

/* The cpus the process may use: those online, fewer if its affinity
 * mask when the library was loaded or its cgroup's CPU limit allows fewer
 * (fthr_os_cpus_usable); read once, by the first wait that asks (errno
 * kept); -1 if unknown. A rule
 * that compares threads with cpus compares them with these: a process
 * pinned to one cpu, or a container given one cpu's time, has one cpu's
 * worth of threads running at a time, however many the machine has. */
extern int fthr_cpus FTHR_HIDDEN;
/* The cpus online, the machine's (what its runnable count is judged by) */
extern int fthr_cpus_online FTHR_HIDDEN;
FTHR_HIDDEN void fthr_ncpus_read(void);

/* One of the two counts, read on first use. */
static inline int fthr_cpus_count(const int *which)
{
	int n = a_load_relaxed(which);

	if (unlikely(n == 0)) {
		fthr_ncpus_read();
		n = a_load_relaxed(which);
	}
	return n;
}

static inline int fthr_ncpus(void)
{
	return fthr_cpus_count(&fthr_cpus);
}

static inline int fthr_ncpus_online(void)
{
	return fthr_cpus_count(&fthr_cpus_online);
}

/* The cpus of the process's affinity mask when the library was loaded
 * (wait.c's constructor; -1 before it, or unknown): those it was given. A
 * program that then pins each of its threads to a cpu of its own (the
 * first thread to one, the others to others) still uses them all, which
 * the mask of whichever thread first waits would not say. */
extern int fthr_cpus_affine FTHR_HIDDEN;

/* A spin may pay (the rule above); an unknown count may. */
static inline bool fthr_spin_may(void)
{
	return a_load_relaxed(&fthr_cpus_affine) != 1;
}

/* The invariants build counts the spins, and the most at once. */
static inline void fthr_spin_start(void)
{
#ifdef FTHR_INVARIANTS
	FTHR_COUNT(spins, 1);
	FTHR_COUNT_MOST(spinners_most, __atomic_add_fetch(&fthr_counts.spinning, 1,
							  __ATOMIC_RELAXED));
#endif
}

static inline void fthr_spin_end(void)
{
	FTHR_COUNT(spinning, -1);
}

extern int fthr_machine_crowded FTHR_HIDDEN;
FTHR_HIDDEN void fthr_crowd_look(void);

static inline bool fthr_machine_crowded_now(void)
{
	struct fthr_waiter *me = &fthr_waiter_rec;

	if (unlikely(--me->crowd_tick < 0))
		fthr_crowd_look();
	return a_load_relaxed(&fthr_machine_crowded);
}

/* A look's verdict: *avg64, 64 times a moving average of the runnable
 * counts (each look weighs 1/4), against the cpus with half a thread to
 * spare, so that one look that finds a thread woken for an instant (a
 * kernel worker, a timer) does not stop the spins of a machine that has a
 * cpu per thread. */
static inline bool fthr_crowd_judge(int *avg64, int runnable, int cpus)
{
	*avg64 += (64 * runnable - *avg64) / 4;
	return *avg64 > 64 * cpus + 32;
}

/* ---- the thread ---- */

/* Crowded, for this thread: a recent yield kept it off its cpu long. */
static inline bool fthr_crowded(void)
{
	return fthr_waiter_rec.crowd_left > 0;
}

/* A crowded busy wait that found the object busy after its one look. */
static inline void fthr_crowd_count(void)
{
	if (fthr_waiter_rec.crowd_left > 0)
		fthr_waiter_rec.crowd_left--;
}

/* The spin's last resort: a yield, timed (the crowded rule above). */
FTHR_HIDDEN void fthr_spin_yield_timed(void);

static inline int fthr_spin_budget(void)
{
	int b = fthr_waiter_rec.spin;

	return b ? b : fthr_wait_tune.spin_start;
}

static inline void fthr_spin_learn(int budget, bool won)
{
	int b = won ? budget + budget / 2 + 8 : budget / 2;
	int lo = fthr_wait_tune.spin_min, hi = fthr_wait_tune.spin_max;

	fthr_waiter_rec.spin = b > hi ? hi : b < lo ? lo : b;
}

/* The policy's clock: CLOCK_MONOTONIC in microseconds. */
FTHR_HIDDEN unsigned long long fthr_wait_now_us(void);

/* ---- eventual fairness (lll.h's hand-off) ---- */

/* A sleeper whose wait began at 'since' (fthr_wait_now_us) has waited
 * fair_us: it is starving (never, with fair_us 0). */
FTHR_HIDDEN bool fthr_wait_fair_due(unsigned long long since);

/* The clock in fair_us ticks (any value, with fair_us 0). */
FTHR_HIDDEN unsigned fthr_wait_fair_tick(void);

/* ---- the calls the objects make ---- */

/* Before the first look at a lock found taken (not one with sleepers
 * queued: the caller queues behind them). */
static inline void fthr_wait_patience(void)
{
	if (fthr_crowded() || !fthr_spin_may())
		return;
	for (int i = 0, n = fthr_wait_tune.patience; i < n; i++)
		arch_cpu_relax();
}

/* A lock word of lll.h's protocol that reads taken: spin a while retrying
 * CAS 0->1, after the patience if 'patient' (a mutex; not a condition
 * waiter's re-take nor an internal lock held for a few instructions);
 * true if that took it. */
FTHR_HIDDEN bool fthr_wait_word_spin(volatile int *w, bool patient);

/* An adaptive mutex's word: spin with exponential backoff up to twice the
 * mutex's estimate plus 10, at most adaptive_spins relax hints (none on one
 * cpu); true with the word taken (1). *spun: the relax hints spent, for the estimate. */
FTHR_HIDDEN bool fthr_wait_adaptive(volatile int *w, int estimate, int *spun);

/* Spin until cond holds or the budget is spent; the value is whether cond
 * held. cond may have effects (a CAS that takes). A lock's wait. */
#define FTHR_WAIT_LOCK(cond) FTHR_WAIT_(false, cond, false)

/* The same, but a spin that finds 'queued' true (other waiters went to
 * sleep on the object meanwhile) stops at once: no yield, the budget left
 * alone (no spin was lost, the wait only got a queue ahead of it). */
#define FTHR_WAIT_LOCK_OR(cond, queued) FTHR_WAIT_(false, cond, queued)

/* An event's wait: no spin on a crowded machine. */
#define FTHR_WAIT_EVENT(cond) FTHR_WAIT_(true, cond, false)

#define FTHR_WAIT_(event, cond, queued)                                        \
	({                                                                     \
		int budget_ = fthr_spin_budget(), i_ = 0;                      \
		bool ok_, queued_ = false;                                     \
		if (fthr_crowded() || (event && fthr_machine_crowded_now())) { \
			/* one look, no spin */                                \
			if (!(ok_ = (cond)))                                   \
				fthr_crowd_count();                            \
		} else if (!fthr_spin_may()) {                                 \
			/* one look, then the closing yield */                 \
			if (!(ok_ = (cond)) && !(queued)) {                    \
				fthr_spin_yield_timed();                       \
				ok_ = (cond);                                  \
			}                                                      \
		} else {                                                       \
			fthr_spin_start();                                     \
			while (!(ok_ = (cond)) && !(queued_ = (queued)) &&     \
			       i_++ < budget_)                                 \
				arch_cpu_relax();                              \
			fthr_spin_end();                                       \
			if (!queued_) {                                        \
				/* the spin, not the yield, decides the next   \
				 * budget */                                   \
				fthr_spin_learn(budget_, ok_);                 \
				/* a partner on this cpu first, unless a third \
				 * thread would take it */                     \
				if (!ok_ && !fthr_machine_crowded_now()) {     \
					fthr_spin_yield_timed();               \
					ok_ = (cond);                          \
				}                                              \
			}                                                      \
		}                                                              \
		ok_;                                                           \
	})

/* How a condition waiter re-takes its mutex (fthr_mutex_cond_lock):
 * SPIN   as a plain lock, but it may spin at once;
 * QUEUE  take the word with SWAP(2) and sleep, no spin (a herd);
 * YIELD  if the mutex is held and nobody sleeps on it, yield the cpu once
 *        before the spin (fthr_wait_relock_yield). */
enum fthr_relock { FTHR_RELOCK_SPIN, FTHR_RELOCK_QUEUE, FTHR_RELOCK_YIELD };

/* A condition wait on *seq, which read s, with *waiters the condition's
 * drain count: spin for seq to move? true if it moved. *batching: this
 * wait slept at once, by the batching rule (wait.c). */
FTHR_HIDDEN bool fthr_wait_cond_spin(volatile int *seq, int s, volatile int *waiters,
				     bool *batching);

/* A batching waiter's sleep on seq s ended with r (0, EAGAIN, ETIMEDOUT);
 * it may nap before it re-takes m (wait.c). */
FTHR_HIDDEN void fthr_wait_cond_woken(volatile int *seq, int s, volatile int *waiters,
				      pthread_mutex_t *m, int r, bool timed);

/* How a sleeper a wake-up took off the queue re-takes the mutex, from the
 * condition's seq and herd words. */
FTHR_HIDDEN enum fthr_relock fthr_wait_cond_relock(const volatile int *seq,
						   const volatile int *herd);

/* A broadcast that woke n sleepers woke a herd. */
static inline bool fthr_wait_herd(int n)
{
	return n > fthr_wait_tune.herd * fthr_ncpus();
}

/* FTHR_RELOCK_YIELD on a word that reads taken: true if the word was then
 * taken (CAS 0->1). */
FTHR_HIDDEN bool fthr_wait_relock_yield(volatile int *w);

#endif
