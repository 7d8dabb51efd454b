/* lib/sem.h: the semaphore object, glibc's layouts (nptl internaltypes.h,
 * struct new_sem: one for 64-bit arches, one for 32-bit ones), shared by
 * thr_sem.c, the named semaphores of thr_sem_named.c and the white-box
 * tests (tests/private.h): system headers only. */
#ifndef FTHR_SEM_H
#define FTHR_SEM_H

#include <semaphore.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if __SIZEOF_LONG__ == 8
/* 64-bit arches: glibc's __HAVE_64B_ATOMICS layout. */
#define SEM_64 1
struct sem {
	union {
		uint64_t data;	/* value in the low 32 bits, waiters in the high 32 */
		int half[2];	/* the same word as two ints (SEM_VALUE_HALF) */
	};
	int private;	/* glibc's inverted flag: 0 private, 128 pshared */
	int pad;
};

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
#else
/* 32-bit arches: glibc's layout without 64-bit atomics (i386, armhf): the
 * futex word holds value << 1 and a "there may be waiters" bit, the
 * waiters are counted in a word of their own. */
#define SEM_64 0
struct sem {
	volatile unsigned value;	/* tokens << SEM_VALUE_SHIFT | SEM_NWAITERS_BIT */
	int private;
	int pad;
	volatile unsigned nwaiters;	/* registered waiters */
};
#define SEM_VALUE_SHIFT 1
#define SEM_NWAITERS_BIT 1u
#endif
_Static_assert(sizeof(struct sem) <= sizeof(sem_t), "sem fits");
/* glibc's offsets, which a glibc process that shares the semaphore reads
 * (and the tests read through this struct). */
#if SEM_64
_Static_assert(offsetof(struct sem, data) == 0 && offsetof(struct sem, private) == 8,
	       "glibc's new_sem, 64-bit");
#else
_Static_assert(offsetof(struct sem, value) == 0 && offsetof(struct sem, private) == 4 &&
		       offsetof(struct sem, nwaiters) == 12,
	       "glibc's new_sem, 32-bit");
#endif
#define SEM_SHARED 128

/* The words glibc's sem_init writes, and no others (tests/t_abi.c compares
 * the bytes): pad is left as it was on 64-bit arches. */
static inline void fthr_sem_setup(struct sem *s, unsigned value, bool pshared)
{
#if SEM_64
	s->data = value;
#else
	s->value = value << SEM_VALUE_SHIFT;
	s->pad = 0; /* (glibc's 32-bit init writes it) */
	s->nwaiters = 0;
#endif
	s->private = pshared ? SEM_SHARED : 0;
}

#endif
