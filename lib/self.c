/* lib/self.c: the per-thread record (see self.h) and fork bookkeeping. */
#include "config.h"
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "futex.h"
#include "host.h"
#include "objects.h"
#include "self.h"

__thread struct fthr_self fthr_self_rec __attribute__((tls_model("initial-exec")));
int fthr_fork_gen;

/* ---- thread exit (self.h): one key of the host's, its destructor runs
 * the steps ---- */
static void (*exit_fn[FTHR_EXIT_STEPS])(void);
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static bool exit_ok;

/* The host calls this once at thread exit (the key's destructor; again in
 * a later round if a step was armed meanwhile). Not instrumented by
 * sanitizers: a sanitizer runtime's own key destructor (they create keys
 * with pthread_key_create, which is ours) tears the thread's sanitizer
 * state down in the last round, and this frame runs on. */
FTHR_NO_SANITIZE static void thread_exit(void *unused)
{
	struct fthr_self *self = &fthr_self_rec;

	(void)unused;
	for (int i = 0; i < FTHR_EXIT_STEPS; i++)
		if (self->exit_steps & FTHR_EXIT_BIT(i))
			__atomic_load_n(&exit_fn[i], __ATOMIC_RELAXED)();
	self->exit_steps = 0;
}

static void exit_init(void)
{
	exit_ok = fthr_host_resolve() && fthr_host.key_create(&exit_key, thread_exit) == 0;
}

bool fthr_exit_arm(enum fthr_exit_step step, void (*fn)(void))
{
	struct fthr_self *self = &fthr_self_rec;

	if (self->exit_steps & FTHR_EXIT_BIT(step))
		return true;
	if (!self->exit_steps) {
		fthr_once(&exit_once, exit_init);
		if (!exit_ok || fthr_host.setspecific(exit_key, self) != 0)
			return false;
	}
	/* (the thread that runs a step is one that stored its fn) */
	__atomic_store_n(&exit_fn[step], fn, __ATOMIC_RELAXED);
	self->exit_steps |= FTHR_EXIT_BIT(step);
	return true;
}

/* (self.h) Out of line: two clock reads around the yield. */
void fthr_spin_yield_timed(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	fthr_yield();
	clock_gettime(CLOCK_MONOTONIC, &b);
	if ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) > FTHR_YIELD_LONG_NS)
		fthr_self_rec.yield_off = FTHR_YIELD_OFF;
}

/* ---- the machine crowded (self.h) ---- */
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

int fthr_cpus_online;

FTHR_COLD int fthr_ncpus_read(void)
{
	int e = errno, n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	errno = e;
	__atomic_store_n(&fthr_cpus_online, n, __ATOMIC_RELAXED);
	return n;
}

FTHR_COLD void fthr_crowd_look(void)
{
	struct timespec t;
	unsigned now, next = __atomic_load_n(&crowd_next, __ATOMIC_RELAXED);
	int r, cpus;

	fthr_self_rec.crowd_tick = FTHR_CROWD_TICK;
	if (__atomic_load_n(&crowd_off, __ATOMIC_RELAXED))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	now = (unsigned)t.tv_sec * 1000000u + (unsigned)t.tv_nsec / 1000u;
	/* not yet: the next look is at most one period ahead (a 32-bit
	 * clock in us wraps in 71 minutes; a larger gap is a stale one) */
	if ((int)(next - now) > 0 && next - now <= FTHR_CROWD_PERIOD_US)
		return;
	if (!__atomic_compare_exchange_n(&crowd_next, &next, now + FTHR_CROWD_PERIOD_US,
					 false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return; /* another thread looks */
	if (crowd_claim(fthr_tid()) != 0)
		return; /* (a fork under way holds it) */
	cpus = fthr_ncpus();
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

FTHR_COLD int fthr_self_fill(void)
{
	int tid = (int)arch_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);

	fthr_self_rec.tid = tid;
	return tid;
}

#ifdef FTHR_INVARIANTS
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
void fthr_invariant_failed(const char *what, const char *file, int line)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "fthr: invariant broken at %s:%d: %s\n",
			 file, line, what);

	if (write(2, buf, n > 0 && n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		abort();
	abort();
}
#endif

/* Runs in the child of fork(), in the only thread there. */
static void fthr_atfork_child(void)
{
	__atomic_store_n(&crowd_looker, 0, __ATOMIC_RELAXED);
	fthr_self_rec.tid = 0;
	fthr_self_rec.robust = NULL; /* found (or registered) again on use */
	__atomic_store_n(&fthr_fork_gen,
			 (int)((unsigned)fthr_fork_gen + FTHR_FORK_GEN_STEP),
			 __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void fthr_self_init(void)
{

	pthread_atfork(crowd_prepare, crowd_parent, fthr_atfork_child);
}
