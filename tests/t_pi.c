/* tests/t_pi.c: priority-inheritance mutexes: results per type, timeouts,
 * counted exclusion, robust PI, condition waits with a PI mutex, and the
 * point of it all: a low-priority owner is boosted while a SCHED_FIFO
 * waiter blocks (skipped, saying so, where real-time priority is refused). */
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <unistd.h>
#include "harness.h"

static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
			     PTHREAD_MUTEX_ERRORCHECK };

static void init_pi(pthread_mutex_t *m, int type, int pshared, int robust)
{
	pthread_mutexattr_t a;
	int v;

	ck_assert_int_eq(pthread_mutexattr_init(&a), 0);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, type), 0);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT), 0);
	ck_assert_int_eq(pthread_mutexattr_getprotocol(&a, &v), 0);
	ck_assert_int_eq(v, PTHREAD_PRIO_INHERIT);
	ck_assert_int_eq(pthread_mutexattr_setpshared(&a, pshared), 0);
	ck_assert_int_eq(pthread_mutexattr_setrobust(&a, robust), 0);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
}

static pthread_mutex_t pm;
static void *other_trylock(void *a) { (void)a; return (void *)(long)pthread_mutex_trylock(&pm); }
static void *other_unlock(void *a) { (void)a; return (void *)(long)pthread_mutex_unlock(&pm); }
static void *other_timed(void *a)
{
	clockid_t c = (clockid_t)(long)a;
	struct timespec dl = harness_deadline(c, 100);
	int r = c == CLOCK_REALTIME ? pthread_mutex_timedlock(&pm, &dl)
				    : pthread_mutex_clocklock(&pm, c, &dl);

	if (harness_now_ns(c) < (int64_t)dl.tv_sec * 1000000000 + dl.tv_nsec)
		return (void *)-1L; /* returned before its deadline */
	return (void *)(long)r;
}
/* a deadline with a negative tv_sec: glibc's PI mutexes pass on the
 * kernel's EINVAL (tests/difftest.c compared it) */
static void *other_negative(void *a)
{
	struct timespec neg = { -5, 0 };

	(void)a;
	return (void *)(long)pthread_mutex_clocklock(&pm, CLOCK_MONOTONIC, &neg);
}
static long in_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, fn, arg), 0);
	return (long)harness_join(t, 10);
}

START_TEST(results_per_type)
{
	int type = types[_i];
	struct timespec bad = { 0, 1000000000 };

	if (harness_skip_without_pi_futex("results_per_type"))
		return;
	init_pi(&pm, type, PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_STALLED);
	ck_assert_int_eq(pthread_mutex_lock(&pm), 0);
	ck_assert_int_eq(pm.__data.__lock, (int)syscall(SYS_gettid)); /* the tid is the word */
	ck_assert_int_eq(in_thread(other_trylock, NULL), EBUSY);
	ck_assert_int_eq(in_thread(other_unlock, NULL), EPERM);
	ck_assert_int_eq(in_thread(other_timed, (void *)(long)CLOCK_REALTIME), ETIMEDOUT);
	ck_assert_int_eq(in_thread(other_timed, (void *)(long)CLOCK_MONOTONIC), ETIMEDOUT);
	ck_assert_int_eq(in_thread(other_negative, NULL), EINVAL);
	if (type == PTHREAD_MUTEX_RECURSIVE) {
		ck_assert_int_eq(pthread_mutex_lock(&pm), 0);
		ck_assert_int_eq(pthread_mutex_trylock(&pm), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&pm), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&pm), 0);
	} else if (type == PTHREAD_MUTEX_ERRORCHECK) {
		ck_assert_int_eq(pthread_mutex_lock(&pm), EDEADLK);
		ck_assert_int_eq(pthread_mutex_timedlock(&pm, &bad), EDEADLK);
	} else {
		ck_assert_int_eq(pthread_mutex_trylock(&pm), EBUSY);
		ck_assert_int_eq(pthread_mutex_timedlock(&pm, &(struct timespec){ 1, 0 }), ETIMEDOUT);
		ck_assert_int_eq(pthread_mutex_timedlock(&pm, &(struct timespec){ -5, 0 }), EINVAL);
	}
	ck_assert_int_eq(pthread_mutex_unlock(&pm), 0);
	ck_assert_int_eq(pm.__data.__lock, 0);
	ck_assert_int_eq(pthread_mutex_unlock(&pm), EPERM);
	ck_assert_int_eq(pthread_mutex_destroy(&pm), 0);
}
END_TEST

/* A PI mutex that is not robust, its owner gone: the kernel answers ESRCH
 * to a waiter; glibc (and fthr) wait out the deadline: ETIMEDOUT. */
static void *lock_and_exit(void *a) { (void)a; return (void *)(long)pthread_mutex_lock(&pm); }
START_TEST(dead_owner_not_robust_times_out)
{
	struct timespec past = { 1, 0 };
	struct timespec dl;
	int64_t t0;

	if (harness_skip_without_pi_futex("dead_owner_not_robust_times_out"))
		return;
	init_pi(&pm, types[_i], PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_STALLED);
	ck_assert_int_eq(in_thread(lock_and_exit, NULL), 0);
	/* a waiter that sleeps in the kernel while the owner's task exits is
	 * handed the lock by the kernel's exit (glibc's too): the owner must
	 * be gone before we wait */
	harness_wait_tid_gone(pm.__data.__lock & FUTEX_TID_MASK, 10);
	ck_assert_int_eq(pthread_mutex_trylock(&pm), EBUSY);
	ck_assert_int_eq(pthread_mutex_timedlock(&pm, &past), ETIMEDOUT);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	dl = harness_deadline(CLOCK_MONOTONIC, 50);
	ck_assert_int_eq(pthread_mutex_clocklock(&pm, CLOCK_MONOTONIC, &dl), ETIMEDOUT);
	ck_assert_int_ge(harness_now_ns(CLOCK_MONOTONIC) - t0, 40 * 1000000LL);
}
END_TEST

static long counter;
static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50000; i++) {
		if (pthread_mutex_lock(&pm) != 0)
			return (void *)1;
		long c = counter;
		if ((i & 511) == 0)
			sched_yield();
		counter = c + 1;
		if (pthread_mutex_unlock(&pm) != 0)
			return (void *)2;
	}
	return NULL;
}

START_TEST(counted_exclusion)
{
	pthread_t t[4];
	int i;

	if (harness_skip_without_pi_futex("counted_exclusion"))
		return;
	init_pi(&pm, types[_i], PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_STALLED);
	counter = 0;
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (i = 0; i < 4; i++)
		ck_assert_ptr_null(harness_join(t[i], 60));
	ck_assert_int_eq(counter, 200000);
	ck_assert_int_eq(pm.__data.__lock, 0);
}
END_TEST


START_TEST(robust_pi_owner_death)
{
	pthread_t t;

	if (harness_skip_without_pi_futex("robust_pi_owner_death"))
		return;
	if (harness_skip_without_robust_list("robust_pi_owner_death"))
		return;
	init_pi(&pm, types[_i], PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_ROBUST);
	pthread_create(&t, NULL, lock_and_exit, NULL);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(pthread_mutex_lock(&pm), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&pm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&pm), 0);
	pthread_create(&t, NULL, lock_and_exit, NULL);
	harness_join(t, 10);
	ck_assert_int_eq(pthread_mutex_trylock(&pm), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_unlock(&pm), 0); /* not made consistent */
	ck_assert_int_eq(pthread_mutex_lock(&pm), ENOTRECOVERABLE);
}
END_TEST

/* ---- condition waits with a PI mutex ---- */
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int items, consumed, done;
static void *consumer(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pm);
	for (;;) {
		while (items == 0 && !done)
			if (pthread_cond_wait(&cv, &pm) != 0)
				return (void *)1;
		if (items == 0)
			break;
		items--;
		consumed++;
	}
	pthread_mutex_unlock(&pm);
	return NULL;
}

START_TEST(cond_with_pi_mutex)
{
	pthread_t t[3];
	int i;

	if (harness_skip_without_pi_futex("cond_with_pi_mutex"))
		return;
	init_pi(&pm, types[_i], PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_STALLED);
	items = consumed = done = 0;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	for (i = 0; i < 10000; i++) {
		ck_assert_int_eq(pthread_mutex_lock(&pm), 0);
		items++;
		pthread_cond_signal(&cv);
		ck_assert_int_eq(pthread_mutex_unlock(&pm), 0);
	}
	pthread_mutex_lock(&pm);
	done = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&pm);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_null(harness_join(t[i], 30));
	ck_assert_int_eq(consumed, 10000);
	ck_assert_int_eq(pm.__data.__lock, 0);
}
END_TEST

/* ---- pshared across fork ---- */
START_TEST(pshared_across_fork)
{
	struct { pthread_mutex_t m; long n; } *s =
		mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status, i;
	pid_t pid;

	if (harness_skip_without_pi_futex("pshared_across_fork"))
		return;
	ck_assert_ptr_ne(s, MAP_FAILED);
	init_pi(&s->m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_SHARED, PTHREAD_MUTEX_STALLED);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	for (i = 0; i < 50000; i++) {
		if (pthread_mutex_lock(&s->m) != 0)
			_exit(3);
		s->n++;
		pthread_mutex_unlock(&s->m);
	}
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(s->n, 100000);
}
END_TEST

/* ---- priority inheritance: everything on one cpu. L (prio 10) holds the
 * mutex; M (prio 20) spins for SPIN_MS; H (prio 30) blocks on the mutex.
 * Without inheritance M starves L, and H waits until M stops; with it, L
 * runs at 30, unlocks, and H has the mutex at once. ---- */
enum { SPIN_MS = 600 };
static int l_locked, stop_spin; /* (atomic: polled by other threads) */
static int64_t h_waited_ms;
static cpu_set_t one_cpu;

static void *low(void *a)
{
	(void)a;
	pthread_mutex_lock(&pm);
	__atomic_store_n(&l_locked, 1, __ATOMIC_RELAXED);
	/* 50 ms of cpu work while holding: it only gets the cpu if boosted */
	while (harness_now_ns(CLOCK_THREAD_CPUTIME_ID) < 50000000LL)
		;
	pthread_mutex_unlock(&pm);
	return NULL;
}

static void *medium(void *a)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + SPIN_MS * 1000000LL;

	(void)a;
	while (harness_now_ns(CLOCK_MONOTONIC) < end && !__atomic_load_n(&stop_spin, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *high(void *a)
{
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);

	(void)a;
	if (pthread_mutex_lock(&pm) != 0)
		return (void *)1;
	h_waited_ms = (harness_now_ns(CLOCK_MONOTONIC) - t0) / 1000000;
	__atomic_store_n(&stop_spin, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pm);
	return NULL;
}

static int start_rt(pthread_t *t, void *(*fn)(void *), int prio)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = prio };
	int r;

	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &sp);
	pthread_attr_setaffinity_np(&a, sizeof(one_cpu), &one_cpu);
	r = pthread_create(t, &a, fn, NULL);
	pthread_attr_destroy(&a);
	return r;
}

START_TEST(owner_is_boosted)
{
	struct sched_param sp = { .sched_priority = 40 };
	pthread_t l, m, h;

	if (harness_skip_without_pi_futex("owner_is_boosted"))
		return;
	CPU_ZERO(&one_cpu);
	CPU_SET(0, &one_cpu);
	ck_assert_int_eq(pthread_setaffinity_np(pthread_self(), sizeof(one_cpu), &one_cpu), 0);
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
		fprintf(stderr, "owner_is_boosted: SKIPPED, no real-time priority here "
				"(sched_setscheduler(SCHED_FIFO) refused)\n");
		return;
	}
	/* _i == 1 is the control: a mutex without inheritance must starve H */
	if (_i == 0)
		init_pi(&pm, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE, PTHREAD_MUTEX_STALLED);
	else
		pthread_mutex_init(&pm, NULL);
	__atomic_store_n(&l_locked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&stop_spin, 0, __ATOMIC_RELAXED);
	ck_assert_int_eq(start_rt(&l, low, 10), 0);
	while (!__atomic_load_n(&l_locked, __ATOMIC_RELAXED))
		usleep(1000);
	ck_assert_int_eq(start_rt(&m, medium, 20), 0);
	ck_assert_int_eq(start_rt(&h, high, 30), 0);
	/* we outrank them all: sleep so they run */
	ck_assert_ptr_null(harness_join(h, 10));
	harness_join(m, 10);
	harness_join(l, 10);
	if (_i == 0)
		ck_assert_msg(h_waited_ms < SPIN_MS / 2,
			      "the high-priority waiter waited %lld ms: the owner was not boosted",
			      (long long)h_waited_ms);
	else
		ck_assert_msg(h_waited_ms >= SPIN_MS / 2,
			      "control: without inheritance H waited only %lld ms",
			      (long long)h_waited_ms);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pi");
	TCase *tc;

	tc = harness_tcase(s, "basic", 30);
	tcase_add_loop_test(tc, results_per_type, 0, 3);
	tcase_add_loop_test(tc, counted_exclusion, 0, 3);
	tcase_add_loop_test(tc, dead_owner_not_robust_times_out, 0, 3);
	tcase_add_loop_test(tc, robust_pi_owner_death, 0, 3);
	tcase_add_loop_test(tc, cond_with_pi_mutex, 0, 3);
	tcase_add_test(tc, pshared_across_fork);
	tc = harness_tcase(s, "boost", 20);
	tcase_add_loop_test(tc, owner_is_boosted, 0, 2);
	return harness_main(s);
}
