/* tests/interposer_lib.c: a mutrace-style profiler, as tests/interposer.sh
 * preloads it ahead of fthr. It wraps pthread_mutex_lock, found with
 * dlsym(RTLD_NEXT), and pthread_cond_wait, found as mutrace and TSan find
 * it, dlvsym(RTLD_NEXT, ..., the arch's condvar version), counts the calls,
 * and at exit prints each call's count and the object its next definition
 * lives in. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#if defined(__x86_64__)
#define COND_VERSION "GLIBC_2.3.2"
#elif defined(__aarch64__) || (defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define COND_VERSION "GLIBC_2.17"
#elif defined(__s390x__)
#define COND_VERSION "GLIBC_2.3.2"
#else
#error "the glibc version of pthread_cond_wait on this arch"
#endif

static int (*next_lock)(pthread_mutex_t *);
static int (*next_wait)(pthread_cond_t *, pthread_mutex_t *);
static unsigned long n_lock, n_wait;

static void resolve(void)
{
	if (!next_lock)
		next_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
	if (!next_wait)
		next_wait = (int (*)(pthread_cond_t *, pthread_mutex_t *))
			dlvsym(RTLD_NEXT, "pthread_cond_wait", COND_VERSION);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	resolve();
	__atomic_fetch_add(&n_lock, 1, __ATOMIC_RELAXED);
	return next_lock(m);
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	resolve();
	__atomic_fetch_add(&n_wait, 1, __ATOMIC_RELAXED);
	return next_wait(c, m);
}

static const char *where(void *f)
{
	Dl_info di;

	return f && dladdr(f, &di) && di.dli_fname ? di.dli_fname : "none";
}

__attribute__((destructor)) static void report(void)
{
	resolve();
	fprintf(stderr, "interposer: pthread_mutex_lock %lu -> %s\n", n_lock, where((void *)next_lock));
	fprintf(stderr, "interposer: pthread_cond_wait@%s %lu -> %s\n", COND_VERSION, n_wait,
		where((void *)next_wait));
}
