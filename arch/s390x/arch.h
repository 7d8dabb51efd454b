/* arch/s390x/arch.h: what the compiler's __atomic builtins cannot give fthr
 * on s390x (64-bit z/Architecture, big-endian): the raw syscall
 * instruction, the spin-wait hint, glibc's spinlock values.
 * Everything here is inline and touches general registers only.
 */
#ifndef FTHR_ARCH_H
#define FTHR_ARCH_H

/* Raw syscall: returns the kernel's value, -errno on failure. Never touches
 * errno and never calls into libc, so it may sit on any path. The number
 * goes in r1 ("svc 0" form: every number, not only those below 256), the
 * arguments in r2-r7, the result comes back in r2 (the kernel's s390x
 * ABI, as glibc's INTERNAL_SYSCALL_DIRECT uses it). */
static inline long arch_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a1;
	register long r3 __asm__("r3") = a2;
	register long r4 __asm__("r4") = a3;
	register long r5 __asm__("r5") = a4;
	register long r6 __asm__("r6") = a5;
	register long r7 __asm__("r7") = a6;

	__asm__ __volatile__("svc 0"
			     : "+d"(r2)
			     : "d"(r1), "d"(r3), "d"(r4), "d"(r5), "d"(r6),
			       "d"(r7)
			     : "memory", "cc");
	return r2;
}

/* Spin-wait hint: z/Architecture has none for user space (glibc's
 * atomic_spin_nop is empty there, and the kernel's cpu_relax is a compiler
 * barrier: diagnose 0x44 traps to the hypervisor). A compiler barrier, so
 * the polled word is read again. */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* glibc's s390 spinlock values (sysdeps/s390/nptl/pthread_spin_lock.c: a
 * compare-and-swap of 0 to 1): 0 is free, 1 is held. */
#define ARCH_SPIN_FREE 0
#define ARCH_SPIN_HELD 1

#endif
