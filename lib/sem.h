/* lib/sem.h: the semaphore object, glibc's 64-bit layout (nptl
 * internaltypes.h, struct new_sem), shared by thr_sem.c and the named
 * semaphores of thr_sem_named.c. */
#ifndef FTHR_SEM_H
#define FTHR_SEM_H

#include <semaphore.h>
#include <stdint.h>
#include "fthr_impl.h"

struct sem {
	union {
		uint64_t data;	/* value in the low 32 bits, waiters in the high 32 */
		int half[2];	/* the same word as two ints (SEM_VALUE_HALF) */
	};
	int private;	/* glibc's inverted flag: 0 private, 128 pshared */
	int pad;
};
_Static_assert(sizeof(struct sem) <= sizeof(sem_t), "sem fits");
_Static_assert(sizeof(long) == 8, "glibc's 64-bit new_sem (32-bit cpus have another)");

/* The futex word is the value, the low half of data: the int at the lower
 * address on a little-endian cpu, the one at the higher address on a
 * big-endian one (glibc's SEM_VALUE_OFFSET). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SEM_VALUE_HALF 0
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SEM_VALUE_HALF 1
#else
#error "unknown byte order"
#endif

#define SEM_NWAITERS_SHIFT 32
#define SEM_VALUE_MASK 0xffffffffull
#define SEM_SHARED 128

/* The words glibc's sem_init writes, and no others (tests/t_abi.c compares
 * the bytes): pad is left as it was. */
static inline void fthr_sem_setup(struct sem *s, unsigned value, bool pshared)
{
	s->data = value;
	s->private = pshared ? SEM_SHARED : 0;
}

#endif
