/* tests/t_abi.c: where calls land, and glibc's ABI. */
#include "config.h"
#include <dlfcn.h>
#include <stddef.h>
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
	/* the host's underneath, wrapped (host.c) */
	"pthread_cancel",
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

START_TEST(layout_is_glibcs)
{
	pthread_mutex_t m;

	ck_assert_uint_eq(sizeof(pthread_mutex_t), __SIZEOF_PTHREAD_MUTEX_T);
	ck_assert_uint_eq(offsetof(pthread_mutex_t, __data.__kind), 16);
	ck_assert_uint_eq(sizeof(pthread_once_t), 4);
	ck_assert_uint_eq(sizeof(pthread_spinlock_t), 4);
	/* init writes every byte: all-zero but for the kind */
	memset(&m, 0xa5, sizeof(m));
	ck_assert_int_eq(pthread_mutex_init(&m, NULL), 0);
	for (size_t i = 0; i < sizeof(m); i++)
		ck_assert_int_eq(((unsigned char *)&m)[i], 0);
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
	return harness_main(s);
}
