/* lib/host.c: see host.h. */
#include "config.h"
#include <dlfcn.h>
#include "futex.h"
#include "host.h"

struct fthr_host fthr_host;

/* The versions glibc defines the calls under, newest first. */
static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.17", "GLIBC_2.2.5" };

static void *resolve(const char *name)
{
	void *p;
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		if ((p = dlvsym(RTLD_NEXT, name, versions[i])))
			return p;
	return dlsym(RTLD_NEXT, name);
}

bool fthr_host_resolve(void)
{
	if (!__atomic_load_n(&fthr_host.setspecific, __ATOMIC_ACQUIRE)) {
		fthr_host.key_create = resolve("pthread_key_create");
		__atomic_store_n(&fthr_host.setspecific, resolve("pthread_setspecific"),
				 __ATOMIC_RELEASE);
	}
	return fthr_host.key_create && fthr_host.setspecific;
}

__attribute__((constructor)) static void fthr_host_init(void)
{
	fthr_host_resolve();
}

int fthr_futex_wait_cancelable(volatile int *addr, int expect, bool shared,
			       clockid_t clk, const struct timespec *abstime,
			       void (*cleanup)(void *), void *arg)
{
	struct _pthread_cleanup_buffer buf;
	int r, oldtype;

	_pthread_cleanup_push(&buf, cleanup, arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	r = fthr_futex_wait(addr, expect, shared, clk, abstime);
	pthread_setcanceltype(oldtype, NULL);
	/* A request that came as the wait ended (its SIGCANCEL may still be on
	 * the way, and glibc's handler marks the thread cancelled even after
	 * the type went back to deferred) is acted on here, still inside the
	 * cleanup region, so the caller's cleanup passes on what the wait may
	 * have consumed. */
	pthread_testcancel();
	_pthread_cleanup_pop(&buf, 0);
	return r;
}
