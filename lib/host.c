/* lib/host.c: see host.h. The host library's calls that fthr needs
 * underneath its own, resolved once from the library constructor.
 * (Cancellation, which wraps the host's pthread_cancel: cancel.c.) */
#include "config.h"
#include <dlfcn.h>
#include <string.h>
#include "host.h"

struct fthr_host fthr_host;

/* The versions glibc defines the calls under (glibc.h, 6). */
static const char *const versions[] = { FTHR_GLIBC_VERSIONS };
static const char *const cond_versions[] = { FTHR_GLIBC_COND_VERSIONS };

static void *resolve_in(const char *name, const char *const *vers, size_t n)
{
	void *p;
	size_t i;

	for (i = 0; i < n; i++)
		if ((p = dlvsym(RTLD_NEXT, name, vers[i])))
			return p;
	return dlsym(RTLD_NEXT, name); /* the default version: the newest */
}

static void *resolve(const char *name)
{
	return resolve_in(name, versions, sizeof(versions) / sizeof(versions[0]));
}

static void *resolve_cond(const char *name)
{
	return resolve_in(name, cond_versions, sizeof(cond_versions) / sizeof(cond_versions[0]));
}

struct fthr_host_shared fthr_host_shared;

void fthr_host_shared_resolve(void)
{
	struct fthr_host_shared *h = &fthr_host_shared;

	if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE))
		return;
	/* (racing first uses store the same values) */
	static const struct {
		const char *name;
		size_t at;
	} calls[] = {
#define CALL(f, name) { name, __builtin_offsetof(struct fthr_host_shared, f) },
		FTHR_GLIBC_SHARED_CALLS(CALL)
#undef CALL
	};
	/* the kinds' first and one-past-last calls in the struct */
	static const size_t cond_end = __builtin_offsetof(struct fthr_host_shared, rw_init),
			    rw_end = __builtin_offsetof(struct fthr_host_shared, barrier_init);
	bool ok[3] = { true, true, true };

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		int kind = calls[i].at < cond_end ? 0 : calls[i].at < rw_end ? 1 : 2;
		void *p = kind == 0 ? resolve_cond(calls[i].name) : resolve(calls[i].name);

		memcpy((char *)h + calls[i].at, &p, sizeof(p));
		ok[kind] = ok[kind] && p;
	}
	h->ok_cond = ok[0];
	h->ok_rwlock = ok[1];
	h->ok_barrier = ok[2];
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
}

bool fthr_host_resolve(void)
{
	if (!__atomic_load_n(&fthr_host.setspecific, __ATOMIC_ACQUIRE)) {
		fthr_host.key_create = resolve("pthread_key_create");
		fthr_host.cancel = resolve("pthread_cancel");
		fthr_host.getschedparam = resolve("pthread_getschedparam");
		fthr_host.setschedparam = resolve("pthread_setschedparam");
		fthr_host.setschedprio = resolve("pthread_setschedprio");
		__atomic_store_n(&fthr_host.setspecific, resolve("pthread_setspecific"),
				 __ATOMIC_RELEASE);
	}
	return fthr_host.key_create && fthr_host.setspecific && fthr_host.cancel;
}

__attribute__((constructor)) static void fthr_host_init(void)
{
	fthr_host_resolve();
	fthr_host_shared_resolve();
}
