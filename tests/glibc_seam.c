/* tests/glibc_seam.c: what fthr assumes of glibc beyond its public
 * interface (lib/glibc.h lists each assumption and where fthr relies on
 * it), checked against the running glibc itself: this program runs without
 * fthr. A glibc that changed one of them fails here, by name, before fthr
 * misbehaves on it. Exit 0: all hold; 1: one does not (each printed).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>
#include "glibc.h"

static int failed;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	failed |= !ok;
}

static __thread int tls_probe;

/* a thread's static TLS lies at one offset from its descriptor */
static void *tls_offset(void *arg)
{
	(void)arg;
	return (void *)((char *)&tls_probe - (char *)pthread_self());
}

static void *nothing(void *arg)
{
	return arg;
}

/* 6. each call fthr forwards is found under one of its versions */
static void forwarded_calls(void)
{
	static const char *const vers[] = { FTHR_GLIBC_VERSIONS };
	static const char *const cond_vers[] = { FTHR_GLIBC_COND_VERSIONS };
	static const char *const names[] = {
#define NAME(f, name) name,
		FTHR_GLIBC_SHARED_CALLS(NAME)
#undef NAME
	};
	char what[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		bool cond = strncmp(names[i], "pthread_cond_", 13) == 0;
		const char *const *v = cond ? cond_vers : vers;
		bool found = false;

		for (size_t k = 0; k < 3 && !found; k++)
			found = dlvsym(RTLD_NEXT, names[i], v[k]) != NULL;
		snprintf(what, sizeof(what), "glibc defines %s under a version fthr asks for",
			 names[i]);
		check(found, what);
	}
}

int main(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	pthread_barrierattr_t ba;
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_rwlock_t l;
	pthread_barrier_t b;
	pthread_t t;
	void *off;

	/* 3. cleared before a second thread starts */
	check(__libc_single_threaded, "__libc_single_threaded is set in a process with one thread");
	pthread_create(&t, NULL, nothing, NULL);
	pthread_join(t, NULL);
	check(!__libc_single_threaded, "__libc_single_threaded is cleared once a thread was created");

	/* 1. thread t's record from pthread_t */
	pthread_create(&t, NULL, tls_offset, NULL);
	pthread_join(t, &off);
	check(off == tls_offset(NULL),
	      "a thread's static TLS lies at the same offset from its pthread_t as any other's");

	/* 2. glibc keeps SIGCANCEL for itself, below SIGRTMIN */
	check(SIGRTMIN > FTHR_GLIBC_SIGCANCEL, "SIGCANCEL (32) is below SIGRTMIN, glibc's own");

	/* 4. glibc's init marks a process-shared mutex with FTHR_MUTEX_PSHARED */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&m, &ma);
	check(m.__data.__kind & FTHR_MUTEX_PSHARED, "a process-shared mutex's __kind has bit 128");
	pthread_mutex_destroy(&m);
	pthread_mutex_init(&m, NULL);
	check(!(m.__data.__kind & FTHR_MUTEX_PSHARED), "a private mutex's __kind has no bit 128");
	pthread_mutex_destroy(&m);

	/* 5. bit 0 of __wrefs */
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&c, &ca);
	check(fthr_glibc_cond_shared(&c), "a process-shared condition has bit 0 of __wrefs");
	pthread_cond_destroy(&c);
	pthread_cond_destroy(&c);

	/* 5. __shared */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&l, &ra);
	check(fthr_glibc_rwlock_shared(&l), "a process-shared rwlock has __shared set");
	pthread_rwlock_destroy(&l);
	pthread_rwlock_destroy(&l);

	/* 5. the int at offset 12 */
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&b, &ba, 2);
	check(fthr_glibc_barrier_shared(&b), "a process-shared barrier has its 'shared' int set");
	pthread_barrier_destroy(&b);
	pthread_barrier_destroy(&b);

	forwarded_calls();
	return failed;
}
