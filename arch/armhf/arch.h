/* arch/armhf/arch.h: what the compiler's __atomic builtins cannot give fthr
 * on armhf (ARMv7-A, Thumb-2, the hard-float ABI: Debian's armhf): the raw
 * syscall instruction, the spin-wait hint, glibc's spinlock values.
 * (8-byte atomics: GCC inlines them with ldrexd/strexd at ARMv7-A.)
 * Everything here is inline and touches general registers only.
 */
#ifndef FTHR_ARCH_H
#define FTHR_ARCH_H

/* Raw syscall: returns the kernel's value, -errno on failure. Never touches
 * errno and never calls into libc, so it may sit on any path. "svc 0" (EABI):
 * the number in r7, the arguments in r0-r5, the result in r0. r7 is the
 * Thumb frame pointer, so it is saved around the call rather than bound. */
static inline long arch_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
	register long r0 __asm__("r0") = a1;
	register long r1 __asm__("r1") = a2;
	register long r2 __asm__("r2") = a3;
	register long r3 __asm__("r3") = a4;
	register long r4 __asm__("r4") = a5;
	register long r5 __asm__("r5") = a6;

	__asm__ __volatile__("push {r7}\n\t"
			     "mov r7, %[n]\n\t"
			     "svc 0\n\t"
			     "pop {r7}"
			     : "+r"(r0)
			     : [n] "r"(n), "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5)
			     : "memory", "cc");
	return r0;
}

/* Spin-wait hint (a NOP on cores without it). */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

/* glibc's generic spinlock values (arm): 0 is free, 1 is held. */
#define ARCH_SPIN_FREE 0
#define ARCH_SPIN_HELD 1

#endif
