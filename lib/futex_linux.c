/* lib/futex_linux.c: the futex layer on Linux futex(2), issued with the
 * inline arch syscall (no libc call, errno untouched).
 *
 * Waits use FUTEX_WAIT_BITSET with FUTEX_BITSET_MATCH_ANY so the deadline is
 * absolute, on CLOCK_MONOTONIC by default or CLOCK_REALTIME with
 * FUTEX_CLOCK_REALTIME (a realtime wait follows settimeofday, a monotonic one
 * does not). Wakes are plain FUTEX_WAKE, which matches any bitset, or
 * FUTEX_WAKE_BITSET for the sleepers of one kind (futex.h).
 * FUTEX_PRIVATE_FLAG unless the object is pshared.
 */
#include "config.h"
#include <linux/futex.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include "futex.h"

#ifdef FTHR_INVARIANTS
struct fthr_counts fthr_counts;
#endif

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

const bool fthr_futex_has_bits = true;

int fthr_futex_wait_bits(volatile int *addr, int expect, bool shared,
			 clockid_t clk, const struct timespec *abstime, unsigned bits)
{
	int op = FUTEX_WAIT_BITSET;
	long r;

	if (abstime && clk == CLOCK_REALTIME)
		op |= FUTEX_CLOCK_REALTIME;
	FTHR_COUNT(futex_waits, 1);
	r = sys_futex(addr, priv(op, shared), expect, (long)abstime, NULL, (int)bits);
	if (r == 0)
		return 0;
	/* EAGAIN, EINTR, ETIMEDOUT are the answers callers act on; anything
	 * else (EFAULT, ENOSYS) cannot be retried usefully: report it. */
	return (int)-r;
}

int fthr_futex_wait(volatile int *addr, int expect, bool shared,
		    clockid_t clk, const struct timespec *abstime)
{
	return fthr_futex_wait_bits(addr, expect, shared, clk, abstime,
				    FUTEX_BITSET_MATCH_ANY);
}

/* A wait returns 0 only once a wake unqueued it (the kernel's futex_wait:
 * an unqueue that finds the waiter gone wins over a timeout or a signal;
 * a wait interrupted otherwise is restarted or returns EINTR), and wakes
 * count what they unqueued. */
const bool fthr_futex_counts_exact = true;

int fthr_futex_wake_bits(volatile int *addr, int n, bool shared, unsigned bits)
{
	long r = sys_futex(addr, priv(FUTEX_WAKE_BITSET, shared), n, 0, NULL, (int)bits);

	FTHR_COUNT(futex_wakes, 1);
	FTHR_COUNT(woken, r < 0 ? 0 : r);
	return r < 0 ? 0 : (int)r;
}

int fthr_futex_wake(volatile int *addr, int n, bool shared)
{
	long r = sys_futex(addr, priv(FUTEX_WAKE, shared), n, 0, NULL, 0);

	FTHR_COUNT(futex_wakes, 1);
	FTHR_COUNT(woken, r < 0 ? 0 : r);
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

/* ---- the cpus this process may use (futex.h) ---- */

/* Read a whole small file into buf (NUL-terminated); its length or -1. */
static long read_small(const char *path, char *buf, long size)
{
	long fd = arch_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	long n, got = 0;

	if (fd < 0)
		return -1;
	while (got < size - 1 &&
	       (n = arch_syscall6(SYS_read, fd, (long)(buf + got), size - 1 - got, 0, 0, 0)) > 0)
		got += n;
	arch_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	buf[got] = '\0';
	return got;
}

/* A decimal number at *p (moved past it); -1 if none. */
static long num_at(const char **p)
{
	long v = -1;

	for (; **p >= '0' && **p <= '9'; (*p)++)
		v = (v < 0 ? 0 : v * 10) + (**p - '0');
	return v;
}

static bool has_word(const char *list, int len, const char *w)
{
	int wl = 0;

	while (w[wl])
		wl++;
	for (int i = 0; i + wl <= len; i++)
		if ((i == 0 || list[i - 1] == ',') && (i + wl == len || list[i + wl] == ',') &&
		    !__builtin_memcmp(list + i, w, (unsigned long)wl))
			return true;
	return false;
}

/* The limit of one cgroup directory, in thousandths of a cpu, or -1 for
 * none: v2 cpu.max "QUOTA PERIOD" ("max": none), v1 cpu.cfs_quota_us
 * (-1: none) over cpu.cfs_period_us. */
static long dir_limit(char *path, int len, bool v2)
{
	char buf[64];
	const char *p = buf;
	long quota, period;

	if (v2) {
		__builtin_memcpy(path + len, "/cpu.max", 9);
		if (read_small(path, buf, sizeof(buf)) <= 0 || (quota = num_at(&p)) < 0 ||
		    *p++ != ' ' || (period = num_at(&p)) <= 0)
			return -1;
	} else {
		__builtin_memcpy(path + len, "/cpu.cfs_quota_us", 18);
		if (read_small(path, buf, sizeof(buf)) <= 0 || (quota = num_at(&p)) < 0)
			return -1;
		__builtin_memcpy(path + len, "/cpu.cfs_period_us", 19);
		p = buf;
		if (read_small(path, buf, sizeof(buf)) <= 0 || (period = num_at(&p)) <= 0)
			return -1;
	}
	return quota > 0 ? (quota * 1000 + period - 1) / period : -1;
}

/* The least limit of the process's cgroup and its ancestors below the
 * mount, in thousandths of a cpu, or -1. The cgroup comes from
 * /proc/self/cgroup (v2 "0::/path", v1 "N:...cpu...:/path"), its mount
 * from /proc/self/mountinfo (a "cgroup2" file system, or a "cgroup" one
 * whose options name cpu); in a cgroup namespace both paths start at the
 * namespace's root. */
static long cgroup_limit(void)
{
	static char mi[65536], cg[4096]; /* (one caller at a time: futex.h) */
	char path[512];
	const char *line, *rel = NULL, *mnt = NULL, *root = NULL;
	int rel_len = 0, mnt_len = 0, root_len = 0;
	bool v2 = false;
	long best = -1;

	if (read_small("/proc/self/cgroup", cg, sizeof(cg)) <= 0 ||
	    read_small("/proc/self/mountinfo", mi, sizeof(mi)) <= 0)
		return -1;
	/* the cgroup: v1's cpu controller first, else v2's */
	for (line = cg; *line; ) {
		const char *c1 = line, *c2, *end;

		while (*c1 && *c1 != ':' && *c1 != '\n')
			c1++;
		if (*c1 != ':')
			break;
		for (c2 = c1 + 1; *c2 && *c2 != ':' && *c2 != '\n'; c2++)
			;
		if (*c2 != ':')
			break;
		for (end = c2 + 1; *end && *end != '\n'; end++)
			;
		if (has_word(c1 + 1, (int)(c2 - c1 - 1), "cpu")) {
			rel = c2 + 1, rel_len = (int)(end - rel), v2 = false;
			break;
		}
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
			rel = c2 + 1, rel_len = (int)(end - rel), v2 = true;
		line = *end ? end + 1 : end;
	}
	if (!rel)
		return -1;
	/* its mount: fields 4 (root) and 5 (mount point), then after " - "
	 * the type and, past the source, the super options */
	for (line = mi; *line; ) {
		const char *f[6], *end, *dash, *type, *opts;
		int i = 0;

		for (end = line; *end && *end != '\n'; end++)
			;
		f[0] = line;
		for (const char *q = line; q < end && i < 5; q++)
			if (*q == ' ')
				f[++i] = q + 1;
		dash = NULL;
		for (const char *q = line; q + 3 <= end; q++)
			if (q[0] == ' ' && q[1] == '-' && q[2] == ' ') {
				dash = q + 3;
				break;
			}
		if (i == 5 && dash) {
			int tl;

			type = dash;
			for (tl = 0; type + tl < end && type[tl] != ' '; tl++)
				;
			opts = type + tl;
			/* past " source " */
			while (opts < end && *++opts != ' ')
				;
			if (opts < end)
				opts++;
			if (v2 ? (tl == 7 && !__builtin_memcmp(type, "cgroup2", 7))
			       : (tl == 6 && !__builtin_memcmp(type, "cgroup", 6) &&
				  has_word(opts, (int)(end - opts), "cpu"))) {
				root = f[3], root_len = (int)(f[4] - f[3] - 1);
				mnt = f[4], mnt_len = (int)(f[5] - f[4] - 1);
				break;
			}
		}
		line = *end ? end + 1 : end;
	}
	if (!mnt)
		return -1;
	/* the cgroup's path below the mount's root ("/" roots take it whole) */
	if (root_len > 1) {
		if (rel_len < root_len || __builtin_memcmp(rel, root, (unsigned long)root_len) ||
		    (rel_len > root_len && rel[root_len] != '/'))
			return -1; /* not below this mount: unknown */
		rel += root_len, rel_len -= root_len;
	}
	if (rel_len == 1 && rel[0] == '/')
		rel_len = 0;
	if (mnt_len + rel_len + 20 > (int)sizeof(path))
		return -1;
	__builtin_memcpy(path, mnt, (unsigned long)mnt_len);
	__builtin_memcpy(path + mnt_len, rel, (unsigned long)rel_len);
	/* this cgroup and each ancestor up to the mount's own directory */
	for (int len = mnt_len + rel_len;;) {
		long l = dir_limit(path, len, v2);

		if (l > 0 && (best < 0 || l < best))
			best = l;
		if (len == mnt_len)
			return best;
		while (len > mnt_len && path[len - 1] != '/')
			len--;
		len = len > mnt_len ? len - 1 : mnt_len;
	}
}

/* (futex.h) */
int fthr_os_cpus_affine(void)
{
	/* bits set in a nibble (no popcount builtin: libgcc's may use the
	 * FP/SIMD registers, tests/fpu-free.sh) */
	static const unsigned char nibble_bits[16] = { 0, 1, 1, 2, 1, 2, 2, 3,
						       1, 2, 2, 3, 2, 3, 3, 4 };
	unsigned long mask[16];
	long n = arch_syscall6(SYS_sched_getaffinity, 0, sizeof(mask), (long)mask, 0, 0, 0);
	const unsigned char *b = (const unsigned char *)mask;
	int cpus = 0;

	for (long i = 0; i < n && i < (long)sizeof(mask); i++)
		cpus += nibble_bits[b[i] & 15] + nibble_bits[b[i] >> 4];
	return cpus > 0 ? cpus : -1;
}

/* (futex.h) */
int fthr_os_cpus_usable(int affine)
{
	long lim = cgroup_limit();

	if (lim > 0 && (affine <= 0 || (lim + 999) / 1000 < affine))
		return (int)((lim + 999) / 1000);
	return affine > 0 ? affine : -1;
}
