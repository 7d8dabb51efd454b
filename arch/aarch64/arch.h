/* arch/aarch64/arch.h: what the compiler's __atomic builtins cannot give fthr
 * on aarch64: the raw syscall instruction, the spin-wait hint, glibc's
 * spinlock values.
 * Everything here is inline and touches general registers only.
 */
#ifndef FTHR_ARCH_H
#define FTHR_ARCH_H

/* Raw syscall: returns the kernel's value, -errno on failure. Never touches
 * errno and never calls into libc, so it may sit on any path. */
static inline long arch_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;

	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4),
			       "r"(x5)
			     : "memory", "cc");
	return x0;
}

/* Spin-wait hint. */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

/* glibc's generic spinlock values (aarch64): 0 is free, 1 is held. */
#define ARCH_SPIN_FREE 0
#define ARCH_SPIN_HELD 1

#endif
