/* lib/futex_linux.c: the futex layer on Linux futex(2), issued with the
 * inline arch syscall (no libc call, errno untouched).
 *
 * Waits use FUTEX_WAIT_BITSET with FUTEX_BITSET_MATCH_ANY so the deadline is
 * absolute, on CLOCK_MONOTONIC by default or CLOCK_REALTIME with
 * FUTEX_CLOCK_REALTIME (a realtime wait follows settimeofday, a monotonic one
 * does not). Wakes are plain FUTEX_WAKE, which matches any bitset.
 * FUTEX_PRIVATE_FLAG unless the object is pshared.
 */
#include "config.h"
#include <linux/futex.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include "futex.h"

static inline int priv(int op, bool shared)
{
	return shared ? op : (op | FUTEX_PRIVATE_FLAG);
}

static inline long sys_futex(volatile int *uaddr, int op, int val,
			     long timeout_or_val2, volatile int *uaddr2,
			     int val3)
{
	return arch_syscall6(SYS_futex, (long)uaddr, op, val, timeout_or_val2,
			     (long)uaddr2, val3);
}

int fthr_futex_wait(volatile int *addr, int expect, bool shared,
		    clockid_t clk, const struct timespec *abstime)
{
	int op = FUTEX_WAIT_BITSET;
	long r;

	if (abstime && clk == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	r = sys_futex(addr, priv(op, shared), expect, (long)abstime, NULL,
		      FUTEX_BITSET_MATCH_ANY);
	if (r == 0)
		return 0;
	/* EAGAIN, EINTR, ETIMEDOUT are the answers callers act on; anything
	 * else (EFAULT, ENOSYS) cannot be retried usefully: report it. */
	return (int)-r;
}

/* A wait returns 0 only once a wake unqueued it (the kernel's futex_wait:
 * an unqueue that finds the waiter gone wins over a timeout or a signal;
 * a wait interrupted otherwise is restarted or returns EINTR), and wakes
 * count what they unqueued. */
const bool fthr_futex_counts_exact = true;

int fthr_futex_wake(volatile int *addr, int n, bool shared)
{
	long r = sys_futex(addr, priv(FUTEX_WAKE, shared), n, 0, NULL, 0);
	return r < 0 ? 0 : (int)r;
}

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

int fthr_futex_lock_pi(volatile int *addr, bool shared, clockid_t clk,
		       const struct timespec *abstime)
{
	long r;

	/* FUTEX_LOCK_PI2 (Linux 5.14) measures the deadline on the monotonic
	 * clock, or on the realtime one with FUTEX_CLOCK_REALTIME; plain
	 * FUTEX_LOCK_PI knows only realtime. */
	r = sys_futex(addr, priv(FUTEX_LOCK_PI2 | (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0),
				 shared), 0, (long)abstime, NULL, 0);
	if (r == -ENOSYS && (clk == CLOCK_REALTIME || !abstime))
		r = sys_futex(addr, priv(FUTEX_LOCK_PI, shared), 0, (long)abstime, NULL, 0);
	return r < 0 ? (int)-r : 0;
}

int fthr_futex_trylock_pi(volatile int *addr, bool shared)
{
	long r = sys_futex(addr, priv(FUTEX_TRYLOCK_PI, shared), 0, 0, NULL, 0);

	return r < 0 ? (int)-r : 0;
}

int fthr_futex_unlock_pi(volatile int *addr, bool shared)
{
	long r = sys_futex(addr, priv(FUTEX_UNLOCK_PI, shared), 0, 0, NULL, 0);

	return r < 0 ? (int)-r : 0;
}

bool fthr_futex_clock_ok(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC;
}

/* (futex.h) The fourth field of /proc/loadavg, "R/T": R is the kernel's
 * nr_running(), the threads running or queued for a cpu on every cpu. The
 * file is opened and closed each time (a descriptor kept open could be
 * closed or replaced by the program); self.c keeps fork() out of the
 * window in which it is open. */
int fthr_os_runnable(void)
{
	char buf[128];
	long fd, n, r = 0;
	int field = 0;

	fd = arch_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/loadavg",
			   O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	n = arch_syscall6(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	arch_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	for (char *p = buf; *p; p++) {
		if (*p == ' ') {
			field++;
		} else if (field == 3) {
			if (*p == '/')
				return r > 0 ? (int)r : -1;
			if (*p < '0' || *p > '9')
				return -1;
			if ((r = r * 10 + (*p - '0')) > 1000000000)
				return -1;
		}
	}
	return -1;
}
