/* tests/t_mutex.c: pthread mutexes, every type, with the system headers. */
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "private.h"

static int gettid_(void) { return (int)syscall(SYS_gettid); }

static void init_type(pthread_mutex_t *m, int type, int pshared)
{
	harness_mutex_init(m, type, pshared, PTHREAD_MUTEX_STALLED, PTHREAD_PRIO_NONE);
}

/* ---- static initializers: glibc's bytes, usable without init ---- */

START_TEST(static_initializers)
{
	pthread_mutex_t n = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_mutex_t a = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;

	ck_assert_int_eq(r.__data.__kind, PTHREAD_MUTEX_RECURSIVE_NP);
	ck_assert_int_eq(e.__data.__kind, PTHREAD_MUTEX_ERRORCHECK_NP);
	ck_assert_int_eq(a.__data.__kind, PTHREAD_MUTEX_ADAPTIVE_NP);

	ck_assert_int_eq(pthread_mutex_lock(&n), 0);
	ck_assert_int_eq(n.__data.__lock, 1);
	ck_assert_int_eq(n.__data.__owner, gettid_());
	ck_assert_int_eq(pthread_mutex_trylock(&n), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&n), 0);
	ck_assert_int_eq(n.__data.__lock, 0);
	ck_assert_int_eq(n.__data.__owner, 0);

	ck_assert_int_eq(pthread_mutex_lock(&r), 0);
	ck_assert_int_eq(pthread_mutex_lock(&r), 0);
	ck_assert_int_eq(r.__data.__count, 2);
	ck_assert_int_eq(pthread_mutex_unlock(&r), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&r), EPERM);

	ck_assert_int_eq(pthread_mutex_lock(&e), 0);
	ck_assert_int_eq(pthread_mutex_lock(&e), EDEADLK);
	ck_assert_int_eq(pthread_mutex_unlock(&e), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&e), EPERM);

	ck_assert_int_eq(pthread_mutex_lock(&a), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&a), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&a), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a), 0);
}
END_TEST

/* ---- mutual exclusion under contention, counted ---- */
enum { NTHREADS = 4, ITERS = 100000 };
static pthread_mutex_t cm;
static long counter;
static int use_op; /* 0 lock, 1 trylock loop, 2 timedlock, 3 clocklock */

static void *hammer(void *arg)
{
	struct timespec far = harness_deadline(CLOCK_REALTIME, 60000);
	struct timespec farm = harness_deadline(CLOCK_MONOTONIC, 60000);
	int i, op = (use_op == 4) ? (int)(intptr_t)arg % 4 : use_op;

	for (i = 0; i < ITERS; i++) {
		int r;

		switch (op) {
		case 1:
			while ((r = pthread_mutex_trylock(&cm)) == EBUSY)
				;
			break;
		case 2:
			r = pthread_mutex_timedlock(&cm, &far);
			break;
		case 3:
			r = pthread_mutex_clocklock(&cm, CLOCK_MONOTONIC, &farm);
			break;
		default:
			r = pthread_mutex_lock(&cm);
		}
		if (r != 0)
			return (void *)1;
		long c = counter;
		if ((i & 1023) == 0)
			sched_yield();
		counter = c + 1;
		if (pthread_mutex_unlock(&cm) != 0)
			return (void *)2;
	}
	return NULL;
}

static void contend(int type, int op)
{
	pthread_t t[NTHREADS];
	int i;

	init_type(&cm, type, PTHREAD_PROCESS_PRIVATE);
	counter = 0;
	use_op = op;
	for (i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, hammer,
						(void *)(intptr_t)i), 0);
	for (i = 0; i < NTHREADS; i++)
		ck_assert_ptr_null(harness_join(t[i], 50));
	ck_assert_int_eq(counter, (long)NTHREADS * ITERS);
	ck_assert_int_eq(cm.__data.__lock, 0);
	ck_assert_int_eq(cm.__data.__nusers, 0);
	ck_assert_int_eq(pthread_mutex_destroy(&cm), 0);
}

START_TEST(contention_each_type)
{
	/* _i is the loop index: type */
	contend(_i, 0);
}
END_TEST

START_TEST(contention_each_op)
{
	contend(PTHREAD_MUTEX_NORMAL, _i);
	contend(PTHREAD_MUTEX_ADAPTIVE_NP, _i);
}
END_TEST

/* ---- recursive ---- */
static pthread_mutex_t xm;
static void *try_unlock_other(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_unlock(&xm);
}
static void *try_trylock_other(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_trylock(&xm);
}

START_TEST(recursive_counts_and_owner)
{
	pthread_t t;
	int i;

	init_type(&xm, PTHREAD_MUTEX_RECURSIVE, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(pthread_mutex_lock(&xm), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&xm), 0);
	ck_assert_uint_eq(xm.__data.__count, 11);
	ck_assert_int_eq(xm.__data.__owner, gettid_());

	pthread_create(&t, NULL, try_unlock_other, NULL);
	ck_assert_int_eq((long)harness_join(t, 10), EPERM);
	pthread_create(&t, NULL, try_trylock_other, NULL);
	ck_assert_int_eq((long)harness_join(t, 10), EBUSY);

	for (i = 0; i < 11; i++)
		ck_assert_int_eq(pthread_mutex_unlock(&xm), 0);
	ck_assert_int_eq(xm.__data.__lock, 0);
	ck_assert_int_eq(pthread_mutex_unlock(&xm), EPERM);

	/* Overflow of the recursion count: EAGAIN, state unchanged. */
	ck_assert_int_eq(pthread_mutex_lock(&xm), 0);
	xm.__data.__count = UINT_MAX;
	ck_assert_int_eq(pthread_mutex_lock(&xm), EAGAIN);
	ck_assert_int_eq(pthread_mutex_trylock(&xm), EAGAIN);
	ck_assert_uint_eq(xm.__data.__count, UINT_MAX);
	xm.__data.__count = 1;
	ck_assert_int_eq(pthread_mutex_unlock(&xm), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&xm), 0);
}
END_TEST

/* ---- errorcheck ---- */
START_TEST(errorcheck_errors)
{
	pthread_t t;
	struct timespec dl = harness_deadline(CLOCK_REALTIME, 10);

	init_type(&xm, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_unlock(&xm), EPERM);
	ck_assert_int_eq(pthread_mutex_lock(&xm), 0);
	ck_assert_int_eq(pthread_mutex_lock(&xm), EDEADLK);
	ck_assert_int_eq(pthread_mutex_timedlock(&xm, &dl), EDEADLK);
	ck_assert_int_eq(pthread_mutex_trylock(&xm), EBUSY);
	pthread_create(&t, NULL, try_unlock_other, NULL);
	ck_assert_int_eq((long)harness_join(t, 10), EPERM);
	ck_assert_int_eq(pthread_mutex_unlock(&xm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&xm), EPERM);
	ck_assert_int_eq(pthread_mutex_destroy(&xm), 0);
}
END_TEST

/* ---- timeouts, measured on the clock they name ---- */
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t go = PTHREAD_MUTEX_INITIALIZER;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	pthread_mutex_lock(&go); /* released by the test when it is done */
	pthread_mutex_unlock(&go);
	pthread_mutex_unlock(&held);
	return NULL;
}

static pthread_t start_holder(void)
{
	pthread_t t;

	pthread_mutex_lock(&go);
	ck_assert_int_eq(pthread_create(&t, NULL, holder, NULL), 0);
	while (pthread_mutex_trylock(&held) == 0) {
		pthread_mutex_unlock(&held);
		sched_yield();
	}
	return t;
}

static void stop_holder(pthread_t t)
{
	pthread_mutex_unlock(&go);
	harness_join(t, 10);
}

START_TEST(timeouts_on_their_clock)
{
	pthread_t t = start_holder();
	clockid_t clocks[2] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	int i;

	for (i = 0; i < 2; i++) {
		clockid_t c = clocks[i];
		struct timespec dl = harness_deadline(c, 100);
		int64_t t0 = harness_now_ns(c), el;
		int r = (c == CLOCK_REALTIME && _i == 0)
				? pthread_mutex_timedlock(&held, &dl)
				: pthread_mutex_clocklock(&held, c, &dl);

		el = harness_now_ns(c) - t0;
		ck_assert_int_eq(r, ETIMEDOUT);
		ck_assert_msg(harness_now_ns(c) >= (int64_t)dl.tv_sec * 1000000000 + dl.tv_nsec,
			      "returned before the deadline on its clock");
		ck_assert_msg(el < 5000000000LL, "took %lld ns", (long long)el);
	}
	stop_holder(t);
}
END_TEST

START_TEST(timeout_past_deadline_at_once)
{
	pthread_t t = start_holder();
	struct timespec past = harness_deadline(CLOCK_REALTIME, -1000);
	struct timespec epoch = { 0, 0 }, negative = { -5, 0 };
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);

	ck_assert_int_eq(pthread_mutex_timedlock(&held, &past), ETIMEDOUT);
	ck_assert_int_eq(pthread_mutex_timedlock(&held, &epoch), ETIMEDOUT);
	ck_assert_int_eq(pthread_mutex_timedlock(&held, &negative), ETIMEDOUT);
	ck_assert_int_eq(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &epoch), ETIMEDOUT);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < 500000000LL,
		      "a past deadline did not return at once");
	stop_holder(t);
}
END_TEST

START_TEST(timed_bad_input)
{
	pthread_t t;
	struct timespec bad1 = { 0, 1000000000 }, bad2 = { 0, -1 };
	struct timespec ok = harness_deadline(CLOCK_MONOTONIC, 1000);
	int saved;

	/* Free mutex: a timed lock that does not block ignores the deadline,
	 * but an unknown clock is always refused. */
	ck_assert_int_eq(pthread_mutex_timedlock(&held, &bad1), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&held), 0);
	ck_assert_int_eq(pthread_mutex_clocklock(&held, CLOCK_PROCESS_CPUTIME_ID, &ok), EINVAL);
	ck_assert_int_eq(pthread_mutex_clocklock(&held, 12345, &ok), EINVAL);
	ck_assert_int_eq(held.__data.__lock, 0);

	t = start_holder();
	errno = 4242;
	ck_assert_int_eq(pthread_mutex_timedlock(&held, &bad1), EINVAL);
	ck_assert_int_eq(pthread_mutex_timedlock(&held, &bad2), EINVAL);
	ck_assert_int_eq(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &bad1), EINVAL);
	ck_assert_int_eq(pthread_mutex_trylock(&held), EBUSY);
	saved = errno;
	ck_assert_int_eq(saved, 4242); /* errno untouched */
	stop_holder(t);
}
END_TEST

static void *lock_after(void *arg)
{
	struct timespec far = { 0x7fffffff, 0 };
	int r = pthread_mutex_timedlock(&held, &far);

	(void)arg;
	if (r == 0)
		r = pthread_mutex_unlock(&held);
	return (void *)(long)r;
}

START_TEST(timedlock_succeeds_when_released)
{
	pthread_t t;
	struct timespec dl = harness_deadline(CLOCK_MONOTONIC, 10000);

	ck_assert_int_eq(pthread_mutex_lock(&held), 0);
	pthread_create(&t, NULL, lock_after, NULL);
	/* wait until the waiter has marked the word "maybe sleepers" */
	while (__atomic_load_n(&held.__data.__lock, __ATOMIC_RELAXED) != 2)
		usleep(1000);
	ck_assert_int_eq(pthread_mutex_unlock(&held), 0);
	ck_assert_int_eq((long)harness_join(t, 10), 0);
	ck_assert_int_eq(held.__data.__lock, 0);
	ck_assert_int_eq(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &dl), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&held), 0);
}
END_TEST

/* ---- process-shared: a forked child in MAP_SHARED memory ---- */
struct shared_area {
	pthread_mutex_t m;
	long count;
};

START_TEST(pshared_across_fork)
{
	struct shared_area *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int type = _i, status, i, pshared;
	pid_t pid;
	pthread_mutexattr_t a;

	ck_assert_ptr_ne(s, MAP_FAILED);
	init_type(&s->m, type, PTHREAD_PROCESS_SHARED);
	ck_assert_int_eq(s->m.__data.__kind & 128, 128); /* glibc's pshared bit */
	pthread_mutexattr_init(&a);
	ck_assert_int_eq(pthread_mutexattr_getpshared(&a, &pshared), 0);
	ck_assert_int_eq(pshared, PTHREAD_PROCESS_PRIVATE);
	s->count = 0;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	for (i = 0; i < 50000; i++) {
		if (pthread_mutex_lock(&s->m) != 0)
			_exit(3);
		long c = s->count;
		if ((i & 255) == 0)
			sched_yield();
		s->count = c + 1;
		if (pthread_mutex_unlock(&s->m) != 0)
			_exit(4);
	}
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child failed: status %d", status);
	ck_assert_int_eq(s->count, 100000);
	ck_assert_int_eq(pthread_mutex_destroy(&s->m), 0);
	munmap(s, sizeof(*s));
}
END_TEST

/* ---- init / destroy ---- */
START_TEST(init_refuses_unsupported_and_bad)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;

	pthread_mutexattr_init(&a);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT), 0);
	ck_assert_int_eq(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST), 0);
	ck_assert_int_eq(pthread_mutex_init(&m, &a), ENOTSUP); /* robust PP: not yet */
	pthread_mutexattr_init(&a);
	ck_assert_int_eq(pthread_mutex_init(&m, &a), 0);
	ck_assert_int_eq(m.__data.__kind, PTHREAD_MUTEX_NORMAL);
	ck_assert_int_eq(pthread_mutex_init(&m, NULL), 0);
}
END_TEST

START_TEST(destroy_busy_then_einval)
{
	pthread_mutex_t m;
	int type = _i;

	if (harness_skip_under_tsan("destroy_busy_then_einval", "it uses a destroyed mutex, on purpose"))
		return;

	init_type(&m, type, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_trylock(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EINVAL);
	ck_assert_int_eq(pthread_mutex_init(&m, NULL), 0);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
}
END_TEST

/* ---- the futex protocol is glibc's: 0 / 1 / 2 ---- */
static void *block_on_held(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&held) != 0)
		return (void *)1;
	pthread_mutex_unlock(&held);
	return NULL;
}

START_TEST(word_states_and_handoff)
{
	pthread_t t[3];
	int i;

	ck_assert_int_eq(pthread_mutex_lock(&held), 0);
	ck_assert_int_eq(held.__data.__lock, 1);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, block_on_held, NULL);
	while (__atomic_load_n(&held.__data.__lock, __ATOMIC_RELAXED) != 2)
		usleep(1000);
	usleep(20000);
	ck_assert_int_eq(pthread_mutex_unlock(&held), 0);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_int_eq(held.__data.__lock, 0);
	ck_assert_int_eq(held.__data.__nusers, 0);
}
END_TEST

/* ---- eventual fairness: a starving sleeper is handed the mutex ---- */

static pthread_mutex_t fm;
static int fm_got;

static int a_load(int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void *fair_sleeper(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&fm) != 0)
		return (void *)1;
	__atomic_store_n(&fm_got, 1, __ATOMIC_RELAXED);
	if (pthread_mutex_unlock(&fm) != 0)
		return (void *)2;
	return NULL;
}

/* fm of the type, held, and a fair_sleeper queued on it (asleep). */
static void fair_sleeper_queued(pthread_t *t, int type)
{
	init_type(&fm, type, PTHREAD_PROCESS_PRIVATE);
	fm_got = 0;
	ck_assert_int_eq(pthread_mutex_lock(&fm), 0);
	ck_assert_int_eq(pthread_create(t, NULL, fair_sleeper, NULL), 0);
	while (a_load(&fm.__data.__lock) != 2)
		usleep(100);
}

/* The holder sleeps 2 ms holding fm, unlocks and at once tries to take it
 * again, round after round. With the hand-off the sleeper, which counts
 * itself starving at its first wake-up after fair_us (1 ms), is handed fm
 * at the next unlock: by the holder's trylock it has fm (EBUSY), or has
 * had it already. This checks that the handed path works (the sleeper
 * gets fm, the count and the word go back to 0); it does not prove the
 * hand-off happened: on two idle cpus the sleeper often wins the race by
 * itself, woken while the holder's unlock is still in its futex_wake, and
 * the test then passes with fair_us=0 too. tests/counts.sh proves it
 * (hand-offs counted, none with fair_us=0). */
static int fair_rounds_to_hand_off(int type)
{
	pthread_t t;
	int rounds, r = 0;

	fair_sleeper_queued(&t, type);
	for (rounds = 0; rounds < 100; rounds++) {
		usleep(2000);
		ck_assert_int_eq(pthread_mutex_unlock(&fm), 0);
		r = pthread_mutex_trylock(&fm);
		if (r != 0 || __atomic_load_n(&fm_got, __ATOMIC_RELAXED))
			break;
	}
	ck_assert(r == EBUSY || (r == 0 && fm_got));
	if (r == 0)
		ck_assert_int_eq(pthread_mutex_unlock(&fm), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(fm_got, 1);
	ck_assert_int_eq(priv_mutex_fair_starving(&fm), 0);
	ck_assert_int_eq(fm.__data.__lock, 0);
	ck_assert_int_eq(pthread_mutex_destroy(&fm), 0);
	return rounds;
}

START_TEST(starving_sleeper_is_handed_the_mutex)
{
	/* _i: the type (normal, recursive, errorcheck); a co-runner that
	 * delays the holder between its unlock and its trylock lets the
	 * sleeper in earlier, never later */
	ck_assert_int_lt(fair_rounds_to_hand_off(_i), 20);
}
END_TEST

/* A child of fork() has none of its parent's sleepers: a starving count
 * it inherits must not make an unlock hand the mutex to nobody (the
 * mutex would stay taken: the child's next lock would sleep for ever). */
START_TEST(fork_child_ignores_inherited_starving_count)
{
	pthread_t t;
	pid_t pid;
	int status, tries, i;

	/* fm held, a sleeper queued that counts itself starving: it does at
	 * its first wake-up 2 ms on, if the holder takes fm back first (the
	 * sleeper may win that race, woken on the other cpu while the
	 * holder's unlock is still in its system call: then again with a new
	 * sleeper) */
	for (tries = 0;; tries++) {
		ck_assert_int_lt(tries, 50);
		fair_sleeper_queued(&t, PTHREAD_MUTEX_NORMAL);
		usleep(2000);
		ck_assert_int_eq(pthread_mutex_unlock(&fm), 0);
		if (pthread_mutex_trylock(&fm) == 0) {
			for (i = 0; i < 1000 && priv_mutex_fair_starving(&fm) == 0 &&
				    !a_load(&fm_got); i++)
				usleep(1000);
			if (priv_mutex_fair_starving(&fm) == 1)
				break;
			ck_assert_int_eq(pthread_mutex_unlock(&fm), 0);
		}
		ck_assert_ptr_null(harness_join(t, 10));
		ck_assert_int_eq(fm_got, 1);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		alarm(10);
		if (pthread_mutex_unlock(&fm) != 0 || pthread_mutex_lock(&fm) != 0 ||
		    pthread_mutex_unlock(&fm) != 0 || fm.__data.__lock != 0)
			_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(pthread_mutex_unlock(&fm), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(priv_mutex_fair_starving(&fm), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&fm), 0);
}
END_TEST

/* Tiny sections, lockers and a busy process per cpu (a co-runner) that
 * preempts them anywhere: between an unlock's SWAP(0) and its CAS 0->3 a
 * starving sleeper may take the mutex, count itself out and let go, and
 * the unlock must not hand off on the count it read before (lll.h;
 * verify/mutex.pml -DSEED_FAIR_NORECHECK). A hand-off nobody takes leaves
 * every locker asleep: the watchdog. */
enum { FB_LOCKERS = 4 };
static int fb_stop;
static long fb_count, fb_done[FB_LOCKERS];

static void *fair_locker(void *arg)
{
	long *done = arg;
	volatile unsigned long x = 0;

	while (!__atomic_load_n(&fb_stop, __ATOMIC_RELAXED)) {
		if (pthread_mutex_lock(&fm) != 0)
			return (void *)1;
		fb_count++;
		if (pthread_mutex_unlock(&fm) != 0)
			return (void *)2;
		++*done;
		for (int i = 0; i < 20; i++) /* some work outside */
			x = x * 31 + (unsigned long)i;
	}
	return NULL;
}

START_TEST(hand_off_beside_a_co_runner)
{
	int nbusy = (int)sysconf(_SC_NPROCESSORS_ONLN), status;
	pthread_t lk[FB_LOCKERS];
	pid_t busy[8];
	long sum = 0;

	nbusy = nbusy < 1 ? 1 : nbusy > 8 ? 8 : nbusy;
	init_type(&fm, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	fb_stop = 0;
	fb_count = 0;
	memset(fb_done, 0, sizeof(fb_done));
	for (int i = 0; i < nbusy; i++) {
		busy[i] = fork();
		ck_assert_int_ge(busy[i], 0);
		if (busy[i] == 0) {
			alarm(30);
			for (;;)
				;
		}
	}
	for (int i = 0; i < FB_LOCKERS; i++)
		ck_assert_int_eq(pthread_create(&lk[i], NULL, fair_locker, &fb_done[i]), 0);
	usleep(500000);
	__atomic_store_n(&fb_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < FB_LOCKERS; i++)
		ck_assert_ptr_null(harness_join(lk[i], 20));
	for (int i = 0; i < nbusy; i++) {
		kill(busy[i], SIGKILL);
		ck_assert_int_eq(waitpid(busy[i], &status, 0), busy[i]);
	}
	for (int i = 0; i < FB_LOCKERS; i++)
		sum += fb_done[i];
	ck_assert_int_eq(fb_count, sum);
	ck_assert_int_eq(fm.__data.__lock, 0);
	ck_assert_int_eq(priv_mutex_fair_starving(&fm), 0);
}
END_TEST

/* Every way in at once, with holds long enough for sleepers to starve:
 * lock, timedlock with deadlines that pass, trylock, condition waits.
 * Nothing is lost, every hand-off is taken (a hand-off left untaken
 * leaves the mutex taken for ever: the watchdog), and the counts go back
 * to 0. */
enum { FS_THREADS = 6, FS_ITERS = 300 };
static pthread_cond_t fs_c = PTHREAD_COND_INITIALIZER;
static long fs_count, fs_taken[FS_THREADS];

static void *fair_stress_thread(void *arg)
{
	int me = (int)(intptr_t)arg, r;

	for (int i = 0; i < FS_ITERS; i++) {
		struct timespec dl = harness_deadline(CLOCK_MONOTONIC, (i % 3) + 1);

		switch ((me + i) % 4) {
		case 0:
			r = pthread_mutex_clocklock(&fm, CLOCK_MONOTONIC, &dl);
			break;
		case 1:
			r = pthread_mutex_trylock(&fm);
			break;
		default:
			r = pthread_mutex_lock(&fm);
		}
		if (r == ETIMEDOUT || r == EBUSY)
			continue;
		if (r != 0)
			return (void *)1;
		fs_count++;
		fs_taken[me]++;
		if (i % 16 == 0)
			usleep(1500);
		if (i % 7 == 0) {
			dl = harness_deadline(CLOCK_REALTIME, 1);
			r = pthread_cond_timedwait(&fs_c, &fm, &dl);
			if (r != 0 && r != ETIMEDOUT)
				return (void *)2;
		} else if (i % 5 == 0) {
			pthread_cond_broadcast(&fs_c);
		}
		if (pthread_mutex_unlock(&fm) != 0)
			return (void *)3;
	}
	return NULL;
}

START_TEST(fair_stress_every_way_in)
{
	pthread_t t[FS_THREADS];
	long sum = 0;

	init_type(&fm, _i, PTHREAD_PROCESS_PRIVATE);
	fs_count = 0;
	memset(fs_taken, 0, sizeof(fs_taken));
	for (int i = 0; i < FS_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fair_stress_thread,
						(void *)(intptr_t)i), 0);
	for (int i = 0; i < FS_THREADS; i++)
		ck_assert_ptr_null(harness_join(t[i], 60));
	for (int i = 0; i < FS_THREADS; i++)
		sum += fs_taken[i];
	ck_assert_int_eq(sum, fs_count);
	ck_assert_int_gt(fs_count, 0);
	ck_assert_int_eq(fm.__data.__lock, 0);
	if (_i != PTHREAD_MUTEX_ADAPTIVE_NP) /* (its __spins is its estimate) */
		ck_assert_int_eq(priv_mutex_fair_starving(&fm), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&fm), 0);
}
END_TEST

/* ---- condition waits release and re-take every type of mutex ---- */
static pthread_mutex_t qm;
static pthread_cond_t qc = PTHREAD_COND_INITIALIZER;
static int queue, consumed;

static void *consumer(void *arg)
{
	(void)arg;
	for (;;) {
		if (pthread_mutex_lock(&qm) != 0)
			return (void *)1;
		while (queue == 0)
			if (pthread_cond_wait(&qc, &qm) != 0)
				return (void *)2;
		if (queue < 0) {
			pthread_mutex_unlock(&qm);
			return NULL;
		}
		queue--;
		consumed++;
		if (pthread_mutex_unlock(&qm) != 0)
			return (void *)3;
	}
}

START_TEST(condvar_with_each_type)
{
	pthread_t t[3];
	int i;

	init_type(&qm, _i, PTHREAD_PROCESS_PRIVATE);
	queue = consumed = 0;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	for (i = 0; i < 20000; i++) {
		ck_assert_int_eq(pthread_mutex_lock(&qm), 0);
		queue++;
		pthread_cond_signal(&qc);
		ck_assert_int_eq(pthread_mutex_unlock(&qm), 0);
	}
	for (;;) { /* drain, then tell everyone to stop */
		pthread_mutex_lock(&qm);
		if (queue == 0) {
			queue = -1;
			pthread_cond_broadcast(&qc);
			pthread_mutex_unlock(&qm);
			break;
		}
		pthread_mutex_unlock(&qm);
		usleep(1000);
	}
	for (i = 0; i < 3; i++)
		ck_assert_ptr_null(harness_join(t[i], 30));
	ck_assert_int_eq(consumed, 20000);
	ck_assert_int_eq(qm.__data.__lock, 0);
}
END_TEST


/* As glibc's: destroy fails with EBUSY while a thread is in a condition
 * wait with the mutex (glibc counts it in __nusers; POSIX leaves it
 * undefined), and works again once the wait is over, timed out or
 * cancelled. _i: the type, + 4 for process-shared. */
static pthread_cond_t dc;
static volatile int dc_in, dc_go;

static void *dc_waiter(void *arg)
{
	struct timespec *dl = arg;
	int r = 0;

	pthread_mutex_lock(&qm);
	__atomic_store_n(&dc_in, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&dc_go, __ATOMIC_SEQ_CST) && r == 0)
		r = dl ? pthread_cond_timedwait(&dc, &qm, dl) : pthread_cond_wait(&dc, &qm);
	pthread_mutex_unlock(&qm);
	return (void *)(long)r;
}

static void unlock_qm(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&qm);
}

static void *dc_cancelled(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&qm);
	pthread_cleanup_push(unlock_qm, NULL);
	__atomic_store_n(&dc_in, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pthread_cond_wait(&dc, &qm);
	pthread_cleanup_pop(1);
	return NULL;
}

static void start_waiter(pthread_t *t, void *(*fn)(void *), void *arg)
{
	dc_in = dc_go = 0;
	ck_assert_int_eq(pthread_create(t, NULL, fn, arg), 0);
	while (!__atomic_load_n(&dc_in, __ATOMIC_SEQ_CST))
		usleep(1000);
	ck_assert_int_eq(pthread_mutex_lock(&qm), 0); /* so it waits now */
	ck_assert_int_eq(pthread_mutex_unlock(&qm), 0);
}

START_TEST(destroy_busy_while_a_condition_waits)
{
	int type = _i & 3, pshared = _i & 4 ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE;
	struct timespec dl;
	pthread_t t;

	if (harness_skip_under_tsan("destroy_busy_while_a_condition_waits",
				    "it destroys the mutex a condition waiter holds, on purpose"))
		return;
	ck_assert_int_eq(pthread_cond_init(&dc, NULL), 0);
	init_type(&qm, type, pshared);
	start_waiter(&t, dc_waiter, NULL);
	ck_assert_int_eq(pthread_mutex_destroy(&qm), EBUSY);
	ck_assert_int_eq(pthread_mutex_lock(&qm), 0);
	__atomic_store_n(&dc_go, 1, __ATOMIC_SEQ_CST);
	ck_assert_int_eq(pthread_cond_broadcast(&dc), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&qm), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(qm.__data.__nusers, 0);
	ck_assert_int_eq(pthread_mutex_destroy(&qm), 0);

	/* A wait that times out. The destroy is judged only when it returns
	 * before the deadline: on a loaded machine the waiter may time out
	 * and let go first (destroy then rightly succeeds); the deadline is
	 * then taken longer and the case run again. */
	for (long ms = 100;; ms *= 4) {
		int r;
		bool judged;

		init_type(&qm, type, pshared);
		dl = harness_deadline(CLOCK_REALTIME, ms);
		start_waiter(&t, dc_waiter, &dl);
		r = pthread_mutex_destroy(&qm);
		judged = harness_now_ns(CLOCK_REALTIME) <
			 (int64_t)dl.tv_sec * 1000000000 + dl.tv_nsec;
		ck_assert_msg(r == EBUSY || (r == 0 && !judged),
			      "destroy before the waiter's deadline: %d, not EBUSY", r);
		ck_assert_int_eq((long)harness_join(t, 10), ETIMEDOUT);
		if (r == EBUSY) {
			ck_assert_int_eq(pthread_mutex_destroy(&qm), 0);
			break;
		}
		ck_assert_int_lt(ms, 10000);
	}

	if (harness_skip_under_asan("destroy_busy_while_a_condition_waits (cancelled)")) {
		ck_assert_int_eq(pthread_cond_destroy(&dc), 0);
		return;
	}
	init_type(&qm, type, pshared); /* a wait that is cancelled */
	start_waiter(&t, dc_cancelled, NULL);
	ck_assert_int_eq(pthread_mutex_destroy(&qm), EBUSY);
	ck_assert_int_eq(pthread_cancel(t), 0);
	ck_assert_ptr_eq(harness_join(t, 10), PTHREAD_CANCELED);
	ck_assert_int_eq(pthread_mutex_destroy(&qm), 0);
	ck_assert_int_eq(pthread_cond_destroy(&dc), 0);
}
END_TEST

/* As glibc's: the unlock of an unlocked normal or adaptive mutex returns 0
 * (POSIX: undefined), and glibc's __nusers goes below zero, so destroy
 * fails with EBUSY from then on (until the mutex is initialized again). */
START_TEST(destroy_busy_after_unlock_of_unlocked)
{
	int type = _i & 1 ? PTHREAD_MUTEX_ADAPTIVE_NP : PTHREAD_MUTEX_NORMAL;
	int pshared = _i & 2 ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE;
	pthread_mutex_t m;

	init_type(&m, type, pshared);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&m), EBUSY);
	init_type(&m, type, pshared);
	ck_assert_int_eq(pthread_mutex_destroy(&m), 0);
}
END_TEST

/* ---- a signal handler that uses trylock while its thread sleeps in a
 * lock of the same mutex, and locks another, corrupts nothing ---- */
#include <signal.h>
static pthread_mutex_t sig_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t sig_other = PTHREAD_MUTEX_INITIALIZER;
static volatile int handled, handler_busy;

static void on_usr1(int sig)
{
	(void)sig;
	if (pthread_mutex_trylock(&sig_m) == EBUSY)
		handler_busy++;
	if (pthread_mutex_trylock(&sig_other) == 0)
		pthread_mutex_unlock(&sig_other);
	handled++;
}

static void *sig_waiter(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&sig_m) != 0)
		return (void *)1;
	pthread_mutex_unlock(&sig_m);
	return NULL;
}

START_TEST(signal_handler_trylock_while_waiting)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_t t;
	int i;

	if (harness_skip_under_tsan("signal_handler_trylock_while_waiting",
				    "TSan runs handlers only at its own safe points, not "
				    "while a thread blocks in a futex wait"))
		return;
	sigaction(SIGUSR1, &sa, NULL);
	ck_assert_int_eq(pthread_mutex_lock(&sig_m), 0);
	pthread_create(&t, NULL, sig_waiter, NULL);
	while (__atomic_load_n(&sig_m.__data.__lock, __ATOMIC_RELAXED) != 2)
		usleep(1000);
	for (i = 0; i < 50; i++) { /* one at a time: pending signals merge */
		pthread_kill(t, SIGUSR1);
		while (handled <= i)
			usleep(200);
	}
	ck_assert_int_eq(handler_busy, 50);
	ck_assert_int_eq(pthread_mutex_unlock(&sig_m), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(sig_m.__data.__lock, 0);
	ck_assert_int_eq(sig_other.__data.__lock, 0);
	ck_assert_int_eq(pthread_mutex_trylock(&sig_m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&sig_m), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mutex");
	TCase *tc;

	tc = harness_tcase(s, "static", 10);
	tcase_add_test(tc, static_initializers);
	tc = harness_tcase(s, "contention", 120);
	tcase_add_loop_test(tc, contention_each_type, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	tcase_add_loop_test(tc, contention_each_op, 1, 5);
	tc = harness_tcase(s, "types", 20);
	tcase_add_test(tc, recursive_counts_and_owner);
	tcase_add_test(tc, errorcheck_errors);
	tc = harness_tcase(s, "timed", 20);
	tcase_add_loop_test(tc, timeouts_on_their_clock, 0, 2);
	tcase_add_test(tc, timeout_past_deadline_at_once);
	tcase_add_test(tc, timed_bad_input);
	tcase_add_test(tc, timedlock_succeeds_when_released);
	tc = harness_tcase(s, "pshared", 60);
	tcase_add_loop_test(tc, pshared_across_fork, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	tc = harness_tcase(s, "lifecycle", 10);
	tcase_add_test(tc, init_refuses_unsupported_and_bad);
	tcase_add_loop_test(tc, destroy_busy_then_einval, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	tcase_add_test(tc, word_states_and_handoff);
	tc = harness_tcase(s, "fairness", 120);
	tcase_add_loop_test(tc, starving_sleeper_is_handed_the_mutex, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ERRORCHECK + 1);
	tcase_add_test(tc, fork_child_ignores_inherited_starving_count);
	tcase_add_loop_test(tc, hand_off_beside_a_co_runner, 0, 8);
	tcase_add_loop_test(tc, fair_stress_every_way_in, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	tc = harness_tcase(s, "signals", 20);
	tcase_add_test(tc, signal_handler_trylock_while_waiting);
	tc = harness_tcase(s, "condvar", 60);
	tcase_add_loop_test(tc, destroy_busy_while_a_condition_waits, 0, 8);
	tcase_add_loop_test(tc, destroy_busy_after_unlock_of_unlocked, 0, 4);
	tcase_add_loop_test(tc, condvar_with_each_type, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	return harness_main(s);
}
