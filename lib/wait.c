/* lib/wait.c: the wait policy (wait.h): the spins of lock words and
 * adaptive mutexes, the clock of the mutex hand-off (lll.h), the yield's
 * clock, the machine's runnable count, and
 * the condition variable's rules, which decide only whether a waiter
 * spins, naps or yields, never a word of its protocol (thr_cond.c):
 *
 * Batching. A spin that catches each signal of a producer that never
 * waits for its consumer is a loss however quickly it succeeds: a waiter
 * that wakes at each signal takes the items one at a time, pulling the
 * mutex to and fro; asleep, it is woken once for a batch. So a sole
 * waiter whose spin succeeded probes now and then (1 in probe_gap, the
 * gap doubling up to probe_gap_max while the probes find nothing) whether
 * seq moves again on its own within 'probe' relax hints; if it does, the
 * signaller runs free, and the waiter's next batch_waits waits sleep at
 * once. With others waiting it does not judge: a signal it takes by
 * spinning is one futex_wake the signaller saves. The first batching wait
 * whose wake-up no second signal followed ends the batch.
 * The nap. A batching waiter whose futex_wait found one signal sent
 * already (EAGAIN, seq moved by 1) has a producer that spins for the mutex
 * and took it the moment the waiter let go: the two would run in lock
 * step, a futex_wake and a futex_wait per item. Unless it has a deadline,
 * it naps nap_us before it re-takes the mutex, a descheduling it chose,
 * on no queue and counted in no word, while the producer runs free. Only
 * the sole waiter naps (with others waiting they take the items it
 * leaves), and not while a thread waits on another condition of the same
 * mutex (a bounded queue's producer on "not full", which would stop
 * within the nap and leave both cpus idle); a nap after which one does
 * stalled it: the next nap_gap chances to nap pass, the gap doubling from
 * nap_gap_min to nap_gap_max while naps stall, back to 0 once one does not.
 * Woken to a held mutex. A sleeper a wake-up took off the queue that finds
 * the mutex held, with nobody asleep on it, yields the cpu once before it
 * spins for it. A signal sent holding the mutex wakes the sleeper more
 * often than not onto the signaller's own cpu, where it preempts the
 * signaller: a spin there watches a holder that cannot run. The yield
 * lets the signaller let go and run on to its next wait; a sleeper woken
 * onto another cpu loses a system call that returns at once. A plain
 * yield, untimed, on a crowded machine too. A word of 2 has sleepers
 * queued: the waiter queues behind them at once.
 * A young condition. A condition variable whose seq is still below
 * 'young' carries a hand-shake, not a loop of hand-offs (a new thread
 * broadcasts "initialized" and waits, its creator signals "start" holding
 * the mutex): there the yield keeps the woken creator queued on the new
 * thread's cpu, so its sleeper re-takes the mutex as a plain lock.
 * A herd. A broadcast that wakes more than herd sleepers per cpu wakes
 * threads that all want the mutex at once, and a spin for it only takes
 * the cpu from the one that holds it: they queue on the mutex at once, as
 * glibc's waiters do, and each unlock wakes the next.
 * docs/performance.md has the measurements behind each rule.
 */
#include "config.h"
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include "drain.h"
#include "lll.h"
#include "wait.h"

struct fthr_wait_tune fthr_wait_tune = FTHR_WAIT_TUNE_DEFAULTS;
__thread struct fthr_waiter fthr_waiter_rec __attribute__((tls_model("initial-exec")));

/* Field by field (a struct copy may become a call to memcpy, and this runs
 * where env.c runs, before the sanitizers are set up). */
FTHR_COLD FTHR_NO_SANITIZE void fthr_wait_configure(const struct fthr_wait_tune *t)
{
#define SET_(name, def, lo, hi) __atomic_store_n(&fthr_wait_tune.name, t->name, __ATOMIC_RELAXED);
	FTHR_WAIT_KNOBS(SET_)
#undef SET_
}

/* ---- lock words, adaptive mutexes ---- */

bool fthr_wait_word_spin(volatile int *w, bool patient)
{
	int budget = fthr_spin_budget(), spent, v = 1;

	/* Held, nobody asleep: the holder is likely running and about to let
	 * go; watch the word (reads only) a while, the first read after the
	 * patience. A 2 means others sleep already: stop, queue behind them.
	 * The patience is not taken from the budget: a thread whose spins
	 * failed (budget down to spin_min) must still look a few times, or
	 * it would sleep at nearly every contended lock while threads with
	 * large budgets take the lock. But a word that reads 2 before the
	 * patience has sleepers queued already: the holder is often off its
	 * cpu, and the patience would cost more than the look it waits for
	 * can win; queue at once (and leave the budget alone: no spin was
	 * tried). */
	if (fthr_crowded()) { /* one look, no spin */
		if (a_load_relaxed(w) == 0 && fthr_lll_trylock(w))
			return true;
		fthr_crowd_count();
		return false;
	}
	if ((v = a_load_relaxed(w)) >= 2) /* 3: handed off (lll.h) */
		return false;
	if (!fthr_spin_may()) { /* one look, the closing yield */
		if (v == 1) {
			fthr_spin_yield_timed();
			v = a_load_relaxed(w);
		}
		return v == 0 && fthr_lll_trylock(w);
	}
	fthr_spin_start();
	if (patient)
		fthr_wait_patience();
	for (spent = 0; spent < budget && (v = a_load_relaxed(w)) == 1; spent++)
		arch_cpu_relax();
	fthr_spin_end();
	/* let a holder on this cpu run first, unless a third thread would
	 * take it */
	if (v == 1 && !fthr_machine_crowded_now()) {
		fthr_spin_yield_timed();
		v = a_load_relaxed(w);
	}
	if (v == 0 && fthr_lll_trylock(w)) {
		fthr_spin_learn(budget, true);
		return true;
	}
	fthr_spin_learn(budget, false);
	return false;
}

/* Exponential backoff between looks at the word (1, 2, 4 ... 16 relax
 * hints), so spinners do not keep pulling the owner's line away. */
bool fthr_wait_adaptive(volatile int *w, int estimate, int *spun)
{
	int max = estimate * 2 + 10, n = 0, backoff = 1;

	if (!fthr_spin_may())
		max = 0;
	if (max > fthr_wait_tune.adaptive_spins)
		max = fthr_wait_tune.adaptive_spins;
	do {
		if (n >= max) {
			*spun = n;
			return false;
		}
		for (int i = 0; i < backoff; i++)
			arch_cpu_relax();
		n += backoff;
		if (backoff < 16)
			backoff <<= 1;
	} while (a_load_relaxed(w) != 0 || !a_cas_acquire(w, 0, 1));
	*spun = n;
	return true;
}

/* ---- eventual fairness (wait.h) ---- */

unsigned long long fthr_wait_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000u + (unsigned)t.tv_nsec / 1000u;
}

bool fthr_wait_fair_due(unsigned long long since)
{
	unsigned us = (unsigned)fthr_wait_tune.fair_us;

	return us != 0 && fthr_wait_now_us() - since >= us;
}

unsigned fthr_wait_fair_tick(void)
{
	unsigned us = (unsigned)fthr_wait_tune.fair_us;

	return us ? (unsigned)(fthr_wait_now_us() / us) : 0;
}

/* ---- the yield's clock, the machine's count (wait.h) ---- */

/* Out of line: two clock reads around the yield. */
void fthr_spin_yield_timed(void)
{
	unsigned long long a = fthr_wait_now_us();

	fthr_yield();
	if (fthr_wait_now_us() - a > (unsigned)fthr_wait_tune.yield_long_us)
		fthr_waiter_rec.crowd_left = fthr_wait_tune.crowd_waits;
}

int fthr_machine_crowded;
static unsigned crowd_next;	/* CLOCK_MONOTONIC us (mod 2^32) of the next look */
static bool crowd_off;		/* the system does not say: no more looks */
static int crowd_looker;	/* tid of the thread whose look is under way, or 0 */
static int crowd_avg;		/* runnable threads, a moving average, x64 */

/* Take the look for thread tid: 0 if taken, else the tid that holds it. */
static int crowd_claim(int tid)
{
	int held = 0;

	__atomic_compare_exchange_n(&crowd_looker, &held, tid, false,
				    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	return held;
}

int fthr_cpus, fthr_cpus_online;
int fthr_cpus_affine = -1;
static int cpus_claimed; /* a thread reads the limits (one at a time) */

/* Both counts, once. A thread that finds another reading them sets the
 * online count as both, where nothing is set yet, until the reader's
 * stores replace it (the usable count is never above it). */
FTHR_COLD void fthr_ncpus_read(void)
{
	int e = errno, n = (int)sysconf(_SC_NPROCESSORS_ONLN), u, zero = 0;

	errno = e;
	if (__atomic_exchange_n(&cpus_claimed, 1, __ATOMIC_ACQUIRE)) {
		__atomic_compare_exchange_n(&fthr_cpus_online, &zero, n, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		zero = 0;
		__atomic_compare_exchange_n(&fthr_cpus, &zero, n, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return;
	}
	u = fthr_os_cpus_usable(fthr_cpus_affine);
	if (u <= 0 || (n > 0 && u > n))
		u = n;
	__atomic_store_n(&fthr_cpus_online, n, __ATOMIC_RELAXED);
	__atomic_store_n(&fthr_cpus, u, __ATOMIC_RELAXED);
}

FTHR_COLD void fthr_crowd_look(void)
{
	unsigned now, next = __atomic_load_n(&crowd_next, __ATOMIC_RELAXED);
	unsigned period = (unsigned)fthr_wait_tune.crowd_period_us;
	int r, cpus;

	fthr_waiter_rec.crowd_tick = fthr_wait_tune.crowd_tick;
	if (__atomic_load_n(&crowd_off, __ATOMIC_RELAXED))
		return;
	now = (unsigned)fthr_wait_now_us();
	/* not yet: the next look is at most one period ahead (a 32-bit
	 * clock in us wraps in 71 minutes; a larger gap is a stale one) */
	if ((int)(next - now) > 0 && next - now <= period)
		return;
	if (!__atomic_compare_exchange_n(&crowd_next, &next, now + period,
					 false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return; /* another thread looks */
	if (crowd_claim(fthr_tid()) != 0)
		return; /* (a fork under way holds it) */
	cpus = fthr_ncpus_online();
	r = cpus > 0 ? fthr_os_runnable() : -1;
	if (r < 0)
		__atomic_store_n(&crowd_off, true, __ATOMIC_RELAXED);
	__atomic_store_n(&fthr_machine_crowded,
			 r >= 0 && fthr_crowd_judge(&crowd_avg, r, cpus),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&crowd_looker, 0, __ATOMIC_RELEASE);
}

/* fork() waits for a look's descriptor to be closed, so that no child
 * inherits it (unless the looker is the forking thread: a handler's fork). */
static void crowd_prepare(void)
{
	int held, tid = fthr_tid();

	while ((held = crowd_claim(tid)) != 0 && held != tid)
		fthr_yield();
}

static void crowd_parent(void)
{
	int tid = fthr_tid();

	__atomic_compare_exchange_n(&crowd_looker, &tid, 0, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static void crowd_child(void)
{
	__atomic_store_n(&crowd_looker, 0, __ATOMIC_RELAXED);
	/* a read of the cpus the fork cut short is made again */
	if (!__atomic_load_n(&fthr_cpus, __ATOMIC_RELAXED))
		__atomic_store_n(&cpus_claimed, 0, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void wait_init(void)
{
	fthr_cpus_affine = fthr_os_cpus_affine();
	pthread_atfork(crowd_prepare, crowd_parent, crowd_child);
}

/* ---- condition variables (head comment) ---- */

/* A gap between tries that failed again: min at first, then doubled, up
 * to max (the probes' and the naps' backoff). */
static inline int gap_grow(int gap, int min, int max)
{
	return gap < min ? min : gap >= max ? max : 2 * gap;
}

static FTHR_COLD void cond_probe(volatile int *seq, struct fthr_waiter *me)
{
	const struct fthr_wait_tune *t = &fthr_wait_tune;
	int s = a_load_relaxed(seq), gap = me->probe_gap;

	for (int i = 0; i < t->probe; i++) {
		arch_cpu_relax();
		if (a_load_relaxed(seq) != s) {
			me->batch_left = t->batch_waits;
			me->probe_in = me->probe_gap = t->probe_gap_min;
			return;
		}
	}
	me->probe_in = me->probe_gap = gap_grow(gap, t->probe_gap_min, t->probe_gap_max);
}

bool fthr_wait_cond_spin(volatile int *seq, int s, volatile int *waiters, bool *batching)
{
	struct fthr_waiter *me = &fthr_waiter_rec;

	*batching = me->batch_left > 0;
	if (*batching) {
		me->batch_left--;
		return a_load_relaxed(seq) != s;
	}
	if (!FTHR_WAIT_EVENT(a_load_relaxed(seq) != s))
		return false;
	if (me->probe_in > 0)
		me->probe_in--;
	else if (fthr_drain_threads(waiters) == 1)
		cond_probe(seq, me);
	return true;
}

/* Threads in a condition wait on m other than this condition's waiters:
 * they wait on another condition of the same mutex, likely for what this
 * condition's waiter does next. A hint: __nusers counts the threads inside
 * condition waits on m (thr_mutex.c; for a process-shared mutex, its
 * holders too), read without the mutex. */
static inline bool cond_others_wait(volatile int *waiters, pthread_mutex_t *m)
{
	return a_load_relaxed((volatile int *)&m->__data.__nusers) > fthr_drain_threads(waiters);
}

static bool cond_nap_ok(volatile int *waiters, pthread_mutex_t *m, struct fthr_waiter *me)
{
	if (me->nap_off > 0) {
		me->nap_off--;
		return false;
	}
	return fthr_drain_threads(waiters) == 1 && !cond_others_wait(waiters, m);
}

static void cond_nap(volatile int *waiters, pthread_mutex_t *m, struct fthr_waiter *me)
{
	const struct fthr_wait_tune *t = &fthr_wait_tune;
	struct timespec dl = fthr_deadline_in(CLOCK_MONOTONIC, t->nap_us * 1000L);
	bool stalled;

	fthr_sleep_until(CLOCK_MONOTONIC, &dl);
	stalled = cond_others_wait(waiters, m);
	me->nap_off = me->nap_gap =
		stalled ? gap_grow(me->nap_gap, t->nap_gap_min, t->nap_gap_max) : 0;
}

FTHR_COLD void fthr_wait_cond_woken(volatile int *seq, int s, volatile int *waiters,
				    pthread_mutex_t *m, int r, bool timed)
{
	struct fthr_waiter *me = &fthr_waiter_rec;
	unsigned moved = (unsigned)a_load_relaxed(seq) - (unsigned)s;

	if (moved == 1 && r == EAGAIN && !timed && cond_nap_ok(waiters, m, me)) {
		cond_nap(waiters, m, me);
		moved = (unsigned)a_load_relaxed(seq) - (unsigned)s;
	} else if (r != 0) {
		return;
	}
	if (moved <= 1)
		me->batch_left = 0;
}

enum fthr_relock fthr_wait_cond_relock(const volatile int *seq, const volatile int *herd)
{
	int h = a_load_relaxed(herd), s = a_load_relaxed(seq);

	if (h == s)
		return FTHR_RELOCK_QUEUE;
	return (unsigned)s < (unsigned)fthr_wait_tune.young ? FTHR_RELOCK_SPIN
							    : FTHR_RELOCK_YIELD;
}

bool fthr_wait_relock_yield(volatile int *w)
{
	if (a_load_relaxed(w) != 1)
		return false;
	fthr_yield();
	return a_load_relaxed(w) == 0 && fthr_lll_trylock(w);
}
