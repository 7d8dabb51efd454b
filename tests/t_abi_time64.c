/* tests/t_abi_time64.c: the timed calls as a program built with 64-bit
 * time sees them (on i386 and armhf glibc's headers then redirect
 * pthread_mutex_timedlock to __pthread_mutex_timedlock64 and so on; on
 * 64-bit arches the names are the usual ones). Part of t_abi. */
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <time.h>

const char *abi_time64_check(void);

static char why[200];

/* 50 ms from now on clk */
static struct timespec soon(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_nsec += 50000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static long long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000LL + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static const char *object_of(void *fn)
{
	Dl_info di;

	return dladdr(fn, &di) && di.dli_fname ? di.dli_fname : "?";
}

#define EXPECT(call, want)                                                     \
	do {                                                                   \
		struct timespec t0_;                                           \
		int r_;                                                        \
		clock_gettime(CLOCK_MONOTONIC, &t0_);                          \
		r_ = (call);                                                   \
		if (r_ != (want)) {                                            \
			snprintf(why, sizeof(why), "%s: %d, not %d", #call, r_, (want)); \
			return why;                                            \
		}                                                              \
		if ((want) == ETIMEDOUT && ms_since(&t0_) < 40) {              \
			snprintf(why, sizeof(why), "%s: timed out after %lld ms", #call, \
				 ms_since(&t0_));                              \
			return why;                                            \
		}                                                              \
	} while (0)

static void *try_mutex(void *arg)
{
	struct timespec t = soon(CLOCK_REALTIME), m = soon(CLOCK_MONOTONIC);
	long r = pthread_mutex_timedlock(arg, &t);

	if (r == ETIMEDOUT)
		r = pthread_mutex_clocklock(arg, CLOCK_MONOTONIC, &m);
	return (void *)r;
}

/* (started with pthread_create: TSan does not intercept thrd_create) */
static void *try_mtx(void *arg)
{
	struct timespec t = soon(CLOCK_REALTIME);

	return (void *)(long)mtx_timedlock(arg, &t);
}

const char *abi_time64_check(void)
{
	static void *const fns[] = { (void *)pthread_mutex_timedlock,
				     (void *)pthread_mutex_clocklock,
				     (void *)pthread_cond_timedwait,
				     (void *)pthread_cond_clockwait,
				     (void *)pthread_rwlock_timedrdlock,
				     (void *)pthread_rwlock_timedwrlock,
				     (void *)pthread_rwlock_clockrdlock,
				     (void *)pthread_rwlock_clockwrlock,
				     (void *)sem_timedwait,
				     (void *)sem_clockwait,
				     (void *)mtx_timedlock,
				     (void *)cnd_timedwait };
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
	struct timespec t, far = { .tv_sec = 4102444800LL }; /* 2100-01-01 */
	pthread_t th;
	mtx_t mx;
	cnd_t cx;
	sem_t s;
	void *res;

	if (sizeof(t.tv_sec) != 8)
		return "time_t is not 64-bit under _TIME_BITS=64";
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strstr(object_of(fns[i]), "libfthr") &&
		    /* a sanitizer's interceptor passes the call on */
		    !strstr(object_of(fns[i]), "libtsan") && !strstr(object_of(fns[i]), "libasan")) {
			snprintf(why, sizeof(why), "timed call %zu is %s's", i, object_of(fns[i]));
			return why;
		}
	/* semaphores: a token is taken at once, even before a deadline past
	 * 2038; none: the deadline ends the wait */
	sem_init(&s, 0, 2);
	EXPECT(sem_timedwait(&s, &far), 0);
	EXPECT(sem_clockwait(&s, CLOCK_MONOTONIC, &far), 0);
	t = soon(CLOCK_REALTIME);
	EXPECT(sem_timedwait(&s, &t) == -1 ? errno : 0, ETIMEDOUT);
	t = soon(CLOCK_MONOTONIC);
	EXPECT(sem_clockwait(&s, CLOCK_MONOTONIC, &t) == -1 ? errno : 0, ETIMEDOUT);
	t.tv_nsec = 1000000000;
	EXPECT(sem_timedwait(&s, &t) == -1 ? errno : 0, EINVAL);
	sem_destroy(&s);
	/* a mutex another thread holds */
	EXPECT(pthread_mutex_timedlock(&m, &far), 0);
	pthread_create(&th, NULL, try_mutex, &m);
	pthread_join(th, &res);
	if ((long)res != ETIMEDOUT)
		return "pthread_mutex_timedlock/clocklock64 on a held mutex did not time out";
	/* a condition nobody signals */
	t = soon(CLOCK_REALTIME);
	EXPECT(pthread_cond_timedwait(&c, &m, &t), ETIMEDOUT);
	t = soon(CLOCK_MONOTONIC);
	EXPECT(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	pthread_mutex_unlock(&m);
	/* a write lock behind the caller's own read lock */
	EXPECT(pthread_rwlock_timedrdlock(&rw, &far), 0);
	t = soon(CLOCK_REALTIME);
	EXPECT(pthread_rwlock_timedwrlock(&rw, &t), ETIMEDOUT);
	t = soon(CLOCK_MONOTONIC);
	EXPECT(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &t), ETIMEDOUT);
	EXPECT(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &far), 0);
	pthread_rwlock_unlock(&rw);
	pthread_rwlock_unlock(&rw);
	/* C11 */
	mtx_init(&mx, mtx_timed);
	cnd_init(&cx);
	EXPECT(mtx_timedlock(&mx, &far), thrd_success);
	pthread_create(&th, NULL, try_mtx, &mx);
	pthread_join(th, &res);
	if ((long)res != thrd_timedout)
		return "mtx_timedlock64 on a held mutex did not time out";
	t = soon(CLOCK_REALTIME);
	EXPECT(cnd_timedwait(&cx, &mx, &t), thrd_timedout);
	mtx_unlock(&mx);
	cnd_destroy(&cx);
	mtx_destroy(&mx);
	return NULL;
}
