/* tests/t_mutexattr.c: pthread_mutexattr_*, values and errors. */
#include <dlfcn.h>
#include <sched.h>
#include "harness.h"

/* glibc exports these as compatibility versions only, and its header
 * hides or redirects them: call the versioned symbols, as an old binary
 * would. */
typedef int (*set_fn)(pthread_mutexattr_t *, int);
typedef int (*get_fn)(const pthread_mutexattr_t *, int *);
#define SYM(type, name, ver) ((type)dlvsym(RTLD_DEFAULT, #name, ver))
#define pthread_mutexattr_setkind_np SYM(set_fn, pthread_mutexattr_setkind_np, HARNESS_V_BASE)
#define pthread_mutexattr_getkind_np SYM(get_fn, pthread_mutexattr_getkind_np, HARNESS_V_BASE)
#undef pthread_mutexattr_setrobust_np
#undef pthread_mutexattr_getrobust_np
#define pthread_mutexattr_setrobust_np                                         \
	SYM(set_fn, pthread_mutexattr_setrobust_np, HARNESS_V_ROBUST)
#define pthread_mutexattr_getrobust_np                                         \
	SYM(get_fn, pthread_mutexattr_getrobust_np, HARNESS_V_ROBUST)

START_TEST(defaults)
{
	pthread_mutexattr_t a;
	int v;

	ck_assert_int_eq(pthread_mutexattr_init(&a), 0);
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_DEFAULT);
	ck_assert_int_eq(pthread_mutexattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutexattr_getprotocol(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PRIO_NONE);
	ck_assert_int_eq(pthread_mutexattr_getrobust(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_STALLED);
	ck_assert_int_eq(pthread_mutexattr_getprioceiling(&a, &v), 0);
	ck_assert_int_eq(v, sched_get_priority_min(SCHED_FIFO));
	ck_assert_int_eq(pthread_mutexattr_destroy(&a), 0);
}
END_TEST

START_TEST(type_values)
{
	pthread_mutexattr_t a;
	int t, v;

	pthread_mutexattr_init(&a);
	for (t = PTHREAD_MUTEX_NORMAL; t <= PTHREAD_MUTEX_ADAPTIVE_NP; t++) {
		ck_assert_int_eq(pthread_mutexattr_settype(&a, t), 0);
		ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
		ck_assert_int_eq(v, t);
		ck_assert_int_eq(pthread_mutexattr_getkind_np(&a, &v), 0);
		ck_assert_int_eq(v, t);
	}
	ck_assert_int_eq(pthread_mutexattr_setkind_np(&a, PTHREAD_MUTEX_RECURSIVE_NP), 0);
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_RECURSIVE);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, -1), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, 4), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_setkind_np(&a, 99), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_RECURSIVE); /* unchanged by the errors */
}
END_TEST

START_TEST(flags_are_independent)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	int v;

	pthread_mutexattr_init(&a);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK), 0);
	ck_assert_int_eq(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	ck_assert_int_eq(pthread_mutexattr_setpshared(&a, 7), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_SHARED);
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_ERRORCHECK);

	/* glibc's __kind for an errorcheck pshared mutex: 2 | 128 */
	ck_assert_int_eq(pthread_mutex_init(&m, &a), 0);
	ck_assert_int_eq(m.__data.__kind, PTHREAD_MUTEX_ERRORCHECK | 128);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);

	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT), 0);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, 3), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_getprotocol(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PRIO_PROTECT);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
	ck_assert_int_eq(pthread_mutexattr_getprotocol(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PRIO_INHERIT);

	ck_assert_int_eq(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	ck_assert_int_eq(pthread_mutexattr_setrobust(&a, 2), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_getrobust_np(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_ROBUST);
	ck_assert_int_eq(pthread_mutexattr_setrobust_np(&a, PTHREAD_MUTEX_STALLED), 0);
	ck_assert_int_eq(pthread_mutexattr_getrobust(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_STALLED);

	/* every other field survived */
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_ERRORCHECK);
	ck_assert_int_eq(pthread_mutexattr_getpshared(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PROCESS_SHARED);
}
END_TEST

START_TEST(prioceiling_range)
{
	pthread_mutexattr_t a;
	int lo = sched_get_priority_min(SCHED_FIFO);
	int hi = sched_get_priority_max(SCHED_FIFO);
	int v;

	pthread_mutexattr_init(&a);
	ck_assert_int_eq(pthread_mutexattr_setprioceiling(&a, hi), 0);
	ck_assert_int_eq(pthread_mutexattr_getprioceiling(&a, &v), 0);
	ck_assert_int_eq(v, hi);
	ck_assert_int_eq(pthread_mutexattr_setprioceiling(&a, lo + 1), 0);
	ck_assert_int_eq(pthread_mutexattr_getprioceiling(&a, &v), 0);
	ck_assert_int_eq(v, lo + 1);
	ck_assert_int_eq(pthread_mutexattr_setprioceiling(&a, hi + 1), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_setprioceiling(&a, lo - 1), EINVAL);
	ck_assert_int_eq(pthread_mutexattr_getprioceiling(&a, &v), 0);
	ck_assert_int_eq(v, lo + 1);
	ck_assert_int_eq(pthread_mutexattr_gettype(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_MUTEX_DEFAULT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mutexattr");
	TCase *tc = harness_tcase(s, "attr", 10);

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, type_values);
	tcase_add_test(tc, flags_are_independent);
	tcase_add_test(tc, prioceiling_range);
	return harness_main(s);
}
