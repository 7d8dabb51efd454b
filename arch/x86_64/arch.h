/* arch/x86_64/arch.h: what the compiler's __atomic builtins cannot give fthr
 * on x86_64: the raw syscall instruction, the spin-wait hint, glibc's
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
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10),
			       "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

/* Spin-wait hint: lets the sibling hyperthread run, saves power. */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* glibc's x86_64 spinlock values: 1 is free; a holder leaves 0 and glibc's
 * contenders decrement below it ("lock decl"), so any value other than 1 is
 * held. fthr uses the same values so a pshared spinlock works between an
 * fthr process and a plain-glibc one. */
#define ARCH_SPIN_FREE 1
#define ARCH_SPIN_HELD 0

#endif
