/* lib/futex_freebsd.c: the futex layer on FreeBSD _umtx_op(2), issued through
 * libc's _umtx_op() stub with errno saved and restored (the layer never
 * writes errno). arch_syscall6 is not used: it follows Linux's convention
 * (-errno in the result register), and FreeBSD reports an error with the
 * carry flag and changes more registers (see docs/porting-freebsd.md).
 *
 * Waits are UMTX_OP_WAIT_UINT (shared: the kernel keys the word by its VM
 * object when the mapping is shared, AUTO_SHARE) or UMTX_OP_WAIT_UINT_PRIVATE.
 * A deadline goes in as struct _umtx_time { deadline, UMTX_ABSTIME, clock }:
 * uaddr carries its size, uaddr2 its address, so the deadline is absolute on
 * CLOCK_REALTIME (follows settimeofday) or CLOCK_MONOTONIC. Wakes are
 * UMTX_OP_WAKE / UMTX_OP_WAKE_PRIVATE, which wake the sleepers of either
 * wait of the same sharing.
 *
 * Where _umtx_op differs from Linux futex(2):
 *  - a wait whose word no longer holds the expected value returns 0, not
 *    EAGAIN: the word is read again after a 0 to give futex.h's EAGAIN;
 *  - a wake does not say how many it woke: fthr_futex_wake returns 0;
 *  - priority inheritance is UMTX_OP_MUTEX_* on a struct umutex (owner word
 *    followed by a flags word, UMUTEX_CONTESTED, UMUTEX_RB_OWNERDEAD), not on
 *    a bare word carrying Linux's FUTEX_WAITERS / FUTEX_OWNER_DIED bits: the
 *    PI calls answer ENOTSUP.
 */
#include "config.h"
#include <stdint.h>
#include "futex.h"

#ifndef __FreeBSD__
#error "lib/futex_freebsd.c is the FreeBSD backend; configure picks lib/futex_<os>.c"
#endif

#ifdef FTHR_INVARIANTS
struct fthr_counts fthr_counts; /* (futex.h; a wake's woken count: none) */
#endif

#if defined(__has_include)
#if __has_include(<sys/umtx.h>)
#define FTHR_HAVE_SYS_UMTX_H 1
#endif
#endif

#ifdef FTHR_HAVE_SYS_UMTX_H
#include <sys/types.h>
#include <sys/umtx.h> /* includes <sys/_umtx.h>: struct _umtx_time */
#else
/* No FreeBSD headers (a cross check from another system): the part of
 * <sys/umtx.h> and <sys/_umtx.h> this file uses, with FreeBSD's values. */
#define UMTX_OP_WAIT_UINT 11
#define UMTX_OP_WAIT_UINT_PRIVATE 15
#define UMTX_OP_WAKE 3
#define UMTX_OP_WAKE_PRIVATE 16
#define UMTX_ABSTIME 0x01

struct _umtx_time {
	struct timespec _timeout;
	uint32_t _flags;
	uint32_t _clockid;
};

int _umtx_op(void *obj, int op, unsigned long val, void *uaddr, void *uaddr2);
#endif

_Static_assert(sizeof(struct _umtx_time) == sizeof(struct timespec) + 8,
	       "struct _umtx_time: a timespec, then two 32-bit words");

/* One _umtx_op call: 0 or the positive errno; errno left as it was. */
static int umtx_op(volatile int *obj, int op, unsigned long val, void *uaddr,
		   void *uaddr2)
{
	int saved = errno, r = 0;

	if (_umtx_op((void *)(uintptr_t)obj, op, val, uaddr, uaddr2) == -1)
		r = errno;
	errno = saved;
	return r;
}

int fthr_futex_wait(volatile int *addr, int expect, bool shared,
		    clockid_t clk, const struct timespec *abstime)
{
	struct _umtx_time tm;
	int r;

	FTHR_COUNT(futex_waits, 1);
	if (abstime) {
		/* The kernel refuses a negative tv_sec (EINVAL); Linux callers
		 * see a deadline long past. */
		if (abstime->tv_sec < 0)
			return a_load_relaxed(addr) != expect ? EAGAIN : ETIMEDOUT;
		tm._timeout = *abstime;
		tm._flags = UMTX_ABSTIME;
		tm._clockid = (uint32_t)clk;
	}
	/* The kernel compares the 32-bit word, zero-extended, with val: pass
	 * expect zero-extended too, or a word with bit 31 set (a robust word's
	 * WAITERS bit) would never match. */
	r = umtx_op(addr, shared ? UMTX_OP_WAIT_UINT : UMTX_OP_WAIT_UINT_PRIVATE,
		    (unsigned long)(unsigned int)expect,
		    abstime ? (void *)(uintptr_t)sizeof(tm) : NULL,
		    abstime ? &tm : NULL);
	/* 0 means woken, spuriously, or never slept because the word differed:
	 * the word tells the last one (the kernel turns a signal into EINTR,
	 * ERESTART never escapes). */
	if (r == 0 && a_load_relaxed(addr) != expect)
		return EAGAIN;
	return r;
}

/* No bitsets: every sleeper is of any kind (futex.h). */
const bool fthr_futex_has_bits = false;

int fthr_futex_wait_bits(volatile int *addr, int expect, bool shared,
			 clockid_t clk, const struct timespec *abstime, unsigned bits)
{
	(void)bits;
	return fthr_futex_wait(addr, expect, shared, clk, abstime);
}

int fthr_futex_wake_bits(volatile int *addr, int n, bool shared, unsigned bits)
{
	(void)bits;
	return fthr_futex_wake(addr, n, shared);
}

/* UMTX_OP_WAKE does not say how many it woke. */
const bool fthr_futex_counts_exact = false;

int fthr_futex_wake(volatile int *addr, int n, bool shared)
{
	umtx_op(addr, shared ? UMTX_OP_WAKE : UMTX_OP_WAKE_PRIVATE,
		(unsigned long)(n < 0 ? 0 : n), NULL, NULL);
	FTHR_COUNT(futex_wakes, 1);
	/* UMTX_OP_WAKE returns 0 however many it woke: report none (futex.h
	 * asks for >= 0; no library caller acts on the count, but
	 * tests/t_futex.c does). */
	return 0;
}

/* Priority inheritance: not on this backend. FreeBSD's PI (UMTX_OP_MUTEX_LOCK
 * / _TRYLOCK / _UNLOCK with UMUTEX_PRIO_INHERIT) reads the flags word that
 * follows the owner word in a struct umutex; in glibc's pthread_mutex_t that
 * word is __count, and its owner-word bits differ from Linux's PI futex
 * protocol (thr_mutex_pi.c). An uncontended PI mutex still works (a CAS, no
 * kernel); the first contended lock returns ENOTSUP. */
int fthr_futex_lock_pi(volatile int *addr, bool shared, clockid_t clk,
		       const struct timespec *abstime)
{
	(void)addr;
	(void)shared;
	(void)clk;
	(void)abstime;
	return ENOTSUP;
}

int fthr_futex_trylock_pi(volatile int *addr, bool shared)
{
	(void)addr;
	(void)shared;
	return ENOTSUP;
}

int fthr_futex_unlock_pi(volatile int *addr, bool shared)
{
	(void)addr;
	(void)shared;
	return ENOTSUP;
}

bool fthr_futex_clock_ok(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC;
}

/* (futex.h) Not read on FreeBSD yet (sysctl vm.vmtotal's t_rq would say):
 * unknown, so spins follow their own measures only. */
int fthr_os_runnable(void)
{
	return -1;
}

/* (futex.h) Not read on FreeBSD yet (cpuset_getaffinity and rctl would
 * say): unknown, so the cpus online count. */
int fthr_os_cpus_affine(void)
{
	return -1;
}

int fthr_os_cpus_usable(int affine)
{
	return affine > 0 ? affine : -1;
}
