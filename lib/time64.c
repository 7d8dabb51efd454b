/* lib/time64.c: the 64-bit-time entry points of 32-bit arches.
 *
 * A program built with _TIME_BITS=64 on i386 or armhf calls glibc's
 * __pthread_mutex_timedlock64, __sem_timedwait64, ... (GLIBC_2.34), which
 * take a struct __timespec64 { int64_t tv_sec; int32_t tv_nsec; 32 bits of
 * padding } instead of the 32-bit struct timespec. fthr must answer those
 * names too, or such a program would hand fthr's objects to glibc's code.
 * Each converts the deadline and calls fthr's own entry point (the one the
 * 32-bit name reaches, diagnostics included). A deadline past 2038 becomes
 * the largest the 32-bit futex call can take (2038-01-19), a wait of 12 years
 * and more from now; one before 1901 the smallest (already past).
 * No futex word of its own.
 */
#include "config.h"
#include <limits.h>
#include <semaphore.h>
#include <stdint.h>
#include <threads.h>
#include <time.h>
#include "diag.h"
#include "fthr_impl.h"

#if __SIZEOF_LONG__ == 4
struct fthr_timespec64 {
	int64_t tv_sec;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	int32_t pad, tv_nsec;
#else
	int32_t tv_nsec, pad;
#endif
};
_Static_assert(sizeof(struct fthr_timespec64) == 16, "glibc's struct __timespec64");

static inline const struct timespec *ts32(const struct fthr_timespec64 *t, struct timespec *out)
{
	if (!t)
		return NULL;
	out->tv_sec = t->tv_sec > INT32_MAX ? INT32_MAX
		      : t->tv_sec < INT32_MIN ? INT32_MIN
					      : (time_t)t->tv_sec;
	out->tv_nsec = t->tv_nsec;
	return out;
}

/* name64(obj, deadline) -> entry(obj, 32-bit deadline) */
#define T64(name64, entry, type)                                               \
	FTHR_HIDDEN int fthr_##name64(type o, const struct fthr_timespec64 *t)    \
	{                                                                      \
		struct timespec ts;                                            \
		return entry(o, ts32(t, &ts));                                 \
	}                                                                      \
	FTHR_EXPORT(name64, fthr_##name64);
/* name64(obj, clock, deadline) */
#define C64(name64, entry, type)                                               \
	FTHR_HIDDEN int fthr_##name64(type o, clockid_t c, const struct fthr_timespec64 *t) \
	{                                                                      \
		struct timespec ts;                                            \
		return entry(o, c, ts32(t, &ts));                              \
	}                                                                      \
	FTHR_EXPORT(name64, fthr_##name64);
/* name64(obj, mutex, deadline) */
#define W64(name64, entry, type, mtype)                                        \
	FTHR_HIDDEN int fthr_##name64(type o, mtype m, const struct fthr_timespec64 *t) \
	{                                                                      \
		struct timespec ts;                                            \
		return entry(o, m, ts32(t, &ts));                              \
	}                                                                      \
	FTHR_EXPORT(name64, fthr_##name64);

FTHR_HIDDEN int fthr_entry_pthread_mutex_timedlock(pthread_mutex_t *, const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_mutex_clocklock(pthread_mutex_t *, clockid_t,
						   const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_cond_timedwait(pthread_cond_t *, pthread_mutex_t *,
						  const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_cond_clockwait(pthread_cond_t *, pthread_mutex_t *,
						  clockid_t, const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_rwlock_timedrdlock(pthread_rwlock_t *,
						      const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_rwlock_timedwrlock(pthread_rwlock_t *,
						      const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_rwlock_clockrdlock(pthread_rwlock_t *, clockid_t,
						      const struct timespec *);
FTHR_HIDDEN int fthr_entry_pthread_rwlock_clockwrlock(pthread_rwlock_t *, clockid_t,
						      const struct timespec *);
FTHR_HIDDEN int fthr_entry_sem_timedwait(sem_t *, const struct timespec *);
FTHR_HIDDEN int fthr_entry_sem_clockwait(sem_t *, clockid_t, const struct timespec *);
FTHR_HIDDEN int fthr_entry_mtx_timedlock(mtx_t *, const struct timespec *);
FTHR_HIDDEN int fthr_entry_cnd_timedwait(cnd_t *, mtx_t *, const struct timespec *);

T64(__pthread_mutex_timedlock64, fthr_entry_pthread_mutex_timedlock, pthread_mutex_t *)
C64(__pthread_mutex_clocklock64, fthr_entry_pthread_mutex_clocklock, pthread_mutex_t *)
W64(__pthread_cond_timedwait64, fthr_entry_pthread_cond_timedwait, pthread_cond_t *,
    pthread_mutex_t *)
FTHR_HIDDEN int fthr___pthread_cond_clockwait64(pthread_cond_t *c, pthread_mutex_t *m,
						clockid_t clk, const struct fthr_timespec64 *t)
{
	struct timespec ts;

	return fthr_entry_pthread_cond_clockwait(c, m, clk, ts32(t, &ts));
}
FTHR_EXPORT(__pthread_cond_clockwait64, fthr___pthread_cond_clockwait64);
T64(__pthread_rwlock_timedrdlock64, fthr_entry_pthread_rwlock_timedrdlock, pthread_rwlock_t *)
T64(__pthread_rwlock_timedwrlock64, fthr_entry_pthread_rwlock_timedwrlock, pthread_rwlock_t *)
C64(__pthread_rwlock_clockrdlock64, fthr_entry_pthread_rwlock_clockrdlock, pthread_rwlock_t *)
C64(__pthread_rwlock_clockwrlock64, fthr_entry_pthread_rwlock_clockwrlock, pthread_rwlock_t *)
T64(__sem_timedwait64, fthr_entry_sem_timedwait, sem_t *)
C64(__sem_clockwait64, fthr_entry_sem_clockwait, sem_t *)
T64(__mtx_timedlock64, fthr_entry_mtx_timedlock, mtx_t *)
W64(__cnd_timedwait64, fthr_entry_cnd_timedwait, cnd_t *, mtx_t *)
#endif
