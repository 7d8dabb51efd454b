/* tests/t_cond.c: pthread condition variables as POSIX specifies them, with
 * the system <pthread.h>: attributes, every mutex type, timed waits on the
 * clock they name, ordering of signals against later waiters, broadcast,
 * process-shared use across fork, cancellation, and a lost-wakeup stress
 * test in the shape of glibc bug 25847. Every wait is bounded. */
#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdio.h>
#include <sys/syscall.h>
#include "harness.h"
#include "private.h"

#define NS 1000000000LL
#define MS 1000000LL

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NS + ts->tv_nsec;
}

static struct timespec ns_ts(int64_t t)
{
	struct timespec ts = { .tv_sec = t / NS, .tv_nsec = t % NS };

	if (ts.tv_nsec < 0) {
		ts.tv_nsec += NS;
		ts.tv_sec--;
	}
	return ts;
}

static struct timespec deadline_us(clockid_t clk, long us)
{
	return ns_ts(harness_now_ns(clk) + (int64_t)us * 1000);
}

static unsigned rnd(unsigned *s)
{
	unsigned x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void spin_ns(int64_t ns)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + ns;

	while (harness_now_ns(CLOCK_MONOTONIC) < end)
		;
}

/* Evaluate expr with m held, every 100us, until it is true or ms pass. */
#define POLL_UNTIL(m, expr, ms)                                               \
	({                                                                    \
		int64_t end_ = harness_now_ns(CLOCK_MONOTONIC) + (ms) * MS;   \
		int ok_;                                                      \
		for (;;) {                                                    \
			pthread_mutex_lock(m);                                \
			ok_ = !!(expr);                                       \
			pthread_mutex_unlock(m);                              \
			if (ok_ || harness_now_ns(CLOCK_MONOTONIC) > end_)    \
				break;                                        \
			usleep(100);                                          \
		}                                                             \
		ok_;                                                          \
	})

static void init_mutex(pthread_mutex_t *m, int type, int pshared)
{
	harness_mutex_init(m, type, pshared, PTHREAD_MUTEX_STALLED, PTHREAD_PRIO_NONE);
}

static void init_cond(pthread_cond_t *c, clockid_t clk, int pshared)
{
	pthread_condattr_t a;

	ck_assert_int_eq(pthread_condattr_init(&a), 0);
	ck_assert_int_eq(pthread_condattr_setclock(&a, clk), 0);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, pshared), 0);
	ck_assert_int_eq(pthread_cond_init(c, &a), 0);
	/* the cond keeps its attributes after the attr object is gone */
	ck_assert_int_eq(pthread_condattr_destroy(&a), 0);
	memset(&a, 0xa5, sizeof(a));
}

static void *trylock_thread(void *arg)
{
	pthread_mutex_t *m = arg;
	int r = pthread_mutex_trylock(m);

	if (r == 0)
		pthread_mutex_unlock(m);
	return (void *)(long)r;
}

/* pthread_mutex_trylock(m) from another thread. */
static int other_trylock(pthread_mutex_t *m)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, trylock_thread, m), 0);
	return (int)(long)harness_join(t, 10);
}

/* ==== 1. initializers and attributes ==== */
static pthread_cond_t sc = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t sm = PTHREAD_MUTEX_INITIALIZER;
static int s_flag, s_waiting;

static void *static_waiter(void *arg)
{
	int r = 0;

	(void)arg;
	pthread_mutex_lock(&sm);
	s_waiting = 1;
	while (!s_flag && r == 0)
		r = pthread_cond_wait(&sc, &sm);
	pthread_mutex_unlock(&sm);
	return (void *)(long)r;
}

START_TEST(static_initializer)
{
	pthread_cond_t local = PTHREAD_COND_INITIALIZER;
	struct timespec dl;
	pthread_t t;
	int64_t t0;
	int r;

	/* no waiters: signal and broadcast succeed and do nothing */
	ck_assert_int_eq(pthread_cond_signal(&local), 0);
	ck_assert_int_eq(pthread_cond_broadcast(&local), 0);
	/* a statically initialized cond's timedwait uses CLOCK_REALTIME */
	ck_assert_int_eq(pthread_mutex_lock(&sm), 0);
	dl = harness_deadline(CLOCK_REALTIME, 50);
	t0 = harness_now_ns(CLOCK_REALTIME);
	do
		r = pthread_cond_timedwait(&local, &sm, &dl);
	while (r == 0);
	ck_assert_int_eq(r, ETIMEDOUT);
	ck_assert_int_ge(harness_now_ns(CLOCK_REALTIME), ts_ns(&dl));
	ck_assert_int_lt(harness_now_ns(CLOCK_REALTIME) - t0, 5 * NS);
	ck_assert_int_eq(pthread_mutex_unlock(&sm), 0);
	ck_assert_int_eq(pthread_cond_destroy(&local), 0);

	/* a static cond wakes a real waiter without any init call */
	ck_assert_int_eq(pthread_create(&t, NULL, static_waiter, NULL), 0);
	ck_assert_msg(POLL_UNTIL(&sm, s_waiting, 5000), "waiter never started");
	pthread_mutex_lock(&sm);
	s_flag = 1;
	ck_assert_int_eq(pthread_cond_signal(&sc), 0);
	pthread_mutex_unlock(&sm);
	ck_assert_int_eq((long)harness_join(t, 5), 0);
	ck_assert_int_eq(pthread_cond_destroy(&sc), 0);
}
END_TEST

static pthread_cond_t ic;
static pthread_mutex_t im = PTHREAD_MUTEX_INITIALIZER;
static int i_flag, i_waiting;

static void *init_waiter(void *arg)
{
	int r = 0;

	(void)arg;
	pthread_mutex_lock(&im);
	i_waiting = 1;
	while (!i_flag && r == 0)
		r = pthread_cond_wait(&ic, &im);
	pthread_mutex_unlock(&im);
	return (void *)(long)r;
}

static void init_and_handshake(const pthread_condattr_t *a)
{
	pthread_t t;

	ck_assert_int_eq(pthread_cond_init(&ic, a), 0);
	i_flag = i_waiting = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, init_waiter, NULL), 0);
	ck_assert_msg(POLL_UNTIL(&im, i_waiting, 5000), "waiter never started");
	pthread_mutex_lock(&im);
	i_flag = 1;
	ck_assert_int_eq(pthread_cond_broadcast(&ic), 0);
	pthread_mutex_unlock(&im);
	ck_assert_int_eq((long)harness_join(t, 5), 0);
	ck_assert_int_eq(pthread_cond_destroy(&ic), 0);
}

START_TEST(init_null_and_attr)
{
	pthread_condattr_t a;

	init_and_handshake(NULL);
	ck_assert_int_eq(pthread_condattr_init(&a), 0);
	init_and_handshake(&a);
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	init_and_handshake(&a);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	init_and_handshake(&a);
	ck_assert_int_eq(pthread_condattr_destroy(&a), 0);
	/* re-initialising a destroyed cond works */
	init_and_handshake(NULL);
}
END_TEST

START_TEST(condattr_clock)
{
	pthread_condattr_t a;
	clockid_t clk = (clockid_t)-42;
	int saved;

	ck_assert_int_eq(pthread_condattr_init(&a), 0);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_REALTIME);

	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_MONOTONIC);

	/* CPU-time clocks and unknown clocks: EINVAL, attribute unchanged */
	errno = 4242;
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID), EINVAL);
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_THREAD_CPUTIME_ID), EINVAL);
	ck_assert_int_eq(pthread_condattr_setclock(&a, 12345), EINVAL);
	ck_assert_int_eq(pthread_condattr_setclock(&a, (clockid_t)-1), EINVAL);
	saved = errno;
	ck_assert_int_eq(saved, 4242);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_MONOTONIC);

	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_REALTIME), 0);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_REALTIME);
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_PROCESS_CPUTIME_ID), EINVAL);
	ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
	ck_assert_int_eq(clk, CLOCK_REALTIME);
	ck_assert_int_eq(pthread_condattr_destroy(&a), 0);
}
END_TEST

START_TEST(condattr_pshared)
{
	pthread_condattr_t a;
	int ps = -42;

	ck_assert_int_eq(pthread_condattr_init(&a), 0);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_PRIVATE);

	ck_assert_int_eq(pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_SHARED);

	ck_assert_int_eq(pthread_condattr_setpshared(&a, 2), EINVAL);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, -1), EINVAL);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, 0x100), EINVAL);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_SHARED);

	ck_assert_int_eq(pthread_condattr_setpshared(&a, PTHREAD_PROCESS_PRIVATE), 0);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, 7), EINVAL);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_PRIVATE);

	/* the two attributes are independent */
	ck_assert_int_eq(pthread_condattr_setclock(&a, CLOCK_MONOTONIC), 0);
	ck_assert_int_eq(pthread_condattr_setpshared(&a, PTHREAD_PROCESS_SHARED), 0);
	ck_assert_int_eq(pthread_condattr_getpshared(&a, &ps), 0);
	ck_assert_int_eq(ps, PTHREAD_PROCESS_SHARED);
	{
		clockid_t clk;

		ck_assert_int_eq(pthread_condattr_getclock(&a, &clk), 0);
		ck_assert_int_eq(clk, CLOCK_MONOTONIC);
	}
	ck_assert_int_eq(pthread_condattr_destroy(&a), 0);
}
END_TEST

/* ==== 2. producer / consumer, counted ==== */
enum { PC_ITEMS = 20000, PC_PROD = 2, PC_CONS = 4, PC_CAP = 8 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t notempty, notfull;
	int buf[PC_CAP];
	int head, count, done;
	int bcast, outside;
	unsigned char seen[PC_ITEMS];
	long per_cons[PC_CONS];
} pc;

static int pc_notify(pthread_cond_t *c)
{
	return pc.bcast ? pthread_cond_broadcast(c) : pthread_cond_signal(c);
}

static void *producer(void *arg)
{
	int p = (int)(long)arg, k;

	for (k = 0; k < PC_ITEMS / PC_PROD; k++) {
		if (pthread_mutex_lock(&pc.m))
			return (void *)1;
		while (pc.count == PC_CAP)
			if (pthread_cond_wait(&pc.notfull, &pc.m))
				return (void *)2;
		pc.buf[(pc.head + pc.count) % PC_CAP] = p * (PC_ITEMS / PC_PROD) + k;
		pc.count++;
		if (!pc.outside && pc_notify(&pc.notempty))
			return (void *)3;
		if (pthread_mutex_unlock(&pc.m))
			return (void *)4;
		if (pc.outside && pc_notify(&pc.notempty))
			return (void *)3;
	}
	return NULL;
}

static void *consumer(void *arg)
{
	int c = (int)(long)arg;

	if (pthread_mutex_lock(&pc.m))
		return (void *)1;
	for (;;) {
		while (pc.count == 0 && !pc.done)
			if (pthread_cond_wait(&pc.notempty, &pc.m))
				return (void *)2;
		if (pc.count == 0)
			break;
		int id = pc.buf[pc.head];
		pc.head = (pc.head + 1) % PC_CAP;
		pc.count--;
		if (id < 0 || id >= PC_ITEMS)
			return (void *)5;
		pc.seen[id]++;
		pc.per_cons[c]++;
		if (!pc.outside && pc_notify(&pc.notfull))
			return (void *)3;
		if (pthread_mutex_unlock(&pc.m))
			return (void *)4;
		if (pc.outside && pc_notify(&pc.notfull))
			return (void *)3;
		if (pthread_mutex_lock(&pc.m))
			return (void *)1;
	}
	pthread_mutex_unlock(&pc.m);
	return NULL;
}

START_TEST(producer_consumer)
{
	pthread_t p[PC_PROD], c[PC_CONS];
	long total = 0;
	int i;

	memset(&pc, 0, sizeof(pc));
	init_mutex(&pc.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&pc.notempty, NULL), 0);
	ck_assert_int_eq(pthread_cond_init(&pc.notfull, NULL), 0);
	pc.bcast = _i & 1;
	pc.outside = (_i >> 1) & 1;
	for (i = 0; i < PC_CONS; i++)
		ck_assert_int_eq(pthread_create(&c[i], NULL, consumer, (void *)(long)i), 0);
	for (i = 0; i < PC_PROD; i++)
		ck_assert_int_eq(pthread_create(&p[i], NULL, producer, (void *)(long)i), 0);
	for (i = 0; i < PC_PROD; i++)
		ck_assert_ptr_null(harness_join(p[i], 30));
	pthread_mutex_lock(&pc.m);
	pc.done = 1;
	ck_assert_int_eq(pthread_cond_broadcast(&pc.notempty), 0);
	pthread_mutex_unlock(&pc.m);
	for (i = 0; i < PC_CONS; i++)
		ck_assert_ptr_null(harness_join(c[i], 30));

	ck_assert_int_eq(pc.count, 0);
	for (i = 0; i < PC_ITEMS; i++)
		ck_assert_msg(pc.seen[i] == 1, "item %d consumed %d times", i, pc.seen[i]);
	for (i = 0; i < PC_CONS; i++)
		total += pc.per_cons[i];
	ck_assert_int_eq(total, PC_ITEMS);
	ck_assert_int_eq(pthread_cond_destroy(&pc.notempty), 0);
	ck_assert_int_eq(pthread_cond_destroy(&pc.notfull), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&pc.m), 0);
}
END_TEST

/* ==== 3. timed waits ==== */

/* Timed out on clk at dl: the deadline has passed on clk, not long after
 * t0, and the caller holds the (errorcheck) mutex m again. */
static void check_timed_out(int r, clockid_t clk, const struct timespec *dl,
			    int64_t t0, pthread_mutex_t *m)
{
	int64_t now = harness_now_ns(clk);

	ck_assert_int_eq(r, ETIMEDOUT);
	ck_assert_msg(now >= ts_ns(dl), "returned %lld ns before the deadline on clock %d",
		      (long long)(ts_ns(dl) - now), (int)clk);
	ck_assert_msg(now - t0 < 5 * NS, "took %lld ns", (long long)(now - t0));
	ck_assert_int_eq(other_trylock(m), EBUSY);
}

START_TEST(timedwait_on_attr_clock)
{
	clockid_t clk = _i ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	pthread_mutex_t m;
	pthread_cond_t c;
	struct timespec dl;
	int64_t t0;
	int r, rounds;

	init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	init_cond(&c, clk, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	for (rounds = 0; rounds < 2; rounds++) {
		dl = harness_deadline(clk, 150);
		t0 = harness_now_ns(clk);
		do /* POSIX allows spurious wakeups */
			r = pthread_cond_timedwait(&c, &m, &dl);
		while (r == 0);
		check_timed_out(r, clk, &dl, t0, &m);
	}
	if (clk == CLOCK_REALTIME) {
		/* a CLOCK_MONOTONIC reading is long past on CLOCK_REALTIME */
		dl = harness_deadline(CLOCK_MONOTONIC, 10000);
		t0 = harness_now_ns(CLOCK_MONOTONIC);
		do
			r = pthread_cond_timedwait(&c, &m, &dl);
		while (r == 0 && harness_now_ns(CLOCK_MONOTONIC) - t0 < 2 * NS);
		ck_assert_int_eq(r, ETIMEDOUT);
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < NS / 2,
			      "a realtime cond took a monotonic deadline as its own");
	}
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0); /* still ours */
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

START_TEST(clockwait_on_its_clock)
{
	/* _i: the cond's own (attr) clock; clockwait must ignore it */
	clockid_t attr = _i ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	clockid_t clocks[2] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	pthread_mutex_t m;
	pthread_cond_t c;
	struct timespec dl;
	int64_t t0;
	int r, k;

	init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	init_cond(&c, attr, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	for (k = 0; k < 2; k++) {
		clockid_t clk = clocks[k];

		dl = harness_deadline(clk, 150);
		t0 = harness_now_ns(clk);
		do
			r = pthread_cond_clockwait(&c, &m, clk, &dl);
		while (r == 0);
		check_timed_out(r, clk, &dl, t0, &m);
	}
	/* a monotonic reading given as a CLOCK_REALTIME deadline is long past */
	dl = harness_deadline(CLOCK_MONOTONIC, 10000);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	do
		r = pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &dl);
	while (r == 0 && harness_now_ns(CLOCK_MONOTONIC) - t0 < 2 * NS);
	ck_assert_int_eq(r, ETIMEDOUT);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < NS / 2,
		      "clockwait(CLOCK_REALTIME) used another clock");
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

START_TEST(past_deadline_at_once)
{
	pthread_mutex_t m;
	pthread_cond_t c, cm;
	struct timespec rt_past = harness_deadline(CLOCK_REALTIME, -1000);
	struct timespec mono_past = harness_deadline(CLOCK_MONOTONIC, -1);
	struct timespec epoch = { 0, 0 }, negative = { -5, 0 };
	int64_t t0;

	init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	init_cond(&c, CLOCK_REALTIME, PTHREAD_PROCESS_PRIVATE);
	init_cond(&cm, CLOCK_MONOTONIC, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &rt_past), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &epoch), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &negative), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_timedwait(&cm, &m, &mono_past), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_timedwait(&cm, &m, &epoch), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &mono_past), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &epoch), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_clockwait(&cm, &m, CLOCK_REALTIME, &rt_past), ETIMEDOUT);
	ck_assert_int_eq(pthread_cond_clockwait(&cm, &m, CLOCK_REALTIME, &negative), ETIMEDOUT);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < NS / 2,
		      "a past deadline did not return at once");
	ck_assert_int_eq(other_trylock(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
	ck_assert_int_eq(pthread_cond_destroy(&cm), 0);
}
END_TEST

START_TEST(timed_bad_input)
{
	pthread_mutex_t m;
	pthread_cond_t c;
	/* bad1 is also in the past and bad2 only 1s ahead: an implementation
	 * that skips the check fails the assertion instead of hanging */
	struct timespec bad1 = { 0, 1000000000 };
	struct timespec bad2 = { harness_deadline(CLOCK_REALTIME, 1000).tv_sec, -1 };
	struct timespec bad2m = { harness_deadline(CLOCK_MONOTONIC, 1000).tv_sec, -1 };
	struct timespec ok = harness_deadline(CLOCK_MONOTONIC, 1000);
	struct timespec okr = harness_deadline(CLOCK_REALTIME, 1000);
	int saved;

	init_mutex(&m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	init_cond(&c, CLOCK_REALTIME, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	errno = 4242;
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &bad1), EINVAL);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &bad2), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &bad1), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &bad2m), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &bad2), EINVAL);
	/* unknown or CPU-time clocks */
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &ok), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_THREAD_CPUTIME_ID, &ok), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, 12345, &okr), EINVAL);
	saved = errno;
	ck_assert_int_eq(saved, 4242);
	/* POSIX: those errors are detected before the mutex is touched */
	ck_assert_int_eq(other_trylock(&m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&m), EPERM);

	init_cond(&c, CLOCK_MONOTONIC, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &bad1), EINVAL);
	ck_assert_int_eq(pthread_cond_timedwait(&c, &m, &bad2m), EINVAL);
	ck_assert_int_eq(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &ok), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

START_TEST(signal_without_waiters_is_not_remembered)
{
	pthread_mutex_t m;
	pthread_cond_t c;
	struct timespec dl;
	int i, r;

	/* POSIX: "no effect if there are no threads currently blocked" */
	init_mutex(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	init_cond(&c, CLOCK_MONOTONIC, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(pthread_cond_signal(&c), 0);
		ck_assert_int_eq(pthread_cond_broadcast(&c), 0);
	}
	ck_assert_int_eq(pthread_mutex_lock(&m), 0);
	ck_assert_int_eq(pthread_cond_signal(&c), 0);
	dl = harness_deadline(CLOCK_MONOTONIC, 50);
	r = pthread_cond_timedwait(&c, &m, &dl);
	ck_assert_msg(r == ETIMEDOUT, "an earlier signal was kept for a later waiter (%d)", r);
	ck_assert_int_eq(pthread_mutex_unlock(&m), 0);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

/* ==== 4. every mutex type ==== */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int turn;
	int timed;
} pp;
enum { PP_ROUNDS = 2000 };

static int pp_wait(void)
{
	struct timespec far = harness_deadline(CLOCK_MONOTONIC, 30000);

	switch (pp.timed) {
	case 1:
		return pthread_cond_clockwait(&pp.c, &pp.m, CLOCK_MONOTONIC, &far);
	case 2: {
		struct timespec farr = harness_deadline(CLOCK_REALTIME, 30000);

		return pthread_cond_timedwait(&pp.c, &pp.m, &farr);
	}
	default:
		return pthread_cond_wait(&pp.c, &pp.m);
	}
}

static void *ponger(void *arg)
{
	int i;

	(void)arg;
	if (pthread_mutex_lock(&pp.m))
		return (void *)1;
	for (i = 0; i < PP_ROUNDS; i++) {
		while (pp.turn != 1)
			if (pp_wait())
				return (void *)2;
		pp.turn = 0;
		if (pthread_cond_signal(&pp.c))
			return (void *)3;
	}
	if (pthread_mutex_unlock(&pp.m))
		return (void *)4;
	return NULL;
}

/* After a wait, the caller holds m exactly once. */
static void check_held_once(pthread_mutex_t *m, int type)
{
	ck_assert_int_eq(other_trylock(m), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(m), 0);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		ck_assert_int_eq(pthread_mutex_unlock(m), EPERM);
	ck_assert_int_eq(other_trylock(m), 0);
}

START_TEST(each_mutex_type)
{
	int type = _i;
	pthread_t t;
	struct timespec dl;
	int64_t t0;
	int i, r;

	for (pp.timed = 0; pp.timed < 3; pp.timed++) {
		init_mutex(&pp.m, type, PTHREAD_PROCESS_PRIVATE);
		ck_assert_int_eq(pthread_cond_init(&pp.c, NULL), 0);
		pp.turn = 0;
		ck_assert_int_eq(pthread_mutex_lock(&pp.m), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, ponger, NULL), 0);
		for (i = 0; i < PP_ROUNDS; i++) {
			pp.turn = 1;
			ck_assert_int_eq(pthread_cond_signal(&pp.c), 0);
			while (pp.turn != 0)
				ck_assert_int_eq(pp_wait(), 0);
		}
		check_held_once(&pp.m, type);
		ck_assert_ptr_null(harness_join(t, 30));

		/* timeout re-acquires the mutex, once */
		ck_assert_int_eq(pthread_mutex_lock(&pp.m), 0);
		dl = harness_deadline(CLOCK_REALTIME, 30);
		t0 = harness_now_ns(CLOCK_REALTIME);
		do
			r = pthread_cond_timedwait(&pp.c, &pp.m, &dl);
		while (r == 0);
		ck_assert_int_eq(r, ETIMEDOUT);
		ck_assert_int_ge(harness_now_ns(CLOCK_REALTIME), ts_ns(&dl));
		ck_assert_int_lt(harness_now_ns(CLOCK_REALTIME) - t0, 5 * NS);
		check_held_once(&pp.m, type);
		ck_assert_int_eq(pthread_cond_destroy(&pp.c), 0);
		ck_assert_int_eq(pthread_mutex_destroy(&pp.m), 0);
	}
}
END_TEST

static pthread_mutex_t om;
static pthread_mutex_t og = PTHREAD_MUTEX_INITIALIZER;

static void *own_until_released(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&om))
		return (void *)1;
	pthread_mutex_lock(&og); /* held by the test until it is done */
	pthread_mutex_unlock(&og);
	return (void *)(long)pthread_mutex_unlock(&om);
}

static void eperm_all_waits(pthread_cond_t *c)
{
	struct timespec dlr = harness_deadline(CLOCK_REALTIME, 1000);
	struct timespec dlm = harness_deadline(CLOCK_MONOTONIC, 1000);
	int saved;

	errno = 4242;
	ck_assert_int_eq(pthread_cond_wait(c, &om), EPERM);
	ck_assert_int_eq(pthread_cond_timedwait(c, &om, &dlr), EPERM);
	ck_assert_int_eq(pthread_cond_clockwait(c, &om, CLOCK_MONOTONIC, &dlm), EPERM);
	ck_assert_int_eq(pthread_cond_clockwait(c, &om, CLOCK_REALTIME, &dlr), EPERM);
	saved = errno;
	ck_assert_int_eq(saved, 4242);
}

START_TEST(eperm_when_not_owner)
{
	int type = _i ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_ERRORCHECK;
	pthread_cond_t c;
	pthread_t t;
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);

	init_mutex(&om, type, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&c, NULL), 0);

	/* unlocked: EPERM at once, mutex left unlocked */
	eperm_all_waits(&c);
	ck_assert_int_eq(other_trylock(&om), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&om), EPERM);

	/* owned by another thread: EPERM, that thread still owns it */
	pthread_mutex_lock(&og);
	ck_assert_int_eq(pthread_create(&t, NULL, own_until_released, NULL), 0);
	while (pthread_mutex_trylock(&om) == 0) {
		pthread_mutex_unlock(&om);
		usleep(100);
	}
	eperm_all_waits(&c);
	ck_assert_int_eq(pthread_mutex_trylock(&om), EBUSY);
	pthread_mutex_unlock(&og);
	ck_assert_int_eq((long)harness_join(t, 10), 0); /* its unlock worked */
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < NS,
		      "EPERM was not returned at once");

	/* the cond still works */
	ck_assert_int_eq(pthread_mutex_lock(&om), 0);
	{
		struct timespec dl = harness_deadline(CLOCK_REALTIME, 20);
		int r;

		do
			r = pthread_cond_timedwait(&c, &om, &dl);
		while (r == 0);
		ck_assert_int_eq(r, ETIMEDOUT);
	}
	ck_assert_int_eq(pthread_mutex_unlock(&om), 0);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

/* ==== 5. lost wakeups under churn (the shape of glibc bug 25847) ====
 *
 * Workers wait (untimed, or with a 30 s deadline) for tokens and consume
 * them. Noise waiters on the same cond use deadlines of 0-2 ms, so they
 * time out constantly and move the cond's internal state around. The
 * signaller adds a token under the mutex before every signal, sending it
 * sometimes with the mutex held and sometimes after unlocking, in short
 * bursts; after most bursts it stops and demands that every token be
 * consumed within 1 s with no further signal: a lost wakeup leaves a token
 * behind and the workers asleep.
 *
 * A noise waiter may take a token only when it may have absorbed a signal:
 * woken (returned 0) while some signal was sent during its wait, or timed
 * out while a signal was in flight at its deadline (POSIX: a timed-out
 * waiter "may consume a condition signal directed concurrently"; slack
 * ST_SLACK_US). Otherwise it leaves the tokens to the workers, so it cannot
 * hide a wakeup that the cond lost. */
enum { ST_WORKERS = 4, ST_NOISE = 4, ST_MS = 2500, ST_STALL_MS = 1000,
       ST_SLACK_US = 200 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	long tokens, produced, stop;
	long consumed[ST_WORKERS + ST_NOISE];
	long timeouts, noise_takes;
	long sig_started, sig_done; /* atomics */
	int64_t last_done_ns;       /* atomic: CLOCK_MONOTONIC */
} st;

static void *st_worker(void *arg)
{
	int i = (int)(long)arg, r;
	unsigned seed = 0x9e3779b9u * (unsigned)(i + 1);

	if (pthread_mutex_lock(&st.m))
		return (void *)1;
	for (;;) {
		while (st.tokens == 0 && !st.stop) {
			if (i & 1) {
				struct timespec dl = harness_deadline(CLOCK_MONOTONIC, 30000);

				r = pthread_cond_clockwait(&st.c, &st.m, CLOCK_MONOTONIC, &dl);
			} else {
				r = pthread_cond_wait(&st.c, &st.m);
			}
			if (r)
				return (void *)2;
		}
		if (st.tokens == 0)
			break;
		st.tokens--;
		st.consumed[i]++;
		if ((rnd(&seed) & 3) == 0) {
			pthread_mutex_unlock(&st.m);
			if (rnd(&seed) & 1)
				sched_yield();
			pthread_mutex_lock(&st.m);
		}
	}
	pthread_mutex_unlock(&st.m);
	return NULL;
}

static void *st_noise(void *arg)
{
	int i = (int)(long)arg, r, may_take;
	unsigned seed = 0x85ebca6bu * (unsigned)(i + 1);

	if (pthread_mutex_lock(&st.m))
		return (void *)1;
	while (!st.stop) {
		long d0 = __atomic_load_n(&st.sig_done, __ATOMIC_SEQ_CST);
		long us = (long)(rnd(&seed) % 2000);
		int64_t dl_mono = harness_now_ns(CLOCK_MONOTONIC) + us * 1000;

		if (rnd(&seed) & 1) {
			struct timespec dl = deadline_us(CLOCK_REALTIME, us);

			r = pthread_cond_timedwait(&st.c, &st.m, &dl);
		} else {
			struct timespec dl = ns_ts(dl_mono);

			r = pthread_cond_clockwait(&st.c, &st.m, CLOCK_MONOTONIC, &dl);
		}
		long s1 = __atomic_load_n(&st.sig_started, __ATOMIC_SEQ_CST);
		long d1 = __atomic_load_n(&st.sig_done, __ATOMIC_SEQ_CST);
		int64_t last = __atomic_load_n(&st.last_done_ns, __ATOMIC_SEQ_CST);

		if (r == 0)
			may_take = s1 != d0;
		else if (r == ETIMEDOUT)
			may_take = s1 != d0 &&
				   (s1 != d1 || last >= dl_mono - ST_SLACK_US * 1000);
		else
			return (void *)2;
		if (r == ETIMEDOUT)
			st.timeouts++;
		if (st.tokens > 0 && may_take) {
			st.tokens--;
			st.consumed[i]++;
			st.noise_takes++;
		}
		if ((rnd(&seed) & 7) == 0) {
			pthread_mutex_unlock(&st.m);
			usleep(rnd(&seed) % 300);
			pthread_mutex_lock(&st.m);
		}
	}
	pthread_mutex_unlock(&st.m);
	return NULL;
}

static void st_signal(void)
{
	__atomic_add_fetch(&st.sig_started, 1, __ATOMIC_SEQ_CST);
	ck_assert_int_eq(pthread_cond_signal(&st.c), 0);
	__atomic_store_n(&st.last_done_ns, harness_now_ns(CLOCK_MONOTONIC),
			 __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&st.sig_done, 1, __ATOMIC_SEQ_CST);
}

static void st_send(int held)
{
	pthread_mutex_lock(&st.m);
	st.tokens++;
	st.produced++;
	if (held)
		st_signal();
	pthread_mutex_unlock(&st.m);
	if (!held)
		st_signal();
}

/* Every token consumed within ST_STALL_MS, no signal sent meanwhile. */
static long st_drain(void)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + ST_STALL_MS * MS;
	long left;
	int spins = 0;

	for (;;) {
		pthread_mutex_lock(&st.m);
		left = st.tokens;
		pthread_mutex_unlock(&st.m);
		if (left == 0 || harness_now_ns(CLOCK_MONOTONIC) > end)
			return left;
		if (++spins < 50)
			sched_yield();
		else
			usleep(50);
	}
}

START_TEST(lost_wakeup_stress)
{
	pthread_t t[ST_WORKERS + ST_NOISE];
	int64_t end;
	unsigned seed = 12345;
	long stalled = 0, rounds = 0, checks = 0, sum = 0;
	int i;

	memset(&st, 0, sizeof(st));
	init_mutex(&st.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&st.c, NULL), 0);
	for (i = 0; i < ST_WORKERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, st_worker, (void *)(long)i), 0);
	for (; i < ST_WORKERS + ST_NOISE; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, st_noise, (void *)(long)i), 0);

	end = harness_now_ns(CLOCK_MONOTONIC) + ST_MS * MS;
	while (harness_now_ns(CLOCK_MONOTONIC) < end) {
		unsigned k = 1 + rnd(&seed) % 3, j;

		for (j = 0; j < k; j++) {
			st_send(rnd(&seed) & 1);
			switch (rnd(&seed) % 4) {
			case 0:
				sched_yield();
				break;
			case 1:
				spin_ns(rnd(&seed) % 20000);
				break;
			default:
				break;
			}
		}
		rounds++;
		if (rnd(&seed) % 4) {
			checks++;
			stalled = st_drain();
			if (stalled)
				break;
		}
		if ((rnd(&seed) & 7) == 0)
			usleep(rnd(&seed) % 500);
	}
	if (!stalled) {
		checks++;
		stalled = st_drain();
	}
	/* stop: release everyone, then check the books */
	pthread_mutex_lock(&st.m);
	st.stop = 1;
	pthread_cond_broadcast(&st.c);
	pthread_mutex_unlock(&st.m);
	ck_assert_msg(stalled == 0,
		      "lost wakeup: %ld token(s) left unconsumed for %d ms with "
		      "workers waiting (burst %ld, %ld signals, %ld drain checks)",
		      stalled, ST_STALL_MS, rounds, st.produced, checks);
	for (i = 0; i < ST_WORKERS + ST_NOISE; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	for (i = 0; i < ST_WORKERS + ST_NOISE; i++)
		sum += st.consumed[i];
	ck_assert_int_eq(st.tokens, 0);
	ck_assert_int_eq(sum, st.produced);
	ck_assert_int_gt(st.produced, 1000);
	ck_assert_int_gt(st.timeouts, 100); /* the noise really timed out */
	ck_assert_int_gt(checks, 100);
	ck_assert_int_eq(pthread_cond_destroy(&st.c), 0);
}
END_TEST

/* ==== 6. a signal sent with the mutex held goes to an earlier waiter ==== */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int a_go, b_go, a_waiting, b_waiting, b_returns, timed;
	int a_done; /* atomic */
} six;

static int six_wait(void)
{
	struct timespec far = harness_deadline(CLOCK_MONOTONIC, 30000);

	return six.timed ? pthread_cond_clockwait(&six.c, &six.m, CLOCK_MONOTONIC, &far)
			 : pthread_cond_wait(&six.c, &six.m);
}

static void *six_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&six.m);
	six.a_waiting = 1;
	while (!six.a_go)
		if (six_wait())
			return (void *)2;
	__atomic_store_n(&six.a_done, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&six.m);
	return NULL;
}

static void *six_b(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&six.m);
	six.b_waiting = 1;
	while (!six.b_go) {
		if (six_wait())
			return (void *)2;
		six.b_returns++;
	}
	pthread_mutex_unlock(&six.m);
	return NULL;
}

START_TEST(signal_not_taken_by_later_waiter)
{
	int round;

	init_mutex(&six.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&six.c, NULL), 0);
	six.timed = _i;
	for (round = 0; round < 20; round++) {
		pthread_t a, b;
		int64_t t0;

		six.a_go = six.b_go = six.a_waiting = six.b_waiting = 0;
		six.b_returns = six.a_done = 0;
		ck_assert_int_eq(pthread_create(&a, NULL, six_a, NULL), 0);
		/* once we hold the mutex and see a_waiting, A is blocked */
		ck_assert_msg(POLL_UNTIL(&six.m, six.a_waiting, 5000), "A never waited");

		pthread_mutex_lock(&six.m);
		six.a_go = 1;
		ck_assert_int_eq(pthread_cond_signal(&six.c), 0);
		ck_assert_int_eq(pthread_create(&b, NULL, six_b, NULL), 0);
		pthread_mutex_unlock(&six.m);

		t0 = harness_now_ns(CLOCK_MONOTONIC);
		while (!__atomic_load_n(&six.a_done, __ATOMIC_SEQ_CST) &&
		       harness_now_ns(CLOCK_MONOTONIC) - t0 < NS)
			usleep(100);
		ck_assert_msg(__atomic_load_n(&six.a_done, __ATOMIC_SEQ_CST),
			      "round %d: the waiter blocked before the signal was not woken "
			      "within 1 s (later waiter b_returns=%d)", round, six.b_returns);
		ck_assert_ptr_null(harness_join(a, 5));

		ck_assert_msg(POLL_UNTIL(&six.m, six.b_waiting, 5000), "B never waited");
		usleep(10000);
		pthread_mutex_lock(&six.m);
		/* stricter than POSIX (which allows spurious wakeups): the
		 * earlier signal must not have woken B */
		ck_assert_msg(six.b_returns == 0,
			      "round %d: a waiter that started after the signal was woken by it",
			      round);
		six.b_go = 1;
		ck_assert_int_eq(pthread_cond_broadcast(&six.c), 0);
		pthread_mutex_unlock(&six.m);
		ck_assert_ptr_null(harness_join(b, 5));
	}
	ck_assert_int_eq(pthread_cond_destroy(&six.c), 0);
}
END_TEST

/* ==== 7. broadcast wakes every waiter ==== */
/* Loops 0/1: 8 waiters, the broadcast inside / outside the mutex. Loops
 * 2/3: a herd, more sleepers than twice the cpus, all asleep before each
 * broadcast (fthr then marks the broadcast, and its sleepers re-take the
 * mutex in the queue, SWAP(2), not with a spin: lib/thr_cond.c "herd").
 * Every woken waiter checks that it holds the mutex alone. */
enum { BC_N = 8, BC_MAX = 64, BC_ROUNDS = 50, BC_HERD_ROUNDS = 20 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int gen, arrived, woken, inside, overlaps;
} bc;

static void *bc_waiter(void *arg)
{
	int r, i = (int)(long)arg, rounds = i >> 8;

	if (pthread_mutex_lock(&bc.m))
		return (void *)1;
	for (r = 0; r < rounds; r++) {
		int g = bc.gen;

		bc.arrived++;
		while (bc.gen == g) {
			int e;

			if (i & 1) {
				struct timespec dl = harness_deadline(CLOCK_REALTIME, 30000);

				e = pthread_cond_timedwait(&bc.c, &bc.m, &dl);
			} else {
				e = pthread_cond_wait(&bc.c, &bc.m);
			}
			if (e)
				return (void *)2;
		}
		/* alone in here, for a while (another holder would see it) */
		if (bc.inside++)
			bc.overlaps++;
		for (volatile int k = 0; k < 200; k++)
			;
		bc.inside--;
		bc.woken++;
	}
	pthread_mutex_unlock(&bc.m);
	return NULL;
}

START_TEST(broadcast_wakes_all)
{
	int outside = _i & 1, herd = _i >= 2, r, i, n = BC_N;
	int rounds = herd ? BC_HERD_ROUNDS : BC_ROUNDS;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t[BC_MAX];

	if (herd) {
		n = cpus > 0 && 2 * cpus + 4 < BC_MAX ? 2 * (int)cpus + 4 : BC_MAX;
		if (n <= 2 * cpus)
			return; /* (more than 30 cpus: no herd this size) */
	}
	memset(&bc, 0, sizeof(bc));
	init_mutex(&bc.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&bc.c, NULL), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, bc_waiter,
						(void *)(long)(i | rounds << 8)), 0);
	for (r = 1; r <= rounds; r++) {
		ck_assert_msg(POLL_UNTIL(&bc.m, bc.arrived == n * r, 5000),
			      "round %d: waiters did not all arrive", r);
		if (herd)
			ck_assert_msg(POLL_UNTIL(&bc.m, priv_cond_sleepers(&bc.c) == n, 5000),
				      "round %d: %d of %d waiters asleep", r,
				      priv_cond_sleepers(&bc.c), n);
		pthread_mutex_lock(&bc.m);
		ck_assert_int_eq(bc.woken, n * (r - 1));
		bc.gen++;
		if (!outside)
			ck_assert_int_eq(pthread_cond_broadcast(&bc.c), 0);
		pthread_mutex_unlock(&bc.m);
		/* (the holder's broadcast wakes at the unlock) */
		if (herd && !outside)
			ck_assert_msg(priv_cond_herd(&bc.c) == priv_cond_seq(&bc.c),
				      "round %d: a broadcast to %d sleepers (%ld cpus) "
				      "was not marked a herd", r, n, cpus);
		if (outside)
			ck_assert_int_eq(pthread_cond_broadcast(&bc.c), 0);
		ck_assert_msg(POLL_UNTIL(&bc.m, bc.woken == n * r, 5000),
			      "round %d: broadcast woke only %d of %d waiters", r,
			      bc.woken - n * (r - 1), n);
	}
	for (i = 0; i < n; i++)
		ck_assert_ptr_null(harness_join(t[i], 5));
	ck_assert_int_eq(bc.woken, n * rounds);
	ck_assert_int_eq(bc.overlaps, 0);
	ck_assert_int_eq(priv_cond_sleepers(&bc.c), 0);
	/* the mutex is free and unmarked: nobody left asleep on it */
	ck_assert_int_eq(__atomic_load_n(&bc.m.__data.__lock, __ATOMIC_SEQ_CST), 0);
	ck_assert_int_eq(pthread_cond_destroy(&bc.c), 0);
}
END_TEST

/* ==== 8. process-shared across fork ==== */
struct shared_cv {
	pthread_mutex_t m;
	pthread_cond_t c;   /* children wait here */
	pthread_cond_t ack; /* the parent waits here (monotonic clock) */
	int ready, go, acks;
};

static void pshared_child(struct shared_cv *s)
{
	alarm(10);
	if (pthread_mutex_lock(&s->m))
		_exit(2);
	s->ready++;
	if (pthread_cond_broadcast(&s->ack))
		_exit(3);
	while (!s->go)
		if (pthread_cond_wait(&s->c, &s->m))
			_exit(4);
	s->acks++;
	if (pthread_cond_signal(&s->ack))
		_exit(5);
	if (pthread_mutex_unlock(&s->m))
		_exit(6);
	_exit(s->go == 1 ? 0 : 7);
}

/* parent: wait on ack (monotonic cond) until *v >= want, at most 5 s */
static void ack_wait(struct shared_cv *s, int *v, int want)
{
	struct timespec dl = harness_deadline(CLOCK_MONOTONIC, 5000);
	int r = 0;

	while (*v < want && r == 0)
		r = pthread_cond_timedwait(&s->ack, &s->m, &dl);
	ck_assert_msg(*v >= want, "children: %d of %d (%d)", *v, want, r);
}

START_TEST(pshared_fork)
{
	/* _i: 0 one child + signal, 1 three + broadcast, 2 three + 3 signals */
	int n = _i == 0 ? 1 : 3, i, status;
	struct shared_cv *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid[3];

	ck_assert_ptr_ne(s, MAP_FAILED);
	init_mutex(&s->m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_SHARED);
	init_cond(&s->c, CLOCK_REALTIME, PTHREAD_PROCESS_SHARED);
	init_cond(&s->ack, CLOCK_MONOTONIC, PTHREAD_PROCESS_SHARED);
	s->ready = s->go = s->acks = 0;
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0)
			pshared_child(s);
	}
	ck_assert_int_eq(pthread_mutex_lock(&s->m), 0);
	ack_wait(s, &s->ready, n); /* all children now blocked on c */
	s->go = 1;
	if (_i == 1) {
		ck_assert_int_eq(pthread_cond_broadcast(&s->c), 0);
	} else {
		for (i = 0; i < n; i++)
			ck_assert_int_eq(pthread_cond_signal(&s->c), 0);
	}
	ack_wait(s, &s->acks, n);
	ck_assert_int_eq(pthread_mutex_unlock(&s->m), 0);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "child %d: status %#x", i, status);
	}
	ck_assert_int_eq(s->acks, n);
	ck_assert_int_eq(pthread_cond_destroy(&s->c), 0);
	ck_assert_int_eq(pthread_cond_destroy(&s->ack), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&s->m), 0);
	munmap(s, sizeof(*s));
}
END_TEST

/* ==== 9. cancellation ==== */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int kind, waiting, tokens, stop;
	int got[2], handler_ran[2], handler_rc[2];
} cx;

static void cx_handler(void *arg)
{
	int i = (int)(long)arg;

	cx.handler_ran[i] = 1;
	/* errorcheck mutex: 0 only if this thread owns it again */
	cx.handler_rc[i] = pthread_mutex_unlock(&cx.m);
}

static int cx_wait(void)
{
	struct timespec dl;

	switch (cx.kind) {
	case 1:
		dl = harness_deadline(CLOCK_REALTIME, 30000);
		return pthread_cond_timedwait(&cx.c, &cx.m, &dl);
	case 2:
		dl = harness_deadline(CLOCK_MONOTONIC, 30000);
		return pthread_cond_clockwait(&cx.c, &cx.m, CLOCK_MONOTONIC, &dl);
	default:
		return pthread_cond_wait(&cx.c, &cx.m);
	}
}

static void *cx_waiter(void *arg)
{
	int i = (int)(long)arg;
	volatile long ret = 1;

	pthread_cleanup_push(cx_handler, arg);
	if (pthread_mutex_lock(&cx.m) == 0) {
		cx.waiting++;
		while (cx.tokens == 0 && !cx.stop)
			if (cx_wait()) {
				ret = 2;
				break;
			}
		if (cx.tokens > 0) {
			cx.tokens--;
			cx.got[i] = 1;
		}
		/* no cancellation point from here on */
	}
	pthread_cleanup_pop(1); /* unlocks */
	return (void *)ret;
}

static void cx_setup(int kind)
{
	memset(&cx, 0, sizeof(cx));
	init_mutex(&cx.m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&cx.c, NULL), 0);
	cx.kind = kind;
}

static void *destroy_thread(void *arg)
{
	return (void *)(long)pthread_cond_destroy(arg);
}

START_TEST(cancel_waiter_holds_mutex)
{
	pthread_t t, d;
	int round;

	if (harness_skip_under_asan("cancel_waiter_holds_mutex"))
		return;

	cx_setup(_i);
	for (round = 0; round < 5; round++) {
		cx.waiting = 0;
		cx.handler_ran[0] = 0;
		cx.handler_rc[0] = -1;
		ck_assert_int_eq(pthread_create(&t, NULL, cx_waiter, (void *)0L), 0);
		ck_assert_msg(POLL_UNTIL(&cx.m, cx.waiting == 1, 5000), "never waited");
		ck_assert_int_eq(pthread_cancel(t), 0);
		ck_assert_ptr_eq(harness_join(t, 5), PTHREAD_CANCELED);
		ck_assert_int_eq(cx.handler_ran[0], 1);
		ck_assert_msg(cx.handler_rc[0] == 0,
			      "the cleanup handler did not hold the mutex (unlock: %d)",
			      cx.handler_rc[0]);
		ck_assert_int_eq(pthread_mutex_trylock(&cx.m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&cx.m), 0);
		ck_assert_int_eq(cx.got[0], 0);
	}
	/* the cond is still usable, and nothing is left registered on it */
	cx.stop = 0;
	cx.tokens = 0;
	cx.waiting = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, cx_waiter, (void *)1L), 0);
	ck_assert_msg(POLL_UNTIL(&cx.m, cx.waiting == 1, 5000), "never waited");
	pthread_mutex_lock(&cx.m);
	cx.tokens = 1;
	ck_assert_int_eq(pthread_cond_signal(&cx.c), 0);
	pthread_mutex_unlock(&cx.m);
	ck_assert_int_eq((long)harness_join(t, 5), 1);
	ck_assert_int_eq(cx.got[1], 1);
	ck_assert_int_eq(pthread_create(&d, NULL, destroy_thread, &cx.c), 0);
	ck_assert_int_eq((long)harness_join(d, 5), 0);
}
END_TEST

START_TEST(cancel_does_not_swallow_signal)
{
	/* _i: 0 signal then cancel, 1 cancel then signal */
	unsigned seed = 777 + (unsigned)_i;
	int round, a_cancelled = 0, a_consumed = 0;

	if (harness_skip_under_asan("cancel_does_not_swallow_signal") ||
	    (_i == 0 && harness_skip_under_qemu_i386("cancel_does_not_swallow_signal",
						     "signal before cancel: SIGCANCEL comes late")))
		return;

	cx_setup(0);
	for (round = 0; round < 100; round++) {
		pthread_t a, b;
		void *ra;
		int64_t delay = rnd(&seed) % 30000;

		cx.waiting = cx.tokens = cx.stop = 0;
		cx.got[0] = cx.got[1] = 0;
		cx.handler_ran[0] = cx.handler_ran[1] = 0;
		cx.kind = round % 3;
		ck_assert_int_eq(pthread_create(&a, NULL, cx_waiter, (void *)0L), 0);
		ck_assert_msg(POLL_UNTIL(&cx.m, cx.waiting == 1, 5000), "A never waited");
		ck_assert_int_eq(pthread_create(&b, NULL, cx_waiter, (void *)1L), 0);
		ck_assert_msg(POLL_UNTIL(&cx.m, cx.waiting == 2, 5000), "B never waited");

		if (_i == 0) {
			pthread_mutex_lock(&cx.m);
			cx.tokens = 1;
			ck_assert_int_eq(pthread_cond_signal(&cx.c), 0);
			pthread_mutex_unlock(&cx.m);
			spin_ns(delay);
			ck_assert_int_eq(pthread_cancel(a), 0);
		} else {
			ck_assert_int_eq(pthread_cancel(a), 0);
			spin_ns(delay);
			pthread_mutex_lock(&cx.m);
			cx.tokens = 1;
			ck_assert_int_eq(pthread_cond_signal(&cx.c), 0);
			pthread_mutex_unlock(&cx.m);
		}
		ra = harness_join(a, 5);
		if (ra == PTHREAD_CANCELED) {
			a_cancelled++;
			ck_assert_int_eq(cx.got[0], 0);
			ck_assert_int_eq(cx.handler_rc[0], 0);
			/* POSIX: a cancelled waiter does not consume a signal
			 * when another thread is blocked on the cond */
			ck_assert_msg(POLL_UNTIL(&cx.m, cx.got[1] == 1, 1000),
				      "round %d: A was cancelled and B was not woken "
				      "within 1 s: the signal was swallowed", round);
		} else {
			/* A returned normally: it took the signal and the token */
			ck_assert_int_eq((long)ra, 1);
			ck_assert_int_eq(cx.got[0], 1);
			a_consumed++;
		}
		pthread_mutex_lock(&cx.m);
		ck_assert_int_eq(cx.tokens, 0);
		ck_assert_int_eq(cx.got[0] + cx.got[1], 1);
		cx.stop = 1;
		ck_assert_int_eq(pthread_cond_broadcast(&cx.c), 0);
		pthread_mutex_unlock(&cx.m);
		ck_assert_int_eq((long)harness_join(b, 5), 1);
		ck_assert_int_eq(cx.got[0] + cx.got[1], 1);
	}
	ck_assert_int_eq(a_cancelled + a_consumed, 100);
	ck_assert_int_eq(pthread_cond_destroy(&cx.c), 0);
}
END_TEST

/* A SIGCANCEL that lands after the wait returned. glibc acts on a request
 * at once only by signal, while the waiter's cancel type is asynchronous
 * (around its futex wait); a signal delivered late (qemu-user delivers them
 * late; natively an IPI can) only marks the thread cancelled, and the
 * thread would act on it after it had taken the wake-up and its token. Here
 * the waiter keeps SIGCANCEL (32: glibc's pthread_sigmask will not block it,
 * the raw syscall does) blocked across the wait, so the signal stays
 * pending; the main thread cancels, signals with a token, and 50 ms later
 * sends SIGUSR1, whose handler takes SIGCANCEL out of the mask it returns
 * to. Correct: the waiter is cancelled inside its wait without the token,
 * or returns with it and is not cancelled. */
#define LATE_SIGCANCEL 32
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int waiting, tokens, took, handler_rc;
} lc;

static void lc_sigmask(int how)
{
	unsigned long set = 1UL << (LATE_SIGCANCEL - 1);

	syscall(SYS_rt_sigprocmask, how, &set, NULL, sizeof(set));
}

static void lc_usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig; (void)si;
	((unsigned long *)&uc->uc_sigmask)[0] &= ~(1UL << (LATE_SIGCANCEL - 1));
}

static void lc_unlock(void *arg)
{
	(void)arg;
	lc.handler_rc = pthread_mutex_unlock(&lc.m);
}

static void *lc_waiter(void *arg)
{
	(void)arg;
	lc_sigmask(SIG_BLOCK);
	pthread_cleanup_push(lc_unlock, NULL);
	pthread_mutex_lock(&lc.m);
	lc.waiting = 1;
	while (lc.tokens == 0)
		pthread_cond_wait(&lc.c, &lc.m);
	lc.tokens--;
	lc.took = 1;
	pthread_cleanup_pop(1);
	/* a late request is delivered now and acted on here */
	lc_sigmask(SIG_UNBLOCK);
	pthread_testcancel();
	return (void *)1L;
}

START_TEST(late_sigcancel_acts_inside_the_wait)
{
	struct sigaction sa, old;
	pthread_t a;
	void *ra;

	if (harness_skip_under_asan("late_sigcancel_acts_inside_the_wait"))
		return;
	memset(&lc, 0, sizeof(lc));
	init_mutex(&lc.m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&lc.c, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = lc_usr1;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	ck_assert_int_eq(pthread_create(&a, NULL, lc_waiter, NULL), 0);
	ck_assert_msg(POLL_UNTIL(&lc.m, lc.waiting == 1, 5000), "never waited");
	/* past its spin, asleep in the futex wait: this test is about the
	 * signal of a request made there (a request made while the waiter
	 * still spins: cancel_during_spin_acts_inside_the_wait) */
	usleep(100000);
	ck_assert_int_eq(pthread_cancel(a), 0);
	pthread_mutex_lock(&lc.m);
	lc.tokens = 1;
	ck_assert_int_eq(pthread_cond_signal(&lc.c), 0);
	pthread_mutex_unlock(&lc.m);
	usleep(50000);
	pthread_kill(a, SIGUSR1); /* the waiter may have ended: no check */
	ra = harness_join(a, 5);
	ck_assert_int_eq(sigaction(SIGUSR1, &old, NULL), 0);
	ck_assert_int_eq(lc.handler_rc, 0);
	if (ra == PTHREAD_CANCELED)
		ck_assert_msg(lc.took == 0 && lc.tokens == 1,
			      "cancelled after taking the wake-up and the token");
	else
		ck_assert_msg((long)ra == 1 && lc.took == 1 && lc.tokens == 0,
			      "returned %p, took %d, tokens %d", ra, lc.took, lc.tokens);
	ck_assert_int_eq(pthread_cond_destroy(&lc.c), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&lc.m), 0);
}
END_TEST

/* A request made while the waiter still spins (before any futex wait), or
 * pending when it entered the wait, followed by the wake-up: the wait is a
 * cancellation point, so the request is acted on before it returns, and the
 * wake-up and the token are left for others. The main thread cancels as
 * soon as the waiter has announced itself and signals once the waiter has
 * released the mutex by waiting: spinning or asleep by then, cancelled is
 * the one correct outcome (the request came before the wake-up), and every
 * return of the wait checks for it. */
enum { SP_ROUNDS = 40 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int waiting, tokens, took, handler_rc;
} sp;

static void sp_unlock(void *arg)
{
	(void)arg;
	sp.handler_rc = pthread_mutex_unlock(&sp.m);
}

static void *sp_waiter(void *arg)
{
	(void)arg;
	pthread_cleanup_push(sp_unlock, NULL);
	pthread_mutex_lock(&sp.m);
	__atomic_store_n(&sp.waiting, 1, __ATOMIC_RELEASE);
	while (sp.tokens == 0)
		pthread_cond_wait(&sp.c, &sp.m);
	sp.tokens--;
	sp.took = 1;
	pthread_cleanup_pop(1);
	return (void *)1L;
}

START_TEST(cancel_during_spin_acts_inside_the_wait)
{
	int64_t end;
	pthread_t a;
	void *ra;

	if (harness_skip_under_asan("cancel_during_spin_acts_inside_the_wait"))
		return;
	for (int round = 0; round < SP_ROUNDS; round++) {
		memset(&sp, 0, sizeof(sp));
		sp.handler_rc = -1;
		init_mutex(&sp.m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PROCESS_PRIVATE);
		ck_assert_int_eq(pthread_cond_init(&sp.c, NULL), 0);
		ck_assert_int_eq(pthread_create(&a, NULL, sp_waiter, NULL), 0);
		end = harness_now_ns(CLOCK_MONOTONIC) + 5000 * MS;
		while (!__atomic_load_n(&sp.waiting, __ATOMIC_ACQUIRE))
			ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end, "never waited");
		ck_assert_int_eq(pthread_cancel(a), 0);
		pthread_mutex_lock(&sp.m); /* the waiter is inside its wait */
		sp.tokens = 1;
		ck_assert_int_eq(pthread_cond_signal(&sp.c), 0);
		pthread_mutex_unlock(&sp.m);
		ra = harness_join(a, 5);
		ck_assert_msg(ra == PTHREAD_CANCELED,
			      "round %d: the wait returned (%p), took %d: the request "
			      "made during the wait was not acted on", round, ra, sp.took);
		ck_assert_int_eq(sp.handler_rc, 0); /* it held the mutex */
		ck_assert_int_eq(sp.took, 0);
		ck_assert_int_eq(sp.tokens, 1);
		ck_assert_int_eq(pthread_cond_destroy(&sp.c), 0);
		ck_assert_int_eq(pthread_mutex_destroy(&sp.m), 0);
	}
}
END_TEST

/* A cancelled thread's cleanup handler may wait on a condition: the wait
 * returns (a timeout here) and the thread finishes exiting. */
static pthread_mutex_t ch_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ch_c = PTHREAD_COND_INITIALIZER;
static int ch_rc;

static void ch_handler(void *arg)
{
	struct timespec dl = harness_deadline(CLOCK_REALTIME, 20);

	(void)arg;
	pthread_mutex_lock(&ch_m);
	ch_rc = pthread_cond_timedwait(&ch_c, &ch_m, &dl);
	pthread_mutex_unlock(&ch_m);
}

START_TEST(cleanup_handler_waits_after_cancel)
{
	if (harness_skip_under_asan("cleanup_handler_waits_after_cancel"))
		return;
	ch_rc = -1;
	ck_assert_ptr_eq(harness_cancel_looping(ch_handler, NULL, 5), PTHREAD_CANCELED);
	ck_assert_int_eq(ch_rc, ETIMEDOUT);
}
END_TEST

/* ==== 10. destroy ==== */
START_TEST(destroy_no_waiters)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec dl;

	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
	ck_assert_int_eq(pthread_cond_init(&c, NULL), 0);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
	init_cond(&c, CLOCK_MONOTONIC, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_signal(&c), 0);
	ck_assert_int_eq(pthread_cond_broadcast(&c), 0);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
	/* after a wait that timed out, nobody is blocked */
	ck_assert_int_eq(pthread_cond_init(&c, NULL), 0);
	pthread_mutex_lock(&m);
	dl = harness_deadline(CLOCK_REALTIME, 10);
	while (pthread_cond_timedwait(&c, &m, &dl) == 0)
		;
	pthread_mutex_unlock(&m);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
	init_cond(&c, CLOCK_REALTIME, PTHREAD_PROCESS_SHARED);
	ck_assert_int_eq(pthread_cond_destroy(&c), 0);
}
END_TEST

/* POSIX (pthread_cond_destroy, APPLICATION USAGE / example): a cond may be
 * destroyed as soon as all the threads blocked on it have been woken, even
 * before they have re-acquired the mutex. */
enum { DB_N = 4 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t *c;
	int waiting, go;
} db;

static void *db_waiter(void *arg)
{
	pthread_cond_t *c = db.c;

	(void)arg;
	pthread_mutex_lock(&db.m);
	db.waiting++;
	while (!db.go)
		if (pthread_cond_wait(c, &db.m))
			return (void *)2;
	pthread_mutex_unlock(&db.m);
	return NULL;
}

START_TEST(destroy_right_after_broadcast)
{
	pthread_t t[DB_N];
	int i, round;

	init_mutex(&db.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	for (round = 0; round < 20; round++) {
		pthread_t d;

		db.c = malloc(sizeof(*db.c));
		ck_assert_ptr_nonnull(db.c);
		ck_assert_int_eq(pthread_cond_init(db.c, NULL), 0);
		db.waiting = db.go = 0;
		for (i = 0; i < DB_N; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, db_waiter, NULL), 0);
		ck_assert_msg(POLL_UNTIL(&db.m, db.waiting == DB_N, 5000), "never waited");
		pthread_mutex_lock(&db.m);
		db.go = 1;
		ck_assert_int_eq(pthread_cond_broadcast(db.c), 0);
		if (round & 1)
			pthread_mutex_unlock(&db.m);
		/* in a thread, so a destroy that never returns is reported */
		ck_assert_int_eq(pthread_create(&d, NULL, destroy_thread, db.c), 0);
		if (!(round & 1)) {
			usleep(1000);
			pthread_mutex_unlock(&db.m);
		}
		ck_assert_int_eq((long)harness_join(d, 5), 0);
		memset(db.c, 0xff, sizeof(*db.c)); /* it is gone: scribble */
		for (i = 0; i < DB_N; i++)
			ck_assert_ptr_null(harness_join(t[i], 5));
		free(db.c);
	}
}
END_TEST


/* ==== 11. sleepers are counted out by their waker ==== */
/* sleepers (tests/private.h): the waiters in futex_wait that no wake-up
 * has taken off the futex queue yet. */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int tid[4], waiting, go, done, timed;
	struct timespec dl; /* the timed waiters' deadline */
} co;

static void *co_waiter(void *arg)
{
	int i = (int)(long)arg, r = 0;

	pthread_mutex_lock(&co.m);
	co.tid[i] = (int)syscall(SYS_gettid);
	co.waiting++;
	while (!co.go && r == 0) {
		if (co.timed) {
			r = pthread_cond_timedwait(&co.c, &co.m, &co.dl);
		} else {
			r = pthread_cond_wait(&co.c, &co.m);
		}
	}
	co.done++;
	pthread_mutex_unlock(&co.m);
	return (void *)(long)r;
}

static void co_start(pthread_t *t, int n, int timed)
{
	memset(&co, 0, sizeof(co));
	init_mutex(&co.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&co.c, NULL), 0);
	co.timed = timed;
	co.dl = harness_deadline(CLOCK_REALTIME, 2000);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, co_waiter, (void *)(long)i), 0);
	ck_assert_msg(POLL_UNTIL(&co.m, co.waiting == n, 5000), "waiters never started");
	for (int i = 0; i < n; i++)
		harness_wait_asleep(co.tid[i], 5);
}

/* A broadcast sent by a thread that does not hold the mutex (the
 * holder's waits for its unlock, thr_cond.c Deferred wake-ups), while the
 * test holds it. */
static void *co_broadcaster(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_cond_broadcast(&co.c);
}

static void co_broadcast_from_another_thread(void)
{
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, co_broadcaster, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 5));
}

/* A producer that signals again and again while the consumer it woke has
 * not run yet (here: it waits for the mutex we hold) must find no sleeper
 * left to wake, so that those signals make no system call. */
START_TEST(signal_counts_out_the_sleeper_it_woke)
{
	pthread_t t;

	co_start(&t, 1, 0);
	pthread_mutex_lock(&co.m);
	ck_assert_int_eq(priv_cond_sleepers(&co.c), 1);
	co.go = 1;
	ck_assert_int_eq(pthread_cond_signal(&co.c), 0);
	ck_assert_msg(priv_cond_sleepers(&co.c) == 0,
		      "the signal woke the only sleeper but left sleepers at %d",
		      priv_cond_sleepers(&co.c));
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(pthread_cond_signal(&co.c), 0);
	ck_assert_int_eq(priv_cond_sleepers(&co.c), 0);
	pthread_mutex_unlock(&co.m);
	ck_assert_ptr_null(harness_join(t, 5));
	ck_assert_int_eq(co.done, 1);
	ck_assert_int_eq(pthread_cond_destroy(&co.c), 0);
}
END_TEST

/* Sleepers a broadcast woke wait for the mutex past their deadline (we
 * hold it): the broadcast counted them out, so they must not count
 * themselves out again (sleepers would go below the truth, and a later
 * signal would find "nobody" asleep next to a real sleeper). Afterwards
 * one signal still wakes one new sleeper. */
START_TEST(woken_sleepers_that_time_out_are_counted_once)
{
	pthread_t t[4];
	int64_t t0;

	co_start(t, 4, 1);
	pthread_mutex_lock(&co.m);
	ck_assert_int_eq(priv_cond_sleepers(&co.c), 4);
	co.go = 1;
	co_broadcast_from_another_thread();
	ck_assert_int_eq(priv_cond_sleepers(&co.c), 0);
	/* past the waiters' deadline, waiting for the mutex */
	while (harness_now_ns(CLOCK_REALTIME) < ts_ns(&co.dl) + 300 * 1000000LL)
		usleep(10000);
	pthread_mutex_unlock(&co.m);
	for (int i = 0; i < 4; i++) {
		void *r = harness_join(t[i], 5);

		/* seq moved before the deadline: 0, not ETIMEDOUT */
		ck_assert_ptr_null(r);
	}
	ck_assert_int_eq(co.done, 4);
	ck_assert_msg(priv_cond_sleepers(&co.c) == 0, "sleepers %d after all left",
		      priv_cond_sleepers(&co.c));
	/* a new sleeper, one signal */
	co.go = 0;
	co.timed = 0;
	co.waiting = 0;
	ck_assert_int_eq(pthread_create(&t[0], NULL, co_waiter, (void *)0L), 0);
	ck_assert_msg(POLL_UNTIL(&co.m, co.waiting == 1, 5000), "waiter never started");
	harness_wait_asleep(co.tid[0], 5);
	pthread_mutex_lock(&co.m);
	co.go = 1;
	ck_assert_int_eq(pthread_cond_signal(&co.c), 0);
	pthread_mutex_unlock(&co.m);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	while (!POLL_UNTIL(&co.m, co.done == 5, 100) &&
	       harness_now_ns(CLOCK_MONOTONIC) - t0 < NS)
		;
	ck_assert_msg(POLL_UNTIL(&co.m, co.done == 5, 100),
		      "the signal did not wake the new sleeper (sleepers %d)",
		      priv_cond_sleepers(&co.c));
	ck_assert_ptr_null(harness_join(t[0], 5));
	ck_assert_int_eq(pthread_cond_destroy(&co.c), 0);
}
END_TEST

/* sleepers stays exact under a stream of broadcasts, and through the
 * kernel's restarts of interrupted waits. DR_THREADS threads take turns:
 * each bumps gen, broadcasts, and waits until the others have bumped it
 * DR_THREADS - 1 times (so up to DR_THREADS - 1 wait at once, and one
 * always runs); with _i == 1 another thread sends them a signal whose
 * handler has SA_RESTART every 100 us, so sleeping waits are interrupted
 * and restarted by the kernel (compare seq again: EAGAIN, or asleep
 * again, still counted). Once they are gone, sleepers must be 0: nothing
 * here times out or is cancelled. The old requeueing protocol (a
 * broadcast requeued sleepers onto the mutex, and a waiter
 * whose wait returned EAGAIN while a requeue was under way stayed
 * counted, not knowing whether it had been moved) left 29-249 here, and
 * about 290 after a Ruby Thread.pass run (verify/README.md, real bug 6). */
enum { DR_THREADS = 4 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	long gen;
	int stop;
	int kicking;	   /* atomic: the kicker runs while it is set */
	long kicks, handled; /* atomic */
} dr;

static void dr_handler(int sig)
{
	(void)sig;
	__atomic_fetch_add(&dr.handled, 1, __ATOMIC_RELAXED);
}

static void *dr_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&dr.m);
	while (!dr.stop) {
		long my = ++dr.gen;

		pthread_cond_broadcast(&dr.c);
		while (dr.gen < my + DR_THREADS - 1 && !dr.stop)
			pthread_cond_wait(&dr.c, &dr.m);
	}
	pthread_mutex_unlock(&dr.m);
	return NULL;
}

static void *dr_kicker(void *arg)
{
	pthread_t *t = arg;

	while (__atomic_load_n(&dr.kicking, __ATOMIC_RELAXED)) {
		for (int i = 0; i < DR_THREADS; i++)
			if (pthread_kill(t[i], SIGUSR1) == 0)
				__atomic_fetch_add(&dr.kicks, 1, __ATOMIC_RELAXED);
		usleep(100);
	}
	return NULL;
}

START_TEST(sleepers_stay_exact)
{
	pthread_t t[DR_THREADS], k;
	struct sigaction sa, old;
	long gen;
	int i, left;

	memset(&dr, 0, sizeof(dr));
	init_mutex(&dr.m, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&dr.c, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = dr_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0);
	for (i = 0; i < DR_THREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, dr_thread, NULL), 0);
	__atomic_store_n(&dr.kicking, _i, __ATOMIC_RELAXED);
	if (_i)
		ck_assert_int_eq(pthread_create(&k, NULL, dr_kicker, t), 0);
	usleep(500000);
	if (_i) {
		__atomic_store_n(&dr.kicking, 0, __ATOMIC_RELAXED);
		ck_assert_ptr_null(harness_join(k, 10));
	}
	pthread_mutex_lock(&dr.m);
	dr.stop = 1;
	gen = dr.gen;
	ck_assert_int_eq(pthread_cond_broadcast(&dr.c), 0);
	pthread_mutex_unlock(&dr.m);
	for (i = 0; i < DR_THREADS; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_int_eq(sigaction(SIGUSR1, &old, NULL), 0);
	left = priv_cond_sleepers(&dr.c);
	ck_assert_msg(gen > 100, "only %ld turns in 0.5 s", gen);
	if (_i)
		ck_assert_msg(__atomic_load_n(&dr.handled, __ATOMIC_RELAXED) > 100,
			      "only %ld of %ld signals handled",
			      __atomic_load_n(&dr.handled, __ATOMIC_RELAXED),
			      __atomic_load_n(&dr.kicks, __ATOMIC_RELAXED));
	ck_assert_msg(left == 0, "sleepers %d with nobody waiting, after %ld broadcasts",
		      left, gen);
	ck_assert_int_eq(pthread_cond_destroy(&dr.c), 0);
}
END_TEST

/* Each signal wakes a sleeper of its own: n sleepers, all asleep, get n
 * signals back to back (loop 0: under the mutex; 1: without it; 2: half of
 * the sleepers in timed waits). The first wakes one sleeper, the others
 * find it on its way back and leave their wake-ups to it, and each sleeper
 * so woken wakes the next one owed (thr_cond.c, One wake-up in flight): all
 * n must come back, with no further signal, and leave the cond's wake
 * word clear. */
enum { ES_SLEEPERS = 8 };
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int woke;
} es;

static void *es_waiter(void *arg)
{
	int r;

	pthread_mutex_lock(&es.m);
	if (arg) {
		struct timespec dl = harness_deadline(CLOCK_REALTIME, 30000);

		r = pthread_cond_timedwait(&es.c, &es.m, &dl);
	} else {
		r = pthread_cond_wait(&es.c, &es.m);
	}
	es.woke++;
	pthread_mutex_unlock(&es.m);
	return (void *)(long)r;
}

START_TEST(each_signal_wakes_a_sleeper_of_its_own)
{
	pthread_t t[ES_SLEEPERS];
	int i;

	ck_assert_int_eq(pthread_mutex_init(&es.m, NULL), 0);
	ck_assert_int_eq(pthread_cond_init(&es.c, NULL), 0);
	es.woke = 0;
	for (i = 0; i < ES_SLEEPERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, es_waiter,
						(void *)(long)(_i == 2 && (i & 1))), 0);
	for (i = 0; i < 5000 && priv_cond_sleepers(&es.c) < ES_SLEEPERS; i++)
		usleep(1000);
	ck_assert_msg(priv_cond_sleepers(&es.c) == ES_SLEEPERS, "only %d of %d asleep after 5 s",
		      priv_cond_sleepers(&es.c), ES_SLEEPERS);
	if (_i != 1)
		pthread_mutex_lock(&es.m);
	for (i = 0; i < ES_SLEEPERS; i++)
		ck_assert_int_eq(pthread_cond_signal(&es.c), 0);
	if (_i != 1)
		pthread_mutex_unlock(&es.m);
	for (i = 0; i < ES_SLEEPERS; i++)
		ck_assert_msg(harness_join(t[i], 10) == NULL,
			      "sleeper %d: not back 10 s after %d signals, or its wait failed", i,
			      ES_SLEEPERS);
	ck_assert_int_eq(es.woke, ES_SLEEPERS);
	ck_assert_int_eq(priv_cond_sleepers(&es.c), 0);
	ck_assert_msg(priv_cond_wake(&es.c) == 0, "wake word %#x with nobody waiting",
		      priv_cond_wake(&es.c));
	ck_assert_int_eq(pthread_cond_destroy(&es.c), 0);
}
END_TEST

/* No spurious wake-up from a signal handler (glibc's guarantee, its
 * tst-eintr5): a thread sends the waiter a handled, do-nothing signal in a
 * loop, FL_FLOOD_MS long, while it waits on a condition nobody signals. A
 * timed wait whose deadline lies past the flood returns ETIMEDOUT, never 0
 * (a deadline makes the kernel end the futex wait with EINTR, SA_RESTART or
 * not); an untimed one returns only once it is signalled, after a second
 * flood. Then no sleeper is left counted. _i: bit 0 SA_RESTART, bit 1
 * pthread_cond_clockwait (monotonic) for the timed wait. */
#define FL_FLOOD_MS 300

static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int phase, sent, clock, timed_zero, timed_r, untimed_early;
} fl;
static int fl_handled;

static void fl_handler(int sig)
{
	(void)sig;
	__atomic_add_fetch(&fl_handled, 1, __ATOMIC_RELAXED);
}

static void *fl_waiter(void *arg)
{
	struct timespec dl;
	int r;

	(void)arg;
	pthread_mutex_lock(&fl.m);
	dl = deadline_us(fl.clock ? CLOCK_MONOTONIC : CLOCK_REALTIME,
			 (FL_FLOOD_MS + 500) * 1000L);
	fl.phase = 1;
	while ((r = fl.clock ? pthread_cond_clockwait(&fl.c, &fl.m, CLOCK_MONOTONIC, &dl)
			     : pthread_cond_timedwait(&fl.c, &fl.m, &dl)) == 0)
		fl.timed_zero++;
	fl.timed_r = r;
	fl.phase = 2;
	ck_assert_int_eq(pthread_cond_wait(&fl.c, &fl.m), 0);
	fl.untimed_early = !fl.sent;
	while (!fl.sent)
		pthread_cond_wait(&fl.c, &fl.m);
	pthread_mutex_unlock(&fl.m);
	return NULL;
}

static void fl_flood(pthread_t t)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + FL_FLOOD_MS * MS;

	while (harness_now_ns(CLOCK_MONOTONIC) < end) {
		ck_assert_int_eq(pthread_kill(t, SIGUSR1), 0);
		usleep(100);
	}
}

static int fl_phase(void)
{
	int p;

	pthread_mutex_lock(&fl.m);
	p = fl.phase;
	pthread_mutex_unlock(&fl.m);
	return p;
}

START_TEST(handled_signals_wake_no_waiter)
{
	struct sigaction sa;
	pthread_t t;
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 10 * NS;

	memset(&fl, 0, sizeof(fl));
	pthread_mutex_init(&fl.m, NULL);
	pthread_cond_init(&fl.c, NULL);
	fl.clock = _i & 2;
	fl_handled = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fl_handler;
	sa.sa_flags = (_i & 1) ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, fl_waiter, NULL), 0);
	while (fl_phase() < 1) {
		ck_assert(harness_now_ns(CLOCK_MONOTONIC) < end);
		usleep(1000);
	}
	fl_flood(t);
	while (fl_phase() < 2) {
		ck_assert(harness_now_ns(CLOCK_MONOTONIC) < end);
		usleep(1000);
	}
	fl_flood(t);
	pthread_mutex_lock(&fl.m);
	fl.sent = 1;
	ck_assert_int_eq(pthread_cond_signal(&fl.c), 0);
	pthread_mutex_unlock(&fl.m);
	ck_assert_ptr_null(harness_join(t, 5));
	ck_assert_msg(fl.timed_zero == 0 && fl.timed_r == ETIMEDOUT && !fl.untimed_early,
		      "%s returned 0 %d times unsignalled, then %d; pthread_cond_wait "
		      "returned %s (%d signals handled)",
		      fl.clock ? "pthread_cond_clockwait" : "pthread_cond_timedwait",
		      fl.timed_zero, fl.timed_r,
		      fl.untimed_early ? "0 unsignalled" : "once signalled", fl_handled);
	ck_assert_int_gt(fl_handled, 0);
	ck_assert_int_eq(priv_cond_sleepers(&fl.c), 0);
	ck_assert_int_eq(pthread_cond_destroy(&fl.c), 0);
}
END_TEST

/* A producer that never waits signals its one consumer once per item, and
 * spends BATCH_GAP_NS outside the mutex on each, the two threads on a cpu
 * each: fthr's consumer notices that the signaller runs free and lets the
 * items pile up while it sleeps or naps (thr_cond.c, "Does a spin pay?",
 * cond_batch_woken). Checked here: every item is taken, every wait
 * returns 0. How many items a wake-up takes is a measure, not a
 * pass/fail: bench/run.sh's "batch" row (docs/performance.md, Condition
 * variables). */
enum { BATCH_ITEMS = 100000, BATCH_GAP_NS = 100 };
static pthread_mutex_t bt_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bt_c = PTHREAD_COND_INITIALIZER;
static long bt_produced;

/* Pins the calling thread to the n-th cpu of set. */
static void pin_to_nth(const cpu_set_t *set, int n)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, set) && n-- == 0) {
			CPU_SET(cpu, &one);
			break;
		}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}

/* Keeps the calling thread's cpus in *set and pins it to the first; false
 * (test skipped, and said so) with fewer than two. */
static bool pin_first_of_two(cpu_set_t *set, const char *test)
{
	ck_assert_int_eq(sched_getaffinity(0, sizeof(*set), set), 0);
	if (CPU_COUNT(set) < 2) {
		fprintf(stderr, "%s: one cpu, skipped\n", test);
		return false;
	}
	pin_to_nth(set, 0);
	return true;
}

static void *bt_producer(void *arg)
{
	pin_to_nth(arg, 1);
	for (long i = 0; i < BATCH_ITEMS; i++) {
		pthread_mutex_lock(&bt_m);
		bt_produced++;
		pthread_cond_signal(&bt_c);
		pthread_mutex_unlock(&bt_m);
		spin_ns(BATCH_GAP_NS);
	}
	return NULL;
}

/* One run, the calling thread the consumer. */
static void bt_run(cpu_set_t *cpus)
{
	long consumed = 0, wakes = 0;
	pthread_t t;

	pthread_mutex_lock(&bt_m);
	bt_produced = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, bt_producer, cpus), 0);
	while (consumed < BATCH_ITEMS) {
		while (bt_produced == consumed)
			ck_assert_int_eq(pthread_cond_wait(&bt_c, &bt_m), 0);
		wakes++;
		ck_assert_int_le(bt_produced, BATCH_ITEMS);
		consumed = bt_produced;
	}
	pthread_mutex_unlock(&bt_m);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(consumed, BATCH_ITEMS);
	ck_assert_int_eq(bt_produced, BATCH_ITEMS);
	ck_assert(wakes >= 1 && wakes <= BATCH_ITEMS);
}

/* A signaller that holds the mutex a while after its signal (signal under
 * the mutex): the woken waiter finds the mutex held, yields (thr_mutex.c,
 * cond_relock_yield) and looks again, and must still return only with the
 * mutex its own, once, after the signaller let go. The hold is long (past
 * the yield; _i < 8) or random, up to about a wake-up's latency (the
 * waiter finds it ended, or it ends during the yield or the spin); both
 * threads on one cpu (_i odd: the waiter is woken onto its signaller's
 * cpu) or free; every mutex type, each locked once (a recursive mutex
 * locked twice stays held through a glibc wait, and ThreadSanitizer models
 * it so). */
#define HS_ROUNDS 200
#define HS_HOLD_NS 50000
#define HS_RANDOM_NS 100000
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	volatile int turn;	/* 1: the waiter waits; 2: signalled */
	volatile int holding;	/* the signaller holds m after its signal */
	volatile int early;	/* waits that returned while it held m */
	int random_hold;	/* hold a random 0-HS_RANDOM_NS ns, not HS_HOLD_NS */
} hs;

static void *hs_signaller(void *arg)
{
	unsigned seed = 12345;

	for (int i = 0; i < HS_ROUNDS; i++) {
		pthread_mutex_lock(&hs.m);
		while (hs.turn != 1) {
			pthread_mutex_unlock(&hs.m);
			sched_yield();
			pthread_mutex_lock(&hs.m);
		}
		hs.turn = 2;
		if (pthread_cond_signal(&hs.c))
			return (void *)1;
		hs.holding = 1;
		spin_ns(hs.random_hold ? (int64_t)(rnd(&seed) % HS_RANDOM_NS) : HS_HOLD_NS);
		hs.holding = 0;
		pthread_mutex_unlock(&hs.m);
	}
	(void)arg;
	return NULL;
}

START_TEST(woken_waiter_waits_for_a_signaller_that_holds_the_mutex)
{
	static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
				     PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_ADAPTIVE_NP };
	int type = types[_i / 2 % 4];
	cpu_set_t cpus;
	pthread_t t;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	if (_i % 2)
		pin_to_nth(&cpus, 0);
	hs.random_hold = _i >= 8;
	init_mutex(&hs.m, type, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_cond_init(&hs.c, NULL), 0);
	hs.turn = hs.holding = hs.early = 0;
	ck_assert_int_eq(pthread_mutex_lock(&hs.m), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, hs_signaller, NULL), 0);
	for (int i = 0; i < HS_ROUNDS; i++) {
		hs.turn = 1;
		while (hs.turn != 2)
			ck_assert_int_eq(pthread_cond_wait(&hs.c, &hs.m), 0);
		if (hs.holding)
			hs.early++;
	}
	check_held_once(&hs.m, type);
	ck_assert_ptr_null(harness_join(t, 30));
	ck_assert_int_eq(hs.early, 0);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
	ck_assert_int_eq(pthread_cond_destroy(&hs.c), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&hs.m), 0);
}
END_TEST

/* The same, on a fresh monitor per round (HotSpot's thread start; the
 * condition variable is young, thr_cond.c: A hand-shake, so the woken
 * sleeper re-takes the mutex as a plain lock, without the yield): the new
 * thread broadcasts "initialized" and holds the mutex a while, then waits
 * to be started; its creator, woken to that held mutex, sets "started",
 * signals and holds the mutex a while in turn. Each side's wait must
 * return with the mutex its own, after the other let go, every round. */
#define YH_ROUNDS 100
#define YH_HOLD_NS 30000
struct yh {
	pthread_mutex_t m;
	pthread_cond_t c;
	int state;	   /* 0 created, 1 initialized, 2 started */
	int holding;	   /* a side holds m after its wake-up call */
	int early;	   /* waits that returned while the other held m */
	int started;	   /* the thread's wait returned to state 2 */
};

static void *yh_thread(void *arg)
{
	struct yh *y = arg;

	pthread_mutex_lock(&y->m);
	y->state = 1;
	if (pthread_cond_broadcast(&y->c))
		return (void *)1;
	y->holding = 1;
	spin_ns(YH_HOLD_NS);
	y->holding = 0;
	while (y->state == 1)
		if (pthread_cond_wait(&y->c, &y->m))
			return (void *)2;
	if (y->holding)
		y->early++;
	y->started = y->state == 2;
	pthread_mutex_unlock(&y->m);
	return NULL;
}

START_TEST(young_cond_handshake_waits_for_the_holder)
{
	cpu_set_t cpus;
	int early = 0, started = 0;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	if (_i % 2)
		pin_to_nth(&cpus, 0);
	for (int i = 0; i < YH_ROUNDS; i++) {
		struct yh y = { .state = 0 };
		pthread_t t;

		ck_assert_int_eq(pthread_mutex_init(&y.m, NULL), 0);
		ck_assert_int_eq(pthread_cond_init(&y.c, NULL), 0);
		ck_assert_int_eq(pthread_mutex_lock(&y.m), 0);
		ck_assert_int_eq(pthread_create(&t, NULL, yh_thread, &y), 0);
		while (y.state == 0)
			ck_assert_int_eq(pthread_cond_wait(&y.c, &y.m), 0);
		if (y.holding)
			early++;
		y.state = 2;
		ck_assert_int_eq(pthread_cond_signal(&y.c), 0);
		y.holding = 1;
		spin_ns(YH_HOLD_NS);
		y.holding = 0;
		ck_assert_int_eq(pthread_mutex_unlock(&y.m), 0);
		ck_assert_ptr_null(harness_join(t, 30));
		early += y.early;
		started += y.started;
		ck_assert_int_eq(y.state, 2);
		ck_assert_int_eq(pthread_mutex_trylock(&y.m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&y.m), 0);
		ck_assert_int_eq(pthread_cond_destroy(&y.c), 0);
		ck_assert_int_eq(pthread_mutex_destroy(&y.m), 0);
	}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
	ck_assert_int_eq(started, YH_ROUNDS);
	ck_assert_int_eq(early, 0);
}
END_TEST

/* ==== deferred wake-ups ==== */
/* A broadcast made by the thread that holds the waiters' mutex wakes them
 * at the holder's release of it (thr_cond.c, Deferred wake-ups): while
 * the holder keeps the mutex, the sleeper stays asleep on the condition's
 * word, not on the mutex's. The mutex kinds and the ways to release:
 * unlock (_i 0, 1 with a thousand signals and a broadcast after the
 * broadcast, which its one wake of all serves, 5 adaptive), a recursive
 * mutex held twice (2: the inner unlock keeps the wake-up back), a wait
 * on the same condition (3), and destroy before the unlock (4: destroy
 * must make the caller's own wake-ups, or wait for itself). */
static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int tid, go, done;
} dw;

static void *dw_waiter(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&dw.m))
		return (void *)1;
	__atomic_store_n(&dw.tid, (int)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (!dw.go)
		if (pthread_cond_wait(&dw.c, &dw.m))
			return (void *)2;
	dw.done = 1;
	return pthread_mutex_unlock(&dw.m) ? (void *)3 : NULL;
}

/* The futex word thread tid sleeps on (the first argument of the system
 * call it is blocked in), 0 if it runs or /proc does not say. */
static unsigned long blocked_on(int tid)
{
	char path[64];
	unsigned long nr, addr = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%lu %lx", &nr, &addr) != 2)
		addr = 0;
	fclose(f);
	return addr;
}

/* The waiter sleeps on the condition's word (not judged under qemu-user,
 * whose /proc shows the host's system calls). */
static void dw_assert_on_cond(unsigned long on, const char *when)
{
	if (harness_under_qemu())
		return;
	ck_assert_msg(on == (unsigned long)&dw.c,
		      "%s: the waiter sleeps on %#lx, not on the condition %p", when, on,
		      (void *)&dw.c);
}

START_TEST(holder_wakes_its_waiter_at_release)
{
	static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_NORMAL,
				     PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK,
				     PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ADAPTIVE_NP };
	unsigned long on[2];
	struct timespec dl;
	pthread_t t;
	int64_t end;
	int r[4];

	memset(&dw, 0, sizeof(dw));
	harness_mutex_init(&dw.m, types[_i], PTHREAD_PROCESS_PRIVATE, 0, 0);
	ck_assert_int_eq(pthread_cond_init(&dw.c, NULL), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, dw_waiter, NULL), 0);
	ck_assert(harness_wait_nonzero(&dw.tid, 10));
	end = harness_now_ns(CLOCK_MONOTONIC) + 10 * (int64_t)1000000000;
	while (!harness_under_qemu() && blocked_on(dw.tid) != (unsigned long)&dw.c) {
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end, "the waiter never slept");
		usleep(1000);
	}
	harness_wait_asleep(dw.tid, 10);
	/* (no ck_assert while the wake-up is deferred: Check's own mutex
	 * is released in each, and that is not ours) */
	r[0] = pthread_mutex_lock(&dw.m);
	r[1] = _i == 2 ? pthread_mutex_lock(&dw.m) : 0;
	dw.go = 1;
	r[2] = pthread_cond_broadcast(&dw.c);
	for (int k = 0; _i == 1 && k < 1000; k++)
		r[2] |= pthread_cond_signal(&dw.c);
	if (_i == 1)
		r[2] |= pthread_cond_broadcast(&dw.c);
	usleep(50000); /* time enough for a wake-up to run the waiter */
	on[0] = blocked_on(dw.tid);
	r[3] = _i == 2 ? pthread_mutex_unlock(&dw.m) : 0;
	usleep(_i == 2 ? 50000 : 0);
	on[1] = blocked_on(dw.tid);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(r[k], 0);
	dw_assert_on_cond(on[0], "broadcast, the mutex held");
	dw_assert_on_cond(on[1], "a recursive mutex still held once");
	if (_i == 3) {
		dl = harness_deadline(CLOCK_REALTIME, 100);
		ck_assert_int_eq(pthread_cond_timedwait(&dw.c, &dw.m, &dl), ETIMEDOUT);
		ck_assert_int_eq(dw.done, 1); /* it ran while we waited */
	}
	if (_i == 4)
		ck_assert_int_eq(pthread_cond_destroy(&dw.c), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&dw.m), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(dw.done, 1);
	if (_i != 4)
		ck_assert_int_eq(pthread_cond_destroy(&dw.c), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&dw.m), 0);
}
END_TEST

/* The waiter frees the condition (and its mutex) as soon as it returns,
 * without destroying it, while its broadcaster may still be inside the
 * unlock that makes a deferred wake-up: that wake-up must be over before
 * any waiter can return (thr_cond.c, Deferred wake-ups). The waits are
 * plain, or timed with a deadline that may pass first (_i 1); the freed
 * memory is overwritten first, so that a late write by the broadcaster
 * shows (and ASan's build reports it). */
enum { FR_ROUNDS = 3000 };
struct fr_obj {
	pthread_mutex_t m;
	pthread_cond_t c;
	int flag;
};
static struct fr_obj *volatile fr_slot;
static int fr_stop;

static void *fr_broadcaster(void *arg)
{
	long bad = 0;

	(void)arg;
	while (!__atomic_load_n(&fr_stop, __ATOMIC_ACQUIRE)) {
		struct fr_obj *o = __atomic_exchange_n(&fr_slot, NULL, __ATOMIC_ACQ_REL);

		if (!o) {
			sched_yield();
			continue;
		}
		bad += pthread_mutex_lock(&o->m) != 0;
		o->flag = 1;
		bad += pthread_cond_broadcast(&o->c) != 0;
		bad += pthread_mutex_unlock(&o->m) != 0;
	}
	return (void *)bad;
}

START_TEST(waiter_frees_the_condition_at_return)
{
	pthread_t t;
	int bad = 0;

	__atomic_store_n(&fr_stop, 0, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_create(&t, NULL, fr_broadcaster, NULL), 0);
	for (int i = 0; i < FR_ROUNDS; i++) {
		struct fr_obj *o = malloc(sizeof(*o));
		struct timespec dl;
		int r;

		ck_assert_ptr_nonnull(o);
		pthread_mutex_init(&o->m, NULL);
		pthread_cond_init(&o->c, NULL);
		o->flag = 0;
		pthread_mutex_lock(&o->m);
		__atomic_store_n(&fr_slot, o, __ATOMIC_RELEASE);
		while (!o->flag) {
			if (_i == 1 && i % 2) {
				dl = harness_deadline(CLOCK_REALTIME, i % 3);
				r = pthread_cond_timedwait(&o->c, &o->m, &dl);
				bad += r != 0 && r != ETIMEDOUT;
			} else {
				bad += pthread_cond_wait(&o->c, &o->m) != 0;
			}
		}
		pthread_mutex_unlock(&o->m);
		memset(o, 0x55, sizeof(*o));
		free(o);
	}
	__atomic_store_n(&fr_stop, 1, __ATOMIC_RELEASE);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(bad, 0);
}
END_TEST

START_TEST(free_running_signaller_loses_no_item)
{
	cpu_set_t cpus;

	if (!pin_first_of_two(&cpus, "free_running_signaller_loses_no_item"))
		return;
	bt_run(&cpus);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
}
END_TEST

/* A bounded queue, one producer and one consumer, a cpu each: both wait,
 * on two conditions of one mutex. The consumer batches (the producer
 * signals each item, and runs on while the queue has room), and its
 * futex_wait finds a signal already sent now and then, where a batching
 * waiter may nap (cond_batch_woken) while the producer has filled the
 * queue and waits on "not full". Checked here, with untimed waits and
 * with timed ones (which never nap): every item goes through and every
 * wait returns 0. Whether naps stall the producer, the untimed run's time
 * over the timed one's, is a measure: bench/run.sh's "queue_stall" row
 * (docs/performance.md, Condition variables). */
enum { BQ_CAP = 64, BQ_ITEMS = 200000 };
static pthread_mutex_t bq_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bq_notempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t bq_notfull = PTHREAD_COND_INITIALIZER;
static long bq_head, bq_tail;
static bool bq_timed;
static struct timespec bq_far;
static cpu_set_t bq_cpus;

/* the waits of a run: timed (never nap) or not */
static void bq_wait(pthread_cond_t *c)
{
	ck_assert_int_eq(bq_timed ? pthread_cond_timedwait(c, &bq_m, &bq_far)
				  : pthread_cond_wait(c, &bq_m), 0);
}

static void *bq_producer(void *arg)
{
	(void)arg;
	pin_to_nth(&bq_cpus, 1);
	pthread_mutex_lock(&bq_m);
	for (long i = 0; i < BQ_ITEMS; i++) {
		while (bq_tail - bq_head == BQ_CAP)
			bq_wait(&bq_notfull);
		bq_tail++;
		pthread_cond_signal(&bq_notempty);
		pthread_mutex_unlock(&bq_m);
		pthread_mutex_lock(&bq_m);
	}
	pthread_mutex_unlock(&bq_m);
	return NULL;
}

/* One run, its waits timed or not. */
static void bq_run(bool timed)
{
	pthread_t t;

	clock_gettime(CLOCK_REALTIME, &bq_far);
	bq_far.tv_sec += 60;
	bq_timed = timed;
	bq_head = bq_tail = 0;
	pthread_mutex_lock(&bq_m);
	ck_assert_int_eq(pthread_create(&t, NULL, bq_producer, NULL), 0);
	while (bq_head < BQ_ITEMS) {
		while (bq_tail == bq_head)
			bq_wait(&bq_notempty);
		bq_head++;
		pthread_cond_signal(&bq_notfull);
		pthread_mutex_unlock(&bq_m);
		pthread_mutex_lock(&bq_m);
	}
	pthread_mutex_unlock(&bq_m);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(bq_tail, BQ_ITEMS);
}

START_TEST(bounded_queue_waiting_both_ways_loses_no_item)
{
	if (!pin_first_of_two(&bq_cpus, "bounded_queue_waiting_both_ways_loses_no_item"))
		return;
	bq_run(false);
	bq_run(true);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(bq_cpus), &bq_cpus), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cond");
	TCase *tc;

	tc = harness_tcase(s, "attr", 10);
	tcase_add_test(tc, static_initializer);
	tcase_add_test(tc, init_null_and_attr);
	tcase_add_test(tc, condattr_clock);
	tcase_add_test(tc, condattr_pshared);
	tc = harness_tcase(s, "prodcons", 60);
	tcase_add_loop_test(tc, producer_consumer, 0, 4);
	tc = harness_tcase(s, "timed", 20);
	tcase_add_loop_test(tc, timedwait_on_attr_clock, 0, 2);
	tcase_add_loop_test(tc, clockwait_on_its_clock, 0, 2);
	tcase_add_test(tc, past_deadline_at_once);
	tcase_add_test(tc, timed_bad_input);
	tcase_add_test(tc, signal_without_waiters_is_not_remembered);
	tc = harness_tcase(s, "mutex-types", 60);
	tcase_add_loop_test(tc, each_mutex_type, PTHREAD_MUTEX_NORMAL,
			    PTHREAD_MUTEX_ADAPTIVE_NP + 1);
	tcase_add_loop_test(tc, eperm_when_not_owner, 0, 2);
	tc = harness_tcase(s, "lost-wakeup", 30);
	tcase_add_test(tc, lost_wakeup_stress);
	tc = harness_tcase(s, "ordering", 30);
	tcase_add_loop_test(tc, signal_not_taken_by_later_waiter, 0, 2);
	tcase_add_loop_test(tc, broadcast_wakes_all, 0, 4);
	tc = harness_tcase(s, "pshared", 30);
	tcase_add_loop_test(tc, pshared_fork, 0, 3);
	tc = harness_tcase(s, "cancel", 30);
	tcase_add_loop_test(tc, cancel_waiter_holds_mutex, 0, 3);
	tcase_add_loop_test(tc, cancel_does_not_swallow_signal, 0, 2);
	tcase_add_test(tc, late_sigcancel_acts_inside_the_wait);
	tcase_add_test(tc, cancel_during_spin_acts_inside_the_wait);
	tcase_add_test(tc, cleanup_handler_waits_after_cancel);
	tc = harness_tcase(s, "counts", 20);
	tcase_add_test(tc, signal_counts_out_the_sleeper_it_woke);
	tcase_add_loop_test(tc, sleepers_stay_exact, 0, 2);
	tcase_add_test(tc, woken_sleepers_that_time_out_are_counted_once);
	tcase_add_loop_test(tc, each_signal_wakes_a_sleeper_of_its_own, 0, 3);
	tc = harness_tcase(s, "signals", 30);
	tcase_add_loop_test(tc, handled_signals_wake_no_waiter, 0, 4);
	tc = harness_tcase(s, "relock", 30);
	tcase_add_loop_test(tc, woken_waiter_waits_for_a_signaller_that_holds_the_mutex, 0, 16);
	tcase_add_loop_test(tc, young_cond_handshake_waits_for_the_holder, 0, 2);
	tc = harness_tcase(s, "deferred", 30);
	tcase_add_loop_test(tc, holder_wakes_its_waiter_at_release, 0, 6);
	tcase_add_loop_test(tc, waiter_frees_the_condition_at_return, 0, 2);
	tc = harness_tcase(s, "batching", 30);
	tcase_add_test(tc, free_running_signaller_loses_no_item);
	tcase_add_test(tc, bounded_queue_waiting_both_ways_loses_no_item);
	tc = harness_tcase(s, "destroy", 20);
	tcase_add_test(tc, destroy_no_waiters);
	tcase_add_test(tc, destroy_right_after_broadcast);
	return harness_main(s);
}
