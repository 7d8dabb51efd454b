/* lib/sem.h: the semaphore object, glibc's 64-bit layout (nptl
 * internaltypes.h, struct new_sem), shared by thr_sem.c and the named
 * semaphores of thr_sem_named.c. */
#ifndef FTHR_SEM_H
#define FTHR_SEM_H

#include <semaphore.h>
#include <stdint.h>
#include "fthr_impl.h"

struct sem {
	uint64_t data;	/* value in the low 32 bits, waiters in the high 32 */
	int private;	/* glibc's inverted flag: 0 private, 128 pshared */
	int pad;
};
_Static_assert(sizeof(struct sem) <= sizeof(sem_t), "sem fits");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the value half of data is the futex word on little-endian cpus");

#define SEM_NWAITERS_SHIFT 32
#define SEM_VALUE_MASK 0xffffffffull
#define SEM_SHARED 128

static inline void fthr_sem_setup(struct sem *s, unsigned value, bool pshared)
{
	s->data = value;
	s->private = pshared ? SEM_SHARED : 0;
	s->pad = 0;
}

#endif
