/* arch/i386/arch.h: what the compiler's __atomic builtins cannot give fthr
 * on i386 (32-bit x86, Debian's i686 baseline): the raw syscall
 * instruction, the spin-wait hint, glibc's spinlock values, and a 64-bit
 * compare-and-swap (GCC calls libatomic for every 8-byte atomic at
 * -march=i686; cmpxchg8b is there since the Pentium).
 * Everything here is inline and touches general registers only.
 */
#ifndef FTHR_ARCH_H
#define FTHR_ARCH_H

#include <stdbool.h>
#include <stdint.h>

/* Raw syscall: returns the kernel's value, -errno on failure. Never touches
 * errno and never calls into libc, so it may sit on any path. "int $0x80":
 * the number in eax, the arguments in ebx, ecx, edx, esi, edi, ebp. ebp may
 * be the frame pointer, so it is saved around the call and the first and
 * sixth arguments travel in a two-word block whose address is in ebx. */
static inline long arch_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
	long args[2] = { a1, a6 };
	long *pa = args;
	long ret;

	__asm__ __volatile__("push %%ebp\n\t"
			     "movl 4(%%ebx), %%ebp\n\t"
			     "movl (%%ebx), %%ebx\n\t"
			     "int $0x80\n\t"
			     "pop %%ebp"
			     : "=a"(ret), "+b"(pa)
			     : "0"(n), "c"(a2), "d"(a3), "S"(a4), "D"(a5), "m"(args)
			     : "memory", "cc");
	return ret;
}

/* Spin-wait hint. */
static inline void arch_cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* glibc's i386 spinlock values, as on x86_64: 1 is free, 0 (or below:
 * its contenders decrement the word) is held; glibc's init writes 1. */
#define ARCH_SPIN_FREE 1
#define ARCH_SPIN_HELD 0

/* 64-bit compare-and-swap, sequentially consistent (a locked instruction):
 * true and *p = desired if *p was *expected, else false and *expected = *p.
 * p must be 8-aligned (a split lock is slow and may trap). */
#define ARCH_CAS64 1
static inline bool arch_cas64(volatile uint64_t *p, uint64_t *expected, uint64_t desired)
{
	uint64_t e = *expected;
	bool ok;

	__asm__ __volatile__("lock; cmpxchg8b %1"
			     : "=@ccz"(ok), "+m"(*p), "+A"(e)
			     : "b"((uint32_t)desired), "c"((uint32_t)(desired >> 32))
			     : "memory");
	*expected = e;
	return ok;
}

#endif
