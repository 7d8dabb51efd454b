/* lib/host.c: see host.h. The host library's calls that fthr needs
 * underneath its own, resolved once from the library constructor.
 * (Cancellation, which wraps the host's pthread_cancel: cancel.c.) */
#include "config.h"
#include <dlfcn.h>
#include <string.h>
#include "host.h"

struct fthr_host fthr_host;

/* The versions glibc defines the calls under, newest first. */
static const char *const versions[] = { "GLIBC_2.34", "GLIBC_2.17", "GLIBC_2.2.5" };

/* The condition variable's: never GLIBC_2.2.5 on x86_64, whose
 * pthread_cond_* are the old condition variable kept for old binaries. */
static const char *const cond_versions[] = { "GLIBC_2.34", "GLIBC_2.3.2", "GLIBC_2.17" };

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
#define CALL(f, name) { name, __builtin_offsetof(struct fthr_host_shared, f) }
		CALL(cond_init, "pthread_cond_init"), CALL(cond_destroy, "pthread_cond_destroy"),
		CALL(cond_signal, "pthread_cond_signal"),
		CALL(cond_broadcast, "pthread_cond_broadcast"),
		CALL(cond_wait, "pthread_cond_wait"), CALL(cond_timedwait, "pthread_cond_timedwait"),
		CALL(cond_clockwait, "pthread_cond_clockwait"),
		CALL(rw_init, "pthread_rwlock_init"), CALL(rw_destroy, "pthread_rwlock_destroy"),
		CALL(rw_rdlock, "pthread_rwlock_rdlock"),
		CALL(rw_tryrdlock, "pthread_rwlock_tryrdlock"),
		CALL(rw_timedrdlock, "pthread_rwlock_timedrdlock"),
		CALL(rw_clockrdlock, "pthread_rwlock_clockrdlock"),
		CALL(rw_wrlock, "pthread_rwlock_wrlock"),
		CALL(rw_trywrlock, "pthread_rwlock_trywrlock"),
		CALL(rw_timedwrlock, "pthread_rwlock_timedwrlock"),
		CALL(rw_clockwrlock, "pthread_rwlock_clockwrlock"),
		CALL(rw_unlock, "pthread_rwlock_unlock"),
		CALL(barrier_init, "pthread_barrier_init"),
		CALL(barrier_destroy, "pthread_barrier_destroy"),
		CALL(barrier_wait, "pthread_barrier_wait"),
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
