/* tests/t_pp.c: priority-protect mutexes: the ceiling in glibc's word,
 * priority raised to the ceiling while held and restored after (nested
 * too), EINVAL above the ceiling, get/setprioceiling. Needs real-time
 * priority; where it is refused the tests say SKIPPED and return. */
#include <sched.h>
#include <stdio.h>
#include "harness.h"

static int my_prio(void)
{
	struct sched_param sp;

	sched_getparam(0, &sp);
	return sp.sched_priority;
}

static int go_fifo(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
		fprintf(stderr, "t_pp: SKIPPED, no real-time priority here "
				"(sched_setscheduler(SCHED_FIFO) refused)\n");
		return 0;
	}
	return 1;
}

static void init_pp(pthread_mutex_t *m, int type, int ceiling)
{
	pthread_mutexattr_t a;
	int v;

	ck_assert_int_eq(pthread_mutexattr_init(&a), 0);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, type), 0);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT), 0);
	ck_assert_int_eq(pthread_mutexattr_setprioceiling(&a, ceiling), 0);
	ck_assert_int_eq(pthread_mutexattr_getprioceiling(&a, &v), 0);
	ck_assert_int_eq(v, ceiling);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
}

START_TEST(layout_and_ceiling_calls)
{
	pthread_mutex_t m, plain = PTHREAD_MUTEX_INITIALIZER;
	int c, old = -1;

	init_pp(&m, PTHREAD_MUTEX_NORMAL, 20);
	ck_assert_int_eq(m.__data.__lock, 20 << 19); /* glibc's word */
	ck_assert_int_eq(m.__data.__kind & 64, 64);
	ck_assert_int_eq(pthread_mutex_getprioceiling(&m, &c), 0);
	ck_assert_int_eq(c, 20);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&m, 25, &old), 0);
	ck_assert_int_eq(old, 20);
	ck_assert_int_eq(pthread_mutex_getprioceiling(&m, &c), 0);
	ck_assert_int_eq(c, 25);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&m, 1000, &old), EINVAL);
	ck_assert_int_eq(pthread_mutex_getprioceiling(&plain, &c), EINVAL);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&plain, 10, &old), EINVAL);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

START_TEST(raised_while_held_restored_after)
{
	pthread_mutex_t a, b;

	if (!go_fifo(10))
		return;
	init_pp(&a, PTHREAD_MUTEX_NORMAL, 20);
	init_pp(&b, PTHREAD_MUTEX_RECURSIVE, 30);
	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(my_prio(), 20);
	ck_assert_int_eq(pthread_mutex_lock(&b), 0);
	ck_assert_int_eq(my_prio(), 30);
	ck_assert_int_eq(pthread_mutex_lock(&b), 0); /* recursive */
	ck_assert_int_eq(pthread_mutex_unlock(&b), 0);
	ck_assert_int_eq(my_prio(), 30);
	ck_assert_int_eq(pthread_mutex_unlock(&b), 0);
	ck_assert_int_eq(my_prio(), 20);
	ck_assert_int_eq(pthread_mutex_trylock(&a), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 10);
	ck_assert_int_eq(pthread_mutex_trylock(&a), 0);
	ck_assert_int_eq(my_prio(), 20);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 10);
}
END_TEST

/* The owner changes the ceiling of a mutex it holds: its priority follows
 * the new ceiling, and the unlock releases that one (a second mutex at the
 * new ceiling still works, and the priority comes back). */
START_TEST(owner_changes_ceiling)
{
	pthread_mutex_t a, b;
	int old;

	if (!go_fifo(10))
		return;
	init_pp(&a, PTHREAD_MUTEX_NORMAL, 20);
	init_pp(&b, PTHREAD_MUTEX_NORMAL, 25);
	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(my_prio(), 20);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&a, 25, &old), 0);
	ck_assert_int_eq(old, 20);
	ck_assert_int_eq(my_prio(), 25);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 10);
	ck_assert_int_eq(pthread_mutex_lock(&b), 0);
	ck_assert_int_eq(my_prio(), 25);
	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&a, 15, &old), 0);
	ck_assert_int_eq(my_prio(), 25); /* b still holds it up */
	ck_assert_int_eq(pthread_mutex_unlock(&b), 0);
	ck_assert_int_eq(my_prio(), 15);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 10);
	ck_assert_int_eq(pthread_mutex_destroy(&a), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&b), 0);
}
END_TEST

START_TEST(above_the_ceiling_is_einval)
{
	pthread_mutex_t m;
	int c;

	if (harness_skip_under_tsan("above_the_ceiling_is_einval",
				    "TSan reports a lock's EINVAL as the use of an invalid mutex, on glibc too"))
		return;
	if (!go_fifo(30))
		return;
	init_pp(&m, PTHREAD_MUTEX_ERRORCHECK, 20);
	ck_assert_int_eq(pthread_mutex_lock(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EINVAL);
	ck_assert_int_eq(my_prio(), 30);
	ck_assert_int_eq(pthread_mutex_setprioceiling(&m, 40, &c), 0);
	ck_assert_int_eq(c, 20);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(my_prio(), 40);
	ck_assert_int_eq(pthread_mutex_lock(&m), EDEADLK);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EDEADLK); /* glibc's, not EBUSY */
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(my_prio(), 30);
}
END_TEST

/* The thread's own policy and priority, as pthread_getschedparam reports
 * them (the raise to the ceilings held is no part of them, in glibc). */
static int own_prio(pthread_t t)
{
	struct sched_param sp = { .sched_priority = -1 };
	int policy = -1;

	ck_assert_int_eq(pthread_getschedparam(t, &policy, &sp), 0);
	ck_assert_int_eq(policy, SCHED_FIFO);
	return sp.sched_priority;
}

/* Another thread asks about, or changes, the holder's own priority. */
static pthread_t holder;
static void *other_reads(void *arg)
{
	(void)arg;
	return (void *)(long)own_prio(holder);
}

static void *other_sets(void *arg)
{
	struct sched_param sp = { .sched_priority = (int)(long)arg };

	return (void *)(long)pthread_setschedparam(holder, SCHED_FIFO, &sp);
}

static long in_thread_arg(void *(*fn)(void *), long arg)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fn, (void *)arg), 0);
	return (long)harness_join(t, 10);
}

/* glibc's nptl/tst-mutexpp10, and more: the kernel's priority is the
 * highest of the thread's own and the ceilings it holds (nested, lock and
 * trylock); pthread_getschedparam reports the thread's own, from any
 * thread; pthread_setschedparam and pthread_setschedprio while a ceiling
 * is held set the thread's own without lowering it below the ceiling, and
 * the unlock goes back to that own priority; a lock of a ceiling below it
 * is then EINVAL. No thread spins at a real-time priority: every call is
 * short, and the thread ends at SCHED_OTHER. */
START_TEST(own_priority_apart_from_the_raise)
{
	pthread_mutex_t a, b, c;
	struct sched_param sp = { .sched_priority = 0 };

	if (harness_skip_under_tsan("own_priority_apart_from_the_raise",
				    "TSan reports a lock's EINVAL as the use of an invalid mutex, on glibc too"))
		return;
	if (!go_fifo(4))
		return;
	holder = pthread_self();
	init_pp(&a, PTHREAD_MUTEX_NORMAL, 6);
	init_pp(&b, PTHREAD_MUTEX_RECURSIVE, 8);
	init_pp(&c, PTHREAD_MUTEX_ERRORCHECK, 5);
	ck_assert_int_eq(own_prio(holder), 4);
	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(my_prio(), 6);
	ck_assert_int_eq(own_prio(holder), 4);
	ck_assert_int_eq(pthread_mutex_trylock(&b), 0);
	ck_assert_int_eq(my_prio(), 8);
	ck_assert_int_eq(pthread_mutex_lock(&c), 0);
	ck_assert_int_eq(my_prio(), 8); /* the highest held */
	ck_assert_int_eq(own_prio(holder), 4);
	ck_assert_int_eq(in_thread_arg(other_reads, 0), 4);
	ck_assert_int_eq(pthread_mutex_unlock(&b), 0);
	ck_assert_int_eq(my_prio(), 6);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 5);
	ck_assert_int_eq(pthread_mutex_unlock(&c), 0);
	ck_assert_int_eq(my_prio(), 4);
	ck_assert_int_eq(own_prio(holder), 4);

	/* own priority changed while a ceiling is held */
	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(my_prio(), 6);
	sp.sched_priority = 5;
	ck_assert_int_eq(pthread_setschedparam(holder, SCHED_FIFO, &sp), 0);
	ck_assert_int_eq(own_prio(holder), 5);
	ck_assert_int_eq(my_prio(), 6); /* not below the ceiling */
	ck_assert_int_eq(in_thread_arg(other_sets, 3), 0);
	ck_assert_int_eq(own_prio(holder), 3);
	ck_assert_int_eq(my_prio(), 6);
	ck_assert_int_eq(pthread_setschedprio(holder, 7), 0);
	ck_assert_int_eq(own_prio(holder), 7);
	ck_assert_int_eq(my_prio(), 7); /* above the ceiling: its own */
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(my_prio(), 7);
	ck_assert_int_eq(own_prio(holder), 7);
	ck_assert_int_eq(pthread_mutex_lock(&c), EINVAL); /* 5 < 7 */
	ck_assert_int_eq(pthread_mutex_trylock(&c), EINVAL);
	ck_assert_int_eq(my_prio(), 7);

	/* and lowered while held: back to it after the unlock */
	ck_assert_int_eq(pthread_mutex_lock(&b), 0);
	ck_assert_int_eq(my_prio(), 8);
	sp.sched_priority = 2;
	ck_assert_int_eq(pthread_setschedparam(holder, SCHED_RR, &sp), 0);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_RR);
	ck_assert_int_eq(my_prio(), 8);
	ck_assert_int_eq(pthread_mutex_unlock(&b), 0);
	ck_assert_int_eq(my_prio(), 2);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_RR);
	ck_assert_int_eq(pthread_mutex_lock(&c), 0); /* 5 >= 2 */
	ck_assert_int_eq(my_prio(), 5);
	ck_assert_int_eq(pthread_mutex_unlock(&c), 0);
	ck_assert_int_eq(my_prio(), 2);

	sp.sched_priority = 0;
	ck_assert_int_eq(pthread_setschedparam(holder, SCHED_OTHER, &sp), 0);
	ck_assert_int_eq(sched_getscheduler(0), SCHED_OTHER);
	ck_assert_int_eq(pthread_mutex_destroy(&a), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&b), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&c), 0);
}
END_TEST

/* An unlock by a thread that does not hold the mutex (POSIX: undefined for
 * the normal type, EPERM for the others): as glibc, a normal one is
 * released, unlocked or not; __nusers counts it, so destroy then fails
 * with EBUSY as glibc's does. */
static pthread_mutex_t um;
static void *unlock_um(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_unlock(&um);
}

static long in_thread(void *(*fn)(void *))
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fn, NULL), 0);
	return (long)harness_join(t, 10);
}

START_TEST(unlock_not_held)
{
	static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ADAPTIVE_NP,
				     PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK };
	int type = types[_i], normal = _i < 2, want = normal ? 0 : EPERM;

	init_pp(&um, type, 20);
	ck_assert_int_eq(in_thread(unlock_um), want); /* unlocked */
	ck_assert_int_eq(um.__data.__lock, 20 << 19);
	ck_assert_int_eq(pthread_mutex_destroy(&um), normal ? EBUSY : 0);
	if (!go_fifo(10))
		return;
	init_pp(&um, type, 20);
	ck_assert_int_eq(pthread_mutex_lock(&um), 0);
	ck_assert_int_eq(my_prio(), 20);
	ck_assert_int_eq(in_thread(unlock_um), want); /* held by us */
	ck_assert_int_eq(um.__data.__lock, normal ? 20 << 19 : (20 << 19) | 1);
	if (normal) { /* released; our priority stays raised, as glibc's */
		ck_assert_int_eq(my_prio(), 20);
		ck_assert_int_eq(pthread_mutex_destroy(&um), 0);
	} else {
		ck_assert_int_eq(pthread_mutex_unlock(&um), 0);
		ck_assert_int_eq(my_prio(), 10);
		ck_assert_int_eq(pthread_mutex_destroy(&um), 0);
	}
}
END_TEST

static pthread_mutex_t cm;
static long counter;
static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		if (pthread_mutex_lock(&cm) != 0)
			return (void *)1;
		counter++;
		if (pthread_mutex_unlock(&cm) != 0)
			return (void *)2;
	}
	return NULL;
}

START_TEST(counted_exclusion)
{
	pthread_t t[3];
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = 5 };
	int i;

	if (!go_fifo(5))
		return;
	init_pp(&cm, PTHREAD_MUTEX_NORMAL, 10);
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&t[i], &a, hammer, NULL), 0);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_null(harness_join(t[i], 30));
	ck_assert_int_eq(counter, 60000);
	ck_assert_int_eq(cm.__data.__lock, 10 << 19);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pp");
	TCase *tc = harness_tcase(s, "pp", 30);

	tcase_add_test(tc, layout_and_ceiling_calls);
	tcase_add_test(tc, raised_while_held_restored_after);
	tcase_add_test(tc, owner_changes_ceiling);
	tcase_add_test(tc, above_the_ceiling_is_einval);
	tcase_add_test(tc, own_priority_apart_from_the_raise);
	tcase_add_loop_test(tc, unlock_not_held, 0, 4);
	tcase_add_test(tc, counted_exclusion);
	return harness_main(s);
}
