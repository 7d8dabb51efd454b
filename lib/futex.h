/* lib/futex.h: the futex layer's interface, the only OS seam below fthr's
 * objects. Nothing above this header knows it runs on Linux: a FreeBSD
 * backend (lib/futex_freebsd.c on _umtx_op UMTX_OP_WAIT_UINT[_PRIVATE] and
 * UMTX_OP_WAKE[_PRIVATE]) implements the same four functions.
 *
 * Words are 32-bit ints. 'shared' selects a futex visible across processes
 * (pshared objects); otherwise the cheaper process-private variant is used.
 * Every function returns 0 or a positive errno value and never writes errno.
 */
#ifndef FTHR_FUTEX_H
#define FTHR_FUTEX_H

#include <time.h>
#include <errno.h>
#include <stdbool.h>
#include "fthr_impl.h"

/* Sleep while *addr == expect. abstime (NULL: forever) is an absolute
 * deadline on clock clk, which fthr_futex_clock_ok() accepted.
 * Returns 0 (woken, possibly spuriously), EAGAIN (*addr != expect),
 * EINTR (a signal handler ran), ETIMEDOUT. */
FTHR_HIDDEN int fthr_futex_wait(volatile int *addr, int expect, bool shared,
				clockid_t clk, const struct timespec *abstime);

/* Sleepers of two kinds on one word (Linux's futex bitsets): a wait with
 * 'bits' is woken by fthr_futex_wake, and by fthr_futex_wake_bits with a
 * mask that shares a bit with them. Where the backend has no bitsets
 * (fthr_futex_has_bits false) every wake wakes any sleeper, and callers
 * must not rely on the difference. bits is never 0. */
extern const bool fthr_futex_has_bits FTHR_HIDDEN;
FTHR_HIDDEN int fthr_futex_wait_bits(volatile int *addr, int expect, bool shared,
				     clockid_t clk, const struct timespec *abstime,
				     unsigned bits);
FTHR_HIDDEN int fthr_futex_wake_bits(volatile int *addr, int n, bool shared,
				     unsigned bits);

/* Sleep until the absolute deadline abstime on clk (NULL: for ever),
 * on a word nobody wakes: what a caller that waits for itself gets (a
 * relock, a writer holding its own read). abstime, if any, passed
 * fthr_abstime_check and clk fthr_futex_clock_ok. Returns ETIMEDOUT. */
static inline int fthr_sleep_until(clockid_t clk, const struct timespec *abstime)
{
	int never = 0;

	while (fthr_futex_wait(&never, 0, false, clk, abstime) != ETIMEDOUT)
		;
	return ETIMEDOUT;
}

/* The absolute time ns (0 <= ns < 1e9) from now on clk. */
static inline struct timespec fthr_deadline_in(clockid_t clk, long ns)
{
	struct timespec dl;

	clock_gettime(clk, &dl);
	dl.tv_nsec += ns;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	return dl;
}

/* Wake up to n sleepers on addr; returns how many woke (>= 0). */
FTHR_HIDDEN int fthr_futex_wake(volatile int *addr, int n, bool shared);

/* The invariants build (FTHR_INVARIANTS) counts what the waits did, for
 * the profile's report and bench/counts.sh: futex waits, wakes and the
 * threads they woke (not the PI calls), spins (wait.h), the threads
 * spinning now and the most at once, and a mutex's hand-offs (lll.h).
 * Relaxed atomics on shared lines: a figure of how often, not of speed.
 * The other builds count nothing. */
struct fthr_counts {
	long futex_waits, futex_wakes, woken, spins, spinning, spinners_most, handoffs;
};
#ifdef FTHR_INVARIANTS
extern struct fthr_counts fthr_counts FTHR_HIDDEN;
#define FTHR_COUNT(field, n) ((void)__atomic_fetch_add(&fthr_counts.field, (n), __ATOMIC_RELAXED))
#define FTHR_COUNT_MOST(field, v) a_max_relaxed(&fthr_counts.field, (v))
#else
#define FTHR_COUNT(field, n) ((void)0)
#define FTHR_COUNT_MOST(field, v) ((void)0)
#endif

/* true when the backend's counts are exact: fthr_futex_wake returns how
 * many sleepers it took off addr's queue, and a wait that returns 0 was
 * taken off it by a wake. A waker may then count its sleepers out for
 * them (thr_cond.c). */
FTHR_HIDDEN extern const bool fthr_futex_counts_exact;

/* Priority-inheritance words hold the owner's tid (| FUTEX_WAITERS |
 * FUTEX_OWNER_DIED); the kernel queues sleepers by priority, boosts the
 * owner, and hands the word over. lock_pi returns 0 with the word ours
 * (possibly still marked OWNER_DIED), ETIMEDOUT, EDEADLK, or another errno;
 * trylock_pi 0 or EBUSY...; unlock_pi 0 or an errno (EPERM: not ours). */
FTHR_HIDDEN int fthr_futex_lock_pi(volatile int *addr, bool shared, clockid_t clk,
				   const struct timespec *abstime);
FTHR_HIDDEN int fthr_futex_trylock_pi(volatile int *addr, bool shared);
FTHR_HIDDEN int fthr_futex_unlock_pi(volatile int *addr, bool shared);

/* Threads runnable on the whole machine at this moment (running or
 * waiting for a cpu, the caller among them), or -1 when the system does not
 * say (no /proc, a sandbox). Cold: a few microseconds (wait.c samples it
 * now and then). Never writes errno. */
FTHR_HIDDEN int fthr_os_runnable(void);

/* The cpus of the calling thread's affinity mask; -1 when the system does
 * not say. Never writes errno. */
FTHR_HIDDEN int fthr_os_cpus_affine(void);

/* The cpus a process whose affinity allows 'affine' (<= 0: unknown) may
 * use: fewer if its cgroup (or an ancestor's) limits its CPU time to fewer
 * (a container's quota; cgroup v1's cfs quota or v2's cpu.max, rounded up
 * to whole cpus); -1 when neither says. Cold: reads /proc files into
 * static buffers, so one caller at a time (wait.c). Never writes errno. */
FTHR_HIDDEN int fthr_os_cpus_usable(int affine);

/* Clocks an absolute futex deadline may be measured on. */
FTHR_HIDDEN bool fthr_futex_clock_ok(clockid_t clk);

/* A deadline (NULL: none) whose tv_nsec is outside [0, 1e9): what glibc's
 * timed rwlock and semaphore calls reject first, even when they need not
 * block. */
static inline bool fthr_abstime_nsec_bad(const struct timespec *ts)
{
	return ts && (unsigned long)ts->tv_nsec >= 1000000000ul;
}

/* Validate a deadline the way POSIX asks of a call about to block:
 * EINVAL for tv_nsec outside [0, 1e9) (or a NULL deadline), ETIMEDOUT for a
 * negative tv_sec (long past, and not something a futex accepts), else 0. */
static inline int fthr_abstime_check(const struct timespec *ts)
{
	if (!ts || fthr_abstime_nsec_bad(ts))
		return EINVAL;
	if (ts->tv_sec < 0)
		return ETIMEDOUT;
	return 0;
}

#endif
