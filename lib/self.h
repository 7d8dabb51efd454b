/* lib/self.h: the per-thread record, one initial-exec TLS block per thread.
 *
 * It is filled lazily on the first fthr call that needs it, in any thread,
 * including threads fthr did not see created (no pthread_create hook is
 * needed). Reading it is a %fs/tpidr_el0-relative load: no syscall and no
 * call on a fast path once filled. A fork child handler clears the record of
 * the thread that forked, so its tid is read again in the child.
 */
#ifndef FTHR_SELF_H
#define FTHR_SELF_H

#include <limits.h>
#include <sys/syscall.h>
#include "fthr_impl.h"

/* Thread-specific data: the first FTHR_TSD_INLINE keys live in the record
 * itself, the rest in a block allocated on first use (thr_key.c). A slot's
 * value counts only while its seq equals the key's current seq. Values and
 * seqs are parallel arrays: the fast paths address a slot with one scaled
 * %fs-relative operand, no address arithmetic. */
#define FTHR_TSD_INLINE 16
struct fthr_tsd_more {
	void *data[PTHREAD_KEYS_MAX];
	unsigned seq[PTHREAD_KEYS_MAX];
};

/* A robust list head of fthr's own, for a thread the host registered none
 * for; 'prev' pads the word glibc's list code writes before the head. */
struct fthr_robust_head {
	void *prev;
	struct {
		void *list;
		long futex_offset;
		void *list_op_pending;
	} head;
};

struct fthr_self {
	int tid;		/* kernel thread id; 0 = not filled yet */
	void *robust;		/* this thread's kernel robust list head, or NULL */
	unsigned char exit_steps; /* thread-exit steps armed, bit per step (self.c) */
	int tsd_epoch;		/* key_epoch its tsd slots were checked at */
	unsigned rdlocks;	/* read locks held, any rwlock (thr_rwlock.c) */
	int rbheld;		/* of which biased, in rblock (thr_rwlock.c) */
	struct fthr_rblock *rblock; /* this thread's reader slots, or NULL */
	bool rblock_tried;	/* asked for rblock once */
	const void *rb_lock;	/* re-bias: the rwlock this thread read last, */
	int rb_writes;		/* its write count then, */
	int rb_streak;		/* and the reads of it since (thr_rwlock.c) */
	void *tsd_data[FTHR_TSD_INLINE];
	unsigned tsd_seq[FTHR_TSD_INLINE];
	struct fthr_tsd_more *tsd_more; /* every key's slot, or NULL */
	struct fthr_robust_head own_robust;
	/* priority-protect mutexes held (thr_mutex_pp.c): how many per
	 * ceiling, the highest, and while any is held the thread's own
	 * policy and priority (moved: changed since, the host's record is
	 * older); pp_lock guards them against other threads' scheduling calls */
	int pp_lock;
	int pp_held, pp_max;
	int pp_base_policy, pp_base_prio;
	bool pp_base_moved;
	unsigned char pp_count[100];
	int spin;		/* adaptive spin budget before a futex sleep */
	int yield_off;		/* crowded: busy waits left that skip spin and yield */
	int crowd_tick;		/* busy waits left before the next machine look */
	int cond_skip;		/* cond waits left that sleep at once (thr_cond.c) */
	int cond_probe_in;	/* cond spins that succeed before the next probe, */
	int cond_probe_gap;	/* and between probes (thr_cond.c) */
	int cond_nap_off;	/* chances to nap left that pass (thr_cond.c), */
	int cond_nap_gap;	/* and after the next nap that stalls */
	void *diag;		/* FTHR_CHECK/FTHR_PROFILE: locks held (diag_state.c) */
	bool diag_busy;		/* inside diag_*.c: calls go to the plain functions */
	int cancel_req;		/* set by pthread_cancel of this thread (host.c) */
	int cancel_busy;	/* pthread_cancel calls of it in flight (host.c) */
};

extern __thread struct fthr_self fthr_self_rec
	__attribute__((tls_model("initial-exec"))) FTHR_HIDDEN;

/* Thread t's record: its initial-exec TLS block lies at the same offset
 * from its thread descriptor as the caller's from its own. */
static inline struct fthr_self *fthr_self_of(pthread_t t)
{
	return (struct fthr_self *)((char *)t +
				    ((char *)&fthr_self_rec - (char *)pthread_self()));
}

/* Fork generation, advanced by FTHR_FORK_GEN_STEP in every fork child: lets
 * pthread_once tell an initialization the parent left in progress. */
#define FTHR_FORK_GEN_STEP 4
extern int fthr_fork_gen FTHR_HIDDEN;

FTHR_HIDDEN int fthr_self_fill(void);

/* Thread-exit work (self.c). An object kind that keeps state per thread
 * arms its step in each thread that gets some; when that thread exits
 * (however it was created, the main thread's pthread_exit too), the host
 * library runs one key destructor of fthr's, which runs the thread's armed
 * steps in this order, then forgets them (a later arm, from a destructor
 * of the host's, arms the hook again). */
enum fthr_exit_step {
	FTHR_EXIT_TSD,		/* thr_key.c: key destructors, the thread's key block */
	FTHR_EXIT_RWLOCK,	/* thr_rwlock.c: reader slots back to the pool */
	FTHR_EXIT_DIAG,		/* diag_state.c: locks still held reported, record freed */
	FTHR_EXIT_STEPS
};
#define FTHR_EXIT_BIT(step) (1u << (step))

/* Arm 'step' (always with the same fn) for the calling thread; false when
 * the host library cannot give fthr its key. */
FTHR_HIDDEN bool fthr_exit_arm(enum fthr_exit_step step, void (*fn)(void));

/* The calling thread's kernel tid. */
static inline int fthr_tid(void)
{
	int tid = fthr_self_rec.tid;

	if (unlikely(tid == 0))
		tid = fthr_self_fill();
	return tid;
}

/* Spinning before a futex sleep. Handing over to a thread that spins
 * costs a fraction of a microsecond; waking one that sleeps costs tens of
 * them. But a spin that never pays (partner on the same cpu, long hold
 * times) only burns the cpu the partner needs. So each thread keeps a
 * budget of relax hints: it grows when a spin ends in success and halves
 * when the spin gives up, between SPIN_MIN and SPIN_MAX. A spin that gives
 * up yields the cpu once (a partner on the same cpu then runs at once, no
 * futex round trip; fthr_spin_yield_timed) and looks again before the
 * caller sleeps. (A cap on
 * the number of threads spinning at once, cpus - 1, was tried and measured
 * worse for contended mutexes and rwlocks: see the ChangeLog.) */
#define FTHR_SPIN_MIN 8
#define FTHR_SPIN_MAX 1024
#define FTHR_SPIN_START 64

/* sched_yield(2), inline */
static inline void fthr_yield(void)
{
	arch_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

/* The spin's last resort before a futex sleep: a yield, so that a partner
 * waiting for this cpu runs at once (quiet 2 cpus, bench/fthr-bench
 * fthr/glibc: cond ping-pong pinned to one cpu 2.5 with the yield, 0.7
 * without; barrier, 2 threads 11 and 1.7). But on a machine with more
 * runnable threads than cpus the yield hands the cpu to another process
 * for its whole time slice, and the waiter, which never slept, is not
 * woken ahead of it either: with a busy loop per cpu, t_cond's ping-pongs
 * ran 12-30 times longer than on glibc, t_sem's contention cases 27 times.
 * So a yield that kept the thread off its cpu for FTHR_YIELD_LONG_NS (a
 * partner's hand-off takes microseconds; another process's slice,
 * milliseconds) marks the thread crowded (fthr_crowded, below) for its
 * next FTHR_YIELD_OFF waits that find the object busy: more threads want
 * to run than there are cpus, so those neither spin nor yield (a spinner
 * there only takes the cpu from a holder that was preempted, the LiTL and
 * Malthusian locks' lesson), they look once and sleep in the kernel at
 * once, as glibc's waiters do, and are woken with a sleeper's priority.
 * Then one spin and yield look again. */
#define FTHR_YIELD_LONG_NS 100000
#define FTHR_YIELD_OFF 256
FTHR_HIDDEN void fthr_spin_yield_timed(void);

/* Patience, before the first look at a lock that was found taken: every
 * look pulls the lock's line away from its holder, whose next lock or
 * unlock must fetch it back, and a waiter that takes the lock the moment it
 * sees it free moves the lock, and its line, to the other cpu every few
 * operations. A waiter that first leaves the holder alone for about a
 * microsecond lets it run a batch at full speed, then takes over. Measured
 * on 2 cpus (bench/fthr-bench, fthr/glibc): contended mutex, tiny critical
 * sections, 2-64 threads 0.6-0.8 -> 1.3-1.6; rwlock with 50% writes, 4-8
 * threads 0.45-0.6 -> 2.3-2.7 (docs/bench-2026-11-30-third.md). Waits for an event that comes once, not a
 * lock taken again and again (a condition waiter re-taking the mutex its
 * signaller is about to release by waiting), look at once. */
#define FTHR_PATIENCE 64

/* Crowded, for this thread: a recent yield kept it off its cpu long. */
static inline bool fthr_crowded(void)
{
	return fthr_self_rec.yield_off > 0;
}

/* The machine crowded: more threads runnable than there are cpus, by the
 * kernel's count (fthr_os_runnable, the whole machine: a co-runner process
 * counts), looked at by one thread at most every FTHR_CROWD_PERIOD_US, when
 * one of its FTHR_CROWD_TICK-th busy waits finds the last look that old.
 * The yield's clock (above) sees only a spin that failed; this also sees
 * the spin that succeeds and still takes the cpu a runnable thread needs.
 * What a crowded machine changes:
 * - a wait for an event another thread makes (a condition signal, a
 *   semaphore post, the last thread at a barrier; FTHR_SPIN_EVENT) looks
 *   once and sleeps: its spinner may be on the very cpu the signaller
 *   needs, however soon the event comes (Java's fixed thread pool, 5
 *   threads on 2 cpus: 0.83-0.90 of glibc's tasks/s with the spin,
 *   1.02-1.05 without; Ruby's Mutex with 1000 threads 0.99-1.03 ->
 *   1.09-1.10; docs/bench-2026-12-04-crowd.md);
 * - a lock wait still spins (a lock that reads taken with no sleeper
 *   queued has a holder that runs, and the spin pays: sysbench's mutex
 *   with 8 and 64 threads 3.2x glibc with it, 1.4x without; mutex, 4
 *   threads, tiny sections 4.1e7 locks/s with it, 2.2e7 without) but
 *   sleeps when it fails, without the closing yield, which hands the cpu
 *   to a third thread for a slice (mutex, 16 threads, 1 us sections:
 *   0.83-0.86 of glibc with the yield, 0.99-1.00 without).
 * (Not on the machine's count: Ruby's Thread.pass with 4 threads on 2
 * cpus, where the spin is a cheap hand-off of the GVL, 2.5-2.6x glibc with
 * it and 1.24x without.) */
#define FTHR_CROWD_PERIOD_US 1000
#define FTHR_CROWD_TICK 16
extern int fthr_machine_crowded FTHR_HIDDEN;
FTHR_HIDDEN void fthr_crowd_look(void);

/* cpus online (sysconf, read once; errno kept), or -1 if unknown */
extern int fthr_cpus_online FTHR_HIDDEN;
FTHR_HIDDEN int fthr_ncpus_read(void);

static inline int fthr_ncpus(void)
{
	int n = a_load_relaxed(&fthr_cpus_online);

	return n ? n : fthr_ncpus_read();
}

static inline bool fthr_machine_crowded_now(void)
{
	struct fthr_self *me = &fthr_self_rec;

	if (unlikely(--me->crowd_tick < 0))
		fthr_crowd_look();
	return a_load_relaxed(&fthr_machine_crowded);
}

/* A look's verdict: *avg64, 64 times a moving average of the runnable
 * counts (each look weighs 1/4), against the cpus with half a thread to
 * spare, so that one look that finds a thread woken for an instant (a
 * kernel worker, a timer) does not stop the spins of a machine that has a
 * cpu per thread; 5 threads of a pool on 2 cpus average 3.6. */
static inline bool fthr_crowd_judge(int *avg64, int runnable, int cpus)
{
	*avg64 += (64 * runnable - *avg64) / 4;
	return *avg64 > 64 * cpus + 32;
}

/* A crowded busy wait that found the object busy after its one look. */
static inline void fthr_crowd_count(void)
{
	if (fthr_self_rec.yield_off > 0)
		fthr_self_rec.yield_off--;
}

static inline void fthr_be_patient(int relax_hints)
{
	if (fthr_crowded())
		return;
	for (int i = 0; i < relax_hints; i++)
		arch_cpu_relax();
}

static inline int fthr_spin_budget(void)
{
	int b = fthr_self_rec.spin;

	return b ? b : FTHR_SPIN_START;
}

static inline void fthr_spin_learn(int budget, bool won)
{
	int b = won ? budget + budget / 2 + 8 : budget / 2;

	fthr_self_rec.spin = b > FTHR_SPIN_MAX ? FTHR_SPIN_MAX :
			     b < FTHR_SPIN_MIN ? FTHR_SPIN_MIN : b;
}

/* Spin (cpu relax hints) until cond holds or the budget is spent; the
 * value is whether cond held. cond may have effects (a CAS that takes).
 * A lock's wait. */
#define FTHR_SPIN_UNTIL(cond) FTHR_SPIN_(false, cond, false)

/* The same, but a spin that finds 'queued' true (other waiters went to
 * sleep on the object meanwhile) stops at once: no yield, the budget left
 * alone (no spin was lost, the wait only got a queue ahead of it). */
#define FTHR_SPIN_UNTIL_OR(cond, queued) FTHR_SPIN_(false, cond, queued)

/* An event's wait: no spin on a crowded machine (above). */
#define FTHR_SPIN_EVENT(cond) FTHR_SPIN_(true, cond, false)

#define FTHR_SPIN_(event, cond, queued)                                        \
	({                                                                     \
		int budget_ = fthr_spin_budget(), i_ = 0;                      \
		bool ok_, queued_ = false;                                     \
		if (fthr_crowded() || (event && fthr_machine_crowded_now())) { \
			/* one look, no spin */                                \
			if (!(ok_ = (cond)))                                   \
				fthr_crowd_count();                            \
		} else {                                                       \
			while (!(ok_ = (cond)) && !(queued_ = (queued)) &&     \
			       i_++ < budget_)                                 \
				arch_cpu_relax();                              \
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

#endif
