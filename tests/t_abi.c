/* tests/t_abi.c: where calls land, and glibc's ABI. */
#include "config.h"
#include <dlfcn.h>
#include <limits.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "harness.h"

/* A sanitizer runtime's interceptor counts as what it passes the call on
 * to (harness.c checks that fthr is behind it). */
static bool from_sanitizer(void *fn)
{
	return fn && (strstr(harness_object_of(fn), "libasan") ||
		      strstr(harness_object_of(fn), "libtsan"));
}

static int from_fthr(void *fn)
{
	return fn && (strstr(harness_object_of(fn), "libfthr") != NULL || from_sanitizer(fn));
}

static const char *const ours[] = {
	"pthread_mutex_init", "pthread_mutex_destroy", "pthread_mutex_lock",
	"pthread_mutex_trylock", "pthread_mutex_timedlock",
	"pthread_mutex_clocklock", "pthread_mutex_unlock",
	"pthread_mutexattr_init", "pthread_mutexattr_settype",
	"pthread_once", "pthread_spin_init", "pthread_spin_lock",
	"pthread_spin_trylock", "pthread_spin_unlock", "pthread_spin_destroy",
	"fthr_version",
	/* the host's underneath, wrapped (cancel.c, thr_mutex_pp.c) */
	"pthread_cancel", "pthread_getschedparam", "pthread_setschedparam",
	"pthread_setschedprio",
};

/* glibc's compatibility-only names: a versioned lookup finds them */
static const char *const ours_compat[][2] = {
	{ "pthread_mutexattr_setkind_np", HARNESS_V_BASE },
	{ "pthread_mutexattr_setrobust_np", HARNESS_V_ROBUST },
	{ "__pthread_mutex_lock", HARNESS_V_BASE },
	{ "__pthread_mutex_unlock", HARNESS_V_BASE },
	{ "__pthread_once", HARNESS_V_BASE },
};

START_TEST(fthr_defines_what_it_implements)
{
	size_t i;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		ck_assert_msg(from_fthr(dlsym(RTLD_DEFAULT, ours[i])),
			      "%s does not resolve to libfthr but to %s", ours[i],
			      harness_object_of(dlsym(RTLD_DEFAULT, ours[i])));
	for (i = 0; i < sizeof(ours_compat) / sizeof(ours_compat[0]); i++) {
		void *f = dlvsym(RTLD_DEFAULT, ours_compat[i][0], ours_compat[i][1]);

		ck_assert_msg(from_fthr(f), "%s@%s does not resolve to libfthr but to %s",
			      ours_compat[i][0], ours_compat[i][1], harness_object_of(f));
	}
}
END_TEST

START_TEST(lifecycle_stays_the_hosts)
{
	if (from_sanitizer((void *)pthread_create))
		return; /* the sanitizer's interceptor passes it on to libc */
	ck_assert_msg(!from_fthr((void *)pthread_create), "pthread_create must stay libc's");
	ck_assert(!from_fthr(dlsym(RTLD_DEFAULT, "pthread_join")));
	ck_assert(!from_fthr(dlsym(RTLD_DEFAULT, "pthread_atfork")));
	ck_assert(strstr(harness_object_of((void *)pthread_create), "libc") != NULL);
}
END_TEST

START_TEST(version_string)
{
	const char *(*v)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "fthr_version");

	ck_assert_ptr_nonnull(v);
	ck_assert_str_eq(v(), PACKAGE_VERSION);
}
END_TEST

/* glibc's own layout for the arch the test is built for (its <pthread.h>
 * and <semaphore.h> give the sizes: aarch64's mutex is 48 bytes, the other
 * 64-bit arches' 40); __kind is at 16 on 64-bit arches, at 12 on 32-bit
 * ones, where it comes before __nusers. */
START_TEST(layout_is_glibcs)
{
	pthread_mutex_t m;

	ck_assert_uint_eq(sizeof(pthread_mutex_t), __SIZEOF_PTHREAD_MUTEX_T);
	ck_assert_uint_eq(offsetof(pthread_mutex_t, __data.__kind), sizeof(long) == 8 ? 16 : 12);
	ck_assert_uint_eq(sizeof(pthread_rwlock_t), __SIZEOF_PTHREAD_RWLOCK_T);
	ck_assert_uint_eq(sizeof(pthread_cond_t), __SIZEOF_PTHREAD_COND_T);
	ck_assert_uint_eq(sizeof(pthread_barrier_t), __SIZEOF_PTHREAD_BARRIER_T);
	ck_assert_uint_eq(sizeof(sem_t), __SIZEOF_SEM_T);
	ck_assert_uint_eq(sizeof(pthread_once_t), 4);
	ck_assert_uint_eq(sizeof(pthread_spinlock_t), 4);
	/* init writes every byte: all-zero but for the kind */
	memset(&m, 0xa5, sizeof(m));
	ck_assert_int_eq(pthread_mutex_init(&m, NULL), 0);
	for (size_t i = 0; i < sizeof(m); i++)
		ck_assert_int_eq(((unsigned char *)&m)[i], 0);
}
END_TEST

/* glibc's own definition of a name, from libc.so.6 itself (never fthr's,
 * linked or preloaded). */
static void *glibc_fn(const char *name)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, name) : NULL;

	ck_assert_msg(f != NULL, "no %s in libc.so.6", name);
	ck_assert_msg(!from_fthr(f), "libc.so.6's %s is fthr's", name);
	return f;
}

/* The bytes of two objects, the first differing one named. */
static void same_bytes(const char *what, const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++)
		ck_assert_msg(x[i] == y[i], "%s: byte %zu is 0x%02x in fthr's, 0x%02x in glibc's",
			      what, i, x[i], y[i]);
}

/* Every mutex kind the static initializers name, and the robust and
 * process-shared ones: fthr's init writes the bytes glibc's writes, and
 * those of the arch's static initializer. */
START_TEST(mutex_init_bytes_are_glibcs)
{
	int (*g_init)(pthread_mutex_t *, const pthread_mutexattr_t *) =
		(int (*)(pthread_mutex_t *, const pthread_mutexattr_t *))glibc_fn("pthread_mutex_init");
	static const pthread_mutex_t statics[] = {
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
		PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP, PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
	};
	static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
				     PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_ADAPTIVE_NP };

	for (int variant = 0; variant < 3; variant++)
		for (int i = 0; i < 4; i++) {
			pthread_mutexattr_t a;
			pthread_mutex_t f, g;
			char what[64];

			ck_assert_int_eq(pthread_mutexattr_init(&a), 0);
			ck_assert_int_eq(pthread_mutexattr_settype(&a, types[i]), 0);
			if (variant == 1)
				ck_assert_int_eq(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
			if (variant == 2)
				ck_assert_int_eq(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
			memset(&f, 0x5a, sizeof(f));
			memset(&g, 0x5a, sizeof(g));
			ck_assert_int_eq(pthread_mutex_init(&f, &a), 0);
			ck_assert_int_eq(g_init(&g, &a), 0);
			snprintf(what, sizeof(what), "mutex type %d%s", types[i],
				 variant == 1 ? " robust" : variant == 2 ? " pshared" : "");
			same_bytes(what, &f, &g, sizeof(f));
			if (variant == 0)
				same_bytes("static initializer", &f, &statics[i], sizeof(f));
		}
}
END_TEST

START_TEST(rwlock_cond_spin_init_bytes_are_glibcs)
{
	int (*g_rw)(pthread_rwlock_t *, const pthread_rwlockattr_t *) =
		(int (*)(pthread_rwlock_t *, const pthread_rwlockattr_t *))glibc_fn("pthread_rwlock_init");
	int (*g_cond)(pthread_cond_t *, const pthread_condattr_t *) =
		(int (*)(pthread_cond_t *, const pthread_condattr_t *))glibc_fn("pthread_cond_init");
	int (*g_spin)(pthread_spinlock_t *, int) =
		(int (*)(pthread_spinlock_t *, int))glibc_fn("pthread_spin_init");
	static const pthread_rwlock_t rw_statics[] = {
		PTHREAD_RWLOCK_INITIALIZER, PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
	};
	static const pthread_cond_t c_static = PTHREAD_COND_INITIALIZER;
	pthread_rwlock_t rf, rg;
	pthread_cond_t cf, cg;
	/* (pthread_spinlock_t is a volatile int: the bytes go through ints) */
	pthread_spinlock_t sf, sg;
	int sfv, sgv;

	for (int i = 0; i < 2; i++) {
		pthread_rwlockattr_t a;

		ck_assert_int_eq(pthread_rwlockattr_init(&a), 0);
		ck_assert_int_eq(pthread_rwlockattr_setkind_np(&a, i ?
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP : PTHREAD_RWLOCK_DEFAULT_NP), 0);
		memset(&rf, 0x5a, sizeof(rf));
		memset(&rg, 0x5a, sizeof(rg));
		ck_assert_int_eq(pthread_rwlock_init(&rf, &a), 0);
		ck_assert_int_eq(g_rw(&rg, &a), 0);
		same_bytes("rwlock", &rf, &rg, sizeof(rf));
		same_bytes("rwlock static initializer", &rf, &rw_statics[i], sizeof(rf));
		ck_assert_int_eq(pthread_rwlock_destroy(&rf), 0);
	}
	memset(&cf, 0x5a, sizeof(cf));
	memset(&cg, 0x5a, sizeof(cg));
	ck_assert_int_eq(pthread_cond_init(&cf, NULL), 0);
	ck_assert_int_eq(g_cond(&cg, NULL), 0);
	same_bytes("cond", &cf, &cg, sizeof(cf));
	same_bytes("cond static initializer", &cf, &c_static, sizeof(cf));
	ck_assert_int_eq(pthread_cond_destroy(&cf), 0);
	sf = sg = 0x5a5a5a5a;
	ck_assert_int_eq(pthread_spin_init(&sf, PTHREAD_PROCESS_PRIVATE), 0);
	ck_assert_int_eq(g_spin(&sg, PTHREAD_PROCESS_PRIVATE), 0);
	sfv = sf;
	sgv = sg;
	same_bytes("spinlock", &sfv, &sgv, sizeof(sfv));
}
END_TEST

/* The semaphore's value and flags where glibc keeps them on this arch (the
 * value half of the 64-bit word differs with the byte order; 32-bit cpus
 * have another layout): fthr's sem_init writes glibc's bytes, and a
 * semaphore glibc made and posted reads back in fthr. */
/* fthr's own definition of a name. The sanitizers' sem_init interceptor
 * zeroes the whole sem_t before it calls on (a workaround for glibc's
 * pre-2.1 semaphores), which would hide what fthr's init writes. */
static void *fthr_fn(const char *name)
{
	void *f = dlsym(RTLD_DEFAULT, name);

	if (from_sanitizer(f)) {
		void *h = dlopen("libfthr.so.0", RTLD_NOW | RTLD_NOLOAD);

		f = h ? dlsym(h, name) : NULL;
	}
	ck_assert_msg(f != NULL && strstr(harness_object_of(f), "libfthr"),
		      "%s is not fthr's", name);
	return f;
}

START_TEST(sem_bytes_are_glibcs)
{
	int (*f_init)(sem_t *, int, unsigned) = (int (*)(sem_t *, int, unsigned))fthr_fn("sem_init");
	int (*g_init)(sem_t *, int, unsigned) = (int (*)(sem_t *, int, unsigned))glibc_fn("sem_init");
	int (*g_post)(sem_t *) = (int (*)(sem_t *))glibc_fn("sem_post");
	int (*g_getvalue)(sem_t *, int *) = (int (*)(sem_t *, int *))glibc_fn("sem_getvalue");
	static const unsigned values[] = { 0, 1, 5, 0x7fff, 0x12345678, SEM_VALUE_MAX };

	for (int pshared = 0; pshared < 2; pshared++)
		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
			sem_t f, g;
			int v;

			memset(&f, 0x5a, sizeof(f));
			memset(&g, 0x5a, sizeof(g));
			ck_assert_int_eq(f_init(&f, pshared, values[i]), 0);
			ck_assert_int_eq(g_init(&g, pshared, values[i]), 0);
			same_bytes(pshared ? "pshared sem" : "sem", &f, &g, sizeof(f));
			if (values[i] == SEM_VALUE_MAX)
				continue;
			/* glibc posts, fthr reads; fthr posts, glibc reads */
			ck_assert_int_eq(g_post(&g), 0);
			ck_assert_int_eq(sem_getvalue(&g, &v), 0);
			ck_assert_uint_eq((unsigned)v, values[i] + 1);
			ck_assert_int_eq(sem_post(&f), 0);
			ck_assert_int_eq(g_getvalue(&f, &v), 0);
			ck_assert_uint_eq((unsigned)v, values[i] + 1);
			same_bytes("posted sem", &f, &g, sizeof(f));
			ck_assert_int_eq(sem_trywait(&g), 0);
			ck_assert_int_eq(g_getvalue(&g, &v), 0);
			ck_assert_uint_eq((unsigned)v, values[i]);
		}
}
END_TEST

/* The timed calls of a program built with 64-bit time (tests/t_abi_time64.c):
 * fthr's on every arch, deadlines kept. */
const char *abi_time64_check(void);

START_TEST(time64_calls)
{
	const char *why = abi_time64_check();

	ck_assert_msg(why == NULL, "%s", why ? why : "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = harness_tcase(s, "abi", 10);

	tcase_add_test(tc, fthr_defines_what_it_implements);
	tcase_add_test(tc, lifecycle_stays_the_hosts);
	tcase_add_test(tc, version_string);
	tcase_add_test(tc, layout_is_glibcs);
	tcase_add_test(tc, mutex_init_bytes_are_glibcs);
	tcase_add_test(tc, rwlock_cond_spin_init_bytes_are_glibcs);
	tcase_add_test(tc, sem_bytes_are_glibcs);
	tcase_add_test(tc, time64_calls);
	return harness_main(s);
}
