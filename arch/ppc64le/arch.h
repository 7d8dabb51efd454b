/* arch/ppc64le/arch.h: what the compiler's __atomic builtins cannot give
 * fthr on 64-bit little-endian POWER (ELFv2): the raw syscall instruction,
 * the spin-wait hint, glibc's spinlock values.
 * Everything here is inline and touches general registers only.
 */
#ifndef FTHR_ARCH_H
#define FTHR_ARCH_H

/* Raw syscall: returns the kernel's value, -errno on failure. Never touches
 * errno and never calls into libc, so it may sit on any path.
 * "sc": the number in r0, the arguments in r3-r8, the result in r3; on an
 * error the kernel sets cr0.SO and leaves the positive errno in r3, which
 * is negated here. The kernel may change r0, r4-r12, cr0, ctr and xer
 * (Documentation/powerpc/syscall64-abi.rst); glibc's INTERNAL_SYSCALL
 * lists the same. */
static inline long arch_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
	register long r0 __asm__("r0") = n;
	register long r3 __asm__("r3") = a1;
	register long r4 __asm__("r4") = a2;
	register long r5 __asm__("r5") = a3;
	register long r6 __asm__("r6") = a4;
	register long r7 __asm__("r7") = a5;
	register long r8 __asm__("r8") = a6;

	__asm__ __volatile__("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
			     : "+r"(r0), "+r"(r3), "+r"(r4), "+r"(r5), "+r"(r6),
			       "+r"(r7), "+r"(r8)
			     :
			     : "r9", "r10", "r11", "r12", "cr0", "ctr", "xer",
			       "memory");
	return r3;
}

/* Spin-wait hint: "or 27,27,27", the ISA's "yield" hint (lowers the
 * thread's priority briefly; glibc's atomic_spin_nop on powerpc). */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("or 27,27,27" ::: "memory");
}

/* glibc's powerpc spinlock values (sysdeps/powerpc/nptl/
 * pthread_spin_lock.c: lwarx/stwcx. of 1 over 0): 0 is free, 1 is held. */
#define ARCH_SPIN_FREE 0
#define ARCH_SPIN_HELD 1

#endif
