/* lib/thr_mutexattr.c: pthread_mutexattr_*, in glibc's encoding of the
 * attribute word (type in the low bits, ceiling in bits 12-23, protocol in
 * bits 28-29, robust bit 30, pshared bit 31). No futex here.
 */
#include "config.h"
#include <errno.h>
#include <sched.h>
#include "fthr_impl.h"

static inline int *word(pthread_mutexattr_t *a)
{
	return &a->__align;
}

static inline int get(const pthread_mutexattr_t *a)
{
	return a->__align;
}

/* Replace the bits in mask with v (already shifted). */
static inline void put(pthread_mutexattr_t *a, int mask, int v)
{
	*word(a) = (get(a) & ~mask) | v;
}

FTHR_HIDDEN int fthr_mutexattr_init(pthread_mutexattr_t *a)
{
	*word(a) = PTHREAD_MUTEX_DEFAULT;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_destroy(pthread_mutexattr_t *a)
{
	(void)a;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_settype(pthread_mutexattr_t *a, int type)
{
	if (type < PTHREAD_MUTEX_NORMAL || type > PTHREAD_MUTEX_ADAPTIVE_NP)
		return EINVAL;
	put(a, ~FTHR_MATTR_FLAG_BITS, type);
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_gettype(const pthread_mutexattr_t *a, int *type)
{
	*type = get(a) & ~FTHR_MATTR_FLAG_BITS;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_setpshared(pthread_mutexattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE &&
	    pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	put(a, FTHR_MATTR_PSHARED,
	    pshared == PTHREAD_PROCESS_SHARED ? FTHR_MATTR_PSHARED : 0);
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_getpshared(const pthread_mutexattr_t *a,
					  int *pshared)
{
	*pshared = (get(a) & FTHR_MATTR_PSHARED) ? PTHREAD_PROCESS_SHARED
						 : PTHREAD_PROCESS_PRIVATE;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_setprotocol(pthread_mutexattr_t *a, int proto)
{
	if (proto != PTHREAD_PRIO_NONE && proto != PTHREAD_PRIO_INHERIT &&
	    proto != PTHREAD_PRIO_PROTECT)
		return EINVAL;
	put(a, FTHR_MATTR_PROTOCOL_MASK, proto << FTHR_MATTR_PROTOCOL_SHIFT);
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_getprotocol(const pthread_mutexattr_t *a,
					   int *proto)
{
	*proto = (get(a) & FTHR_MATTR_PROTOCOL_MASK) >> FTHR_MATTR_PROTOCOL_SHIFT;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_setprioceiling(pthread_mutexattr_t *a, int prio)
{
	if (prio < sched_get_priority_min(SCHED_FIFO) ||
	    prio > sched_get_priority_max(SCHED_FIFO) ||
	    (prio << FTHR_MATTR_CEILING_SHIFT) & ~FTHR_MATTR_CEILING_MASK)
		return EINVAL;
	put(a, FTHR_MATTR_CEILING_MASK, prio << FTHR_MATTR_CEILING_SHIFT);
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_getprioceiling(const pthread_mutexattr_t *a,
					      int *prio)
{
	int c = (get(a) & FTHR_MATTR_CEILING_MASK) >> FTHR_MATTR_CEILING_SHIFT;
	int min;

	/* As glibc: an unset ceiling reads as the lowest SCHED_FIFO priority. */
	if (c == 0 && (min = sched_get_priority_min(SCHED_FIFO)) > 0)
		c = min;
	*prio = c;
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_setrobust(pthread_mutexattr_t *a, int robust)
{
	if (robust != PTHREAD_MUTEX_STALLED && robust != PTHREAD_MUTEX_ROBUST)
		return EINVAL;
	put(a, FTHR_MATTR_ROBUST,
	    robust == PTHREAD_MUTEX_ROBUST ? FTHR_MATTR_ROBUST : 0);
	return 0;
}

FTHR_HIDDEN int fthr_mutexattr_getrobust(const pthread_mutexattr_t *a,
					 int *robust)
{
	*robust = (get(a) & FTHR_MATTR_ROBUST) ? PTHREAD_MUTEX_ROBUST
					       : PTHREAD_MUTEX_STALLED;
	return 0;
}

FTHR_EXPORT(pthread_mutexattr_init, fthr_mutexattr_init);
FTHR_EXPORT(pthread_mutexattr_destroy, fthr_mutexattr_destroy);
FTHR_EXPORT(pthread_mutexattr_settype, fthr_mutexattr_settype);
FTHR_EXPORT(pthread_mutexattr_gettype, fthr_mutexattr_gettype);
FTHR_EXPORT(pthread_mutexattr_setkind_np, fthr_mutexattr_settype);
FTHR_EXPORT(pthread_mutexattr_getkind_np, fthr_mutexattr_gettype);
FTHR_EXPORT(pthread_mutexattr_setpshared, fthr_mutexattr_setpshared);
FTHR_EXPORT(pthread_mutexattr_getpshared, fthr_mutexattr_getpshared);
FTHR_EXPORT(pthread_mutexattr_setprotocol, fthr_mutexattr_setprotocol);
FTHR_EXPORT(pthread_mutexattr_getprotocol, fthr_mutexattr_getprotocol);
FTHR_EXPORT(pthread_mutexattr_setprioceiling, fthr_mutexattr_setprioceiling);
FTHR_EXPORT(pthread_mutexattr_getprioceiling, fthr_mutexattr_getprioceiling);
FTHR_EXPORT(pthread_mutexattr_setrobust, fthr_mutexattr_setrobust);
FTHR_EXPORT(pthread_mutexattr_getrobust, fthr_mutexattr_getrobust);
FTHR_EXPORT(pthread_mutexattr_setrobust_np, fthr_mutexattr_setrobust);
FTHR_EXPORT(pthread_mutexattr_getrobust_np, fthr_mutexattr_getrobust);
FTHR_EXPORT(__pthread_mutexattr_init, fthr_mutexattr_init);
FTHR_EXPORT(__pthread_mutexattr_destroy, fthr_mutexattr_destroy);
FTHR_EXPORT(__pthread_mutexattr_settype, fthr_mutexattr_settype);
