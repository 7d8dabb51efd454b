/* tests/t_sem.c: POSIX semaphores, unnamed and named, with the system
 * <semaphore.h>: values and errors, counting under contention, timeouts on
 * their clocks, signals (EINTR, sem_post in a handler), cancellation,
 * process-shared use across fork, and interoperation with a process that
 * runs plain glibc (tests/sem_peer). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "private.h"

/* A call that must fail with -1 and this errno. */
#define ASSERT_FAILS(call, err)                                               \
	do {                                                                  \
		int r_, e_;                                                   \
		errno = 0;                                                    \
		r_ = (call);                                                  \
		e_ = errno;                                                   \
		ck_assert_msg(r_ == -1 && e_ == (err),                        \
			      "%s returned %d, errno %d (%s); expected -1, %s", \
			      #call, r_, e_, strerror(e_), strerror(err));    \
	} while (0)

/* Every name and file in /dev/shm starts with fthr_t_sem_RUNNER_ (the Check
 * runner's pid): the runner removes whatever a failed or killed test left
 * there when the test case ends (an unchecked fixture runs in the runner). */
static int runner_pid;

static void leftovers_setup(void)
{
	runner_pid = (int)getpid();
}

static void leftovers_teardown(void)
{
	char p1[64], p2[64];
	struct dirent *e;
	DIR *d = opendir("/dev/shm");

	if (!d)
		return;
	snprintf(p1, sizeof(p1), "sem.fthr_t_sem_%d_", runner_pid);
	snprintf(p2, sizeof(p2), "fthr_t_sem_%d_", runner_pid);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, p1, strlen(p1)) == 0 ||
		    strncmp(e->d_name, p2, strlen(p2)) == 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static int val(sem_t *s)
{
	int v = -12345;

	ck_assert_int_eq(sem_getvalue(s, &v), 0);
	return v;
}

/* glibc's 64-bit layout (nptl struct new_sem): the value in the low 32 bits
 * of a 64-bit word, the number of waiters in the high 32, then the futex
 * "private" argument (0 for a process-private semaphore, FUTEX_PRIVATE_FLAG
 * for a shared one: glibc's LLL_PRIVATE/LLL_SHARED encoding). A glibc
 * process sharing a semaphore with fthr relies on all three (tests/private.h
 * reads them by lib/sem.h's struct, whose assertions pin glibc's offsets). */
#if defined(__GLIBC__) && SEM_64
#define GLIBC_SEM_LAYOUT 1
#endif

/* After every waiter has left, none may still be counted. */
static void assert_no_waiters(sem_t *s)
{
#ifdef GLIBC_SEM_LAYOUT
	ck_assert_msg(priv_sem_nwaiters(s) == 0,
		      "%u waiter(s) still counted in the semaphore word",
		      priv_sem_nwaiters(s));
#else
	(void)s;
#endif
}

/* ---- waiting, by each of the blocking calls ---- */
enum { OP_WAIT, OP_TIMED, OP_CLOCK, OP_CLOCK_RT, OP_TRY, NOPS };

/* 0 on success, else -1 with errno, like the calls themselves. Deadlines
 * are far enough away never to matter unless something is broken. */
static int do_wait(sem_t *s, int op, long ms)
{
	struct timespec dl;

	switch (op) {
	case OP_TIMED:
		dl = harness_deadline(CLOCK_REALTIME, ms);
		return sem_timedwait(s, &dl);
	case OP_CLOCK:
		dl = harness_deadline(CLOCK_MONOTONIC, ms);
		return sem_clockwait(s, CLOCK_MONOTONIC, &dl);
	case OP_CLOCK_RT:
		dl = harness_deadline(CLOCK_REALTIME, ms);
		return sem_clockwait(s, CLOCK_REALTIME, &dl);
	case OP_TRY: {
		int64_t end = harness_now_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
		int r;

		while ((r = sem_trywait(s)) != 0 && errno == EAGAIN &&
		       harness_now_ns(CLOCK_MONOTONIC) < end)
			sched_yield();
		return r;
	}
	default:
		return sem_wait(s);
	}
}

/* A thread's result: 0 for success, else the errno (never -1, which would
 * read as PTHREAD_CANCELED). */
static void *result(int r)
{
	return (void *)(intptr_t)(r == 0 ? 0 : (errno ? errno : 9999));
}
static long res(void *p)
{
	return (long)(intptr_t)p;
}

struct waiter {
	sem_t *s;
	int op;
	int started, done;
};

static void *waiter_fn(void *arg)
{
	struct waiter *w = arg;
	int r;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	r = do_wait(w->s, w->op, 30000);
	void *ret = result(r);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return ret;
}

static pthread_t start_waiter(struct waiter *w, sem_t *s, int op)
{
	pthread_t t;
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;

	w->s = s;
	w->op = op;
	w->started = w->done = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, waiter_fn, w), 0);
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE)) {
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "waiter thread did not start");
		usleep(1000);
	}
	return t;
}

static int ndone(struct waiter *w, int n)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		c += __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE);
	return c;
}

/* Wait (bounded) until exactly 'want' of the n waiters have returned. */
static void await_done(struct waiter *w, int n, int want)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;

	while (ndone(w, n) < want) {
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "only %d of %d expected waiters woke", ndone(w, n), want);
		usleep(1000);
	}
}

/* ==== 1. values and errors ==== */
START_TEST(init_value_trywait_post)
{
	sem_t s;

	ck_assert_int_eq(sem_init(&s, 0, 3), 0);
	ck_assert_int_eq(val(&s), 3);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(val(&s), 2);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(val(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ck_assert_int_eq(val(&s), 0);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), 2);
	ck_assert_int_eq(sem_wait(&s), 0); /* does not block */
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ck_assert_int_eq(sem_destroy(&s), 0);

	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ck_assert_int_eq(val(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ck_assert_int_eq(sem_destroy(&s), 0);

	/* pshared=1 in ordinary memory is allowed; it works in-process. */
	ck_assert_int_eq(sem_init(&s, 1, 1), 0);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(init_rejects_value_above_max)
{
	sem_t s;

	ASSERT_FAILS(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1), EINVAL);
	ASSERT_FAILS(sem_init(&s, 1, (unsigned)SEM_VALUE_MAX + 1), EINVAL);
	ASSERT_FAILS(sem_init(&s, 0, UINT_MAX), EINVAL);
	ck_assert_int_eq(sem_init(&s, 0, SEM_VALUE_MAX), 0);
	ck_assert_int_eq(val(&s), SEM_VALUE_MAX);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(post_at_max_overflows)
{
	sem_t s;

	ck_assert_int_eq(sem_init(&s, 0, SEM_VALUE_MAX), 0);
	ASSERT_FAILS(sem_post(&s), EOVERFLOW);
	ck_assert_int_eq(val(&s), SEM_VALUE_MAX);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(val(&s), SEM_VALUE_MAX - 1);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), SEM_VALUE_MAX);
	ASSERT_FAILS(sem_post(&s), EOVERFLOW);
	ck_assert_int_eq(val(&s), SEM_VALUE_MAX);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

/* ==== 10. destroy ==== */
static void *wait_and_return(void *arg)
{
	return result(sem_wait(arg));
}

START_TEST(destroy_unused)
{
	sem_t s;
	pthread_t t;

	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ck_assert_int_eq(sem_destroy(&s), 0);
	ck_assert_int_eq(sem_init(&s, 0, 2), 0);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(sem_destroy(&s), 0);
	ck_assert_int_eq(sem_init(&s, 1, 5), 0);
	ck_assert_int_eq(sem_destroy(&s), 0);

	/* A semaphore whose waiter has come and gone is unused again. */
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, wait_and_return, &s), 0);
	usleep(20000);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(res(harness_join(t, 10)), 0);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_int_eq(sem_destroy(&s), 0);

	/* and may be initialised again */
	ck_assert_int_eq(sem_init(&s, 0, 1), 0);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

#ifdef GLIBC_SEM_LAYOUT
START_TEST(glibc_word_layout)
{
	sem_t p, s, *n;
	struct waiter w[3];
	pthread_t t[3];
	char name[64];
	int i;
	int64_t end;

	ck_assert_int_eq(sem_init(&p, 0, 5), 0);
	ck_assert_uint_eq(priv_sem_data(&p), 5);
	ck_assert_int_eq(priv_sem_private(&p), 0);
	ck_assert_int_eq(sem_init(&s, 1, 2), 0);
	ck_assert_uint_eq(priv_sem_data(&s), 2);
	ck_assert_int_eq(priv_sem_private(&s), 128);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_uint_eq(priv_sem_data(&s), 3);

	snprintf(name, sizeof(name), "/fthr_t_sem_%d_%d_layout", runner_pid,
		 (int)getpid());
	n = sem_open(name, O_CREAT | O_EXCL, 0600, 4);
	ck_assert_msg(n != SEM_FAILED, "sem_open: %s", strerror(errno));
	sem_unlink(name);
	ck_assert_uint_eq(priv_sem_data(n), 4);
	ck_assert_int_eq(priv_sem_private(n), 128);
	ck_assert_int_eq(sem_close(n), 0);

	/* Sleepers are counted in the high half; the value stays 0. */
	ck_assert_int_eq(sem_init(&p, 0, 0), 0);
	for (i = 0; i < 3; i++)
		t[i] = start_waiter(&w[i], &p, i % 3);
	end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;
	while (priv_sem_nwaiters(&p) != 3) {
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "waiters counted: %u, expected 3", priv_sem_nwaiters(&p));
		usleep(1000);
	}
	ck_assert_uint_eq(priv_sem_data(&p), (uint64_t)3 << 32);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(sem_post(&p), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(res(harness_join(t[i], 10)), 0);
	ck_assert_uint_eq(priv_sem_data(&p), 0);
}
END_TEST
#endif

/* ==== 2. counting under contention ==== */
enum { PRODUCERS = 4, CONSUMERS = 3, PER_PRODUCER = 50000, PER_CONSUMER = 60000 };
static sem_t cs;
static int consumer_op;
static long cgot[CONSUMERS];

static void *producer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < PER_PRODUCER; i++) {
		if (sem_post(&cs) != 0)
			return result(-1);
		if ((i & 1023) == 0)
			sched_yield();
	}
	return NULL;
}

static void *consumer(void *arg)
{
	long *got = arg;
	int op = consumer_op == NOPS ? (int)(got - cgot) % NOPS : consumer_op;
	int i;

	for (i = 0; i < PER_CONSUMER; i++) {
		if (do_wait(&cs, op, 30000) != 0)
			return result(-1);
		(*got)++;
	}
	return NULL;
}

START_TEST(counting_producers_consumers)
{
	pthread_t p[PRODUCERS], c[CONSUMERS];
	long *got = cgot, total = 0;
	int i;

	/* _i: each blocking call, then (NOPS) a mix of all of them */
	consumer_op = _i;
	ck_assert_int_eq(sem_init(&cs, 0, 0), 0);
	for (i = 0; i < CONSUMERS; i++) {
		got[i] = 0;
		ck_assert_int_eq(pthread_create(&c[i], NULL, consumer, &got[i]), 0);
	}
	for (i = 0; i < PRODUCERS; i++)
		ck_assert_int_eq(pthread_create(&p[i], NULL, producer, NULL), 0);
	for (i = 0; i < PRODUCERS; i++)
		ck_assert_int_eq(res(harness_join(p[i], 60)), 0);
	for (i = 0; i < CONSUMERS; i++) {
		ck_assert_int_eq(res(harness_join(c[i], 60)), 0);
		ck_assert_int_eq(got[i], PER_CONSUMER);
		total += got[i];
	}
	ck_assert_int_eq(total, (long)CONSUMERS * PER_CONSUMER);
	ck_assert_int_eq(val(&cs), PRODUCERS * PER_PRODUCER - CONSUMERS * PER_CONSUMER);
	assert_no_waiters(&cs);
	for (i = 0; i < PRODUCERS * PER_PRODUCER - CONSUMERS * PER_CONSUMER; i++)
		ck_assert_int_eq(sem_trywait(&cs), 0);
	ASSERT_FAILS(sem_trywait(&cs), EAGAIN);
	ck_assert_int_eq(sem_destroy(&cs), 0);
}
END_TEST

/* Every post releases exactly one blocked waiter: none lost, none extra. */
START_TEST(post_wakes_one_waiter_each)
{
	enum { NW = 4 };
	static sem_t s;
	struct waiter w[NW];
	pthread_t t[NW];
	int i;

	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	for (i = 0; i < NW; i++)
		t[i] = start_waiter(&w[i], &s, (_i + i) % NOPS == OP_TRY ? OP_WAIT
								  : (_i + i) % NOPS);
	usleep(50000);
	ck_assert_int_eq(ndone(w, NW), 0);
	ck_assert_int_eq(val(&s), 0); /* Linux reports 0, not -waiters */

	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(sem_post(&s), 0);
	await_done(w, NW, 2);
	usleep(50000);
	ck_assert_int_eq(ndone(w, NW), 2);
	ck_assert_int_eq(val(&s), 0);

	ck_assert_int_eq(sem_post(&s), 0);
	await_done(w, NW, 3);
	usleep(20000);
	ck_assert_int_eq(ndone(w, NW), 3);
	ck_assert_int_eq(sem_post(&s), 0);
	for (i = 0; i < NW; i++)
		ck_assert_int_eq(res(harness_join(t[i], 10)), 0);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

/* Two threads handing a token back and forth: every round blocks. */
enum { TROUNDS = 20000 };
static sem_t ta, tb;

static void *ponger(void *arg)
{
	int i, op = (int)(intptr_t)arg;

	for (i = 0; i < TROUNDS; i++) {
		if (do_wait(&ta, op, 30000) != 0)
			return result(-1);
		if (sem_post(&tb) != 0)
			return result(-1);
	}
	return NULL;
}

START_TEST(pingpong_threads)
{
	pthread_t t;
	int i;

	ck_assert_int_eq(sem_init(&ta, 0, 0), 0);
	ck_assert_int_eq(sem_init(&tb, 0, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, ponger, (void *)(intptr_t)_i), 0);
	for (i = 0; i < TROUNDS; i++) {
		ck_assert_int_eq(sem_post(&ta), 0);
		ck_assert_msg(do_wait(&tb, OP_TIMED, 10000) == 0,
			      "round %d: pong not received: %s", i, strerror(errno));
	}
	ck_assert_int_eq(res(harness_join(t, 10)), 0);
	ck_assert_int_eq(val(&ta), 0);
	ck_assert_int_eq(val(&tb), 0);
	assert_no_waiters(&ta);
	assert_no_waiters(&tb);
}
END_TEST

/* ==== 3. timed waits ==== */
static int64_t ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

START_TEST(timeout_on_its_clock)
{
	/* _i: 0 sem_timedwait (REALTIME), 1 sem_clockwait MONOTONIC,
	 *     2 sem_clockwait REALTIME */
	clockid_t c = _i == 1 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	struct timespec dl = harness_deadline(c, 100);
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC), el;
	sem_t s;
	int r, e;

	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	errno = 0;
	r = _i == 0 ? sem_timedwait(&s, &dl) : sem_clockwait(&s, c, &dl);
	e = errno;
	el = harness_now_ns(CLOCK_MONOTONIC) - t0;
	ck_assert_msg(r == -1 && e == ETIMEDOUT, "returned %d, errno %s", r, strerror(e));
	ck_assert_msg(harness_now_ns(c) >= ts_ns(dl),
		      "returned before the deadline on its clock");
	ck_assert_msg(el >= 90000000LL, "returned after only %lld ns", (long long)el);
	ck_assert_msg(el < 5000000000LL, "took %lld ns", (long long)el);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	/* still a working semaphore */
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(past_deadline_at_once)
{
	struct timespec past = harness_deadline(CLOCK_REALTIME, -1000);
	struct timespec mpast = harness_deadline(CLOCK_MONOTONIC, -1000);
	struct timespec epoch = { 0, 0 }, negative = { -5, 0 };
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);
	sem_t s;

	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ASSERT_FAILS(sem_timedwait(&s, &past), ETIMEDOUT);
	ASSERT_FAILS(sem_timedwait(&s, &epoch), ETIMEDOUT);
	ASSERT_FAILS(sem_timedwait(&s, &negative), ETIMEDOUT);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_MONOTONIC, &mpast), ETIMEDOUT);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_MONOTONIC, &epoch), ETIMEDOUT);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_REALTIME, &past), ETIMEDOUT);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < 500000000LL,
		      "a past deadline did not return at once");
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(timed_bad_input)
{
	struct timespec big = { 0, 1000000000 }, neg = { 0, -1 };
	struct timespec ok = harness_deadline(CLOCK_MONOTONIC, 1000);
	int64_t t0 = harness_now_ns(CLOCK_MONOTONIC);
	sem_t s;

	/* Would block: a malformed deadline is refused, nothing consumed. */
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ASSERT_FAILS(sem_timedwait(&s, &big), EINVAL);
	ASSERT_FAILS(sem_timedwait(&s, &neg), EINVAL);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_MONOTONIC, &big), EINVAL);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_REALTIME, &neg), EINVAL);
	/* An unknown or unsupported clock is refused. */
	ASSERT_FAILS(sem_clockwait(&s, 12345, &ok), EINVAL);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_PROCESS_CPUTIME_ID, &ok), EINVAL);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < 500000000LL,
		      "invalid input did not return at once");

	/* glibc refuses an unknown clock even when it would not block. */
	ck_assert_int_eq(sem_post(&s), 0);
	ASSERT_FAILS(sem_clockwait(&s, 12345, &ok), EINVAL);
	ck_assert_int_eq(val(&s), 1);

	/* POSIX: the deadline need not be checked if the semaphore can be
	 * taken at once; glibc checks tv_nsec first, and so does fthr. */
	ASSERT_FAILS(sem_timedwait(&s, &big), EINVAL);
	ASSERT_FAILS(sem_timedwait(&s, &neg), EINVAL);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_MONOTONIC, &big), EINVAL);
	ASSERT_FAILS(sem_clockwait(&s, CLOCK_REALTIME, &neg), EINVAL);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(timed_on_positive_ignores_deadline)
{
	struct timespec past = harness_deadline(CLOCK_REALTIME, -1000);
	struct timespec mpast = harness_deadline(CLOCK_MONOTONIC, -1000);
	struct timespec epoch = { 0, 0 };
	sem_t s;

	ck_assert_int_eq(sem_init(&s, 0, 4), 0);
	ck_assert_int_eq(sem_timedwait(&s, &past), 0);
	ck_assert_int_eq(sem_timedwait(&s, &epoch), 0);
	ck_assert_int_eq(sem_clockwait(&s, CLOCK_MONOTONIC, &mpast), 0);
	ck_assert_int_eq(sem_clockwait(&s, CLOCK_REALTIME, &epoch), 0);
	ck_assert_int_eq(val(&s), 0);
	ASSERT_FAILS(sem_timedwait(&s, &past), ETIMEDOUT);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

START_TEST(timed_wait_woken_by_post)
{
	static sem_t s;
	struct waiter w;
	pthread_t t;
	int64_t t0;

	/* _i: OP_TIMED, OP_CLOCK, OP_CLOCK_RT (30 s deadlines) */
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	t = start_waiter(&w, &s, _i);
	usleep(50000);
	ck_assert_int_eq(w.done, 0);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(res(harness_join(t, 10)), 0);
	ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) - t0 < 5000000000LL,
		      "the post did not wake the timed waiter promptly");
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
}
END_TEST

/* ==== 4-5. signals ==== */
static int handled;

static void count_handler(int sig)
{
	(void)sig;
	__atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
}

static void install(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

START_TEST(eintr_without_sa_restart)
{
	static sem_t s;
	struct waiter w;
	pthread_t t;
	int64_t end;

	/* _i: OP_WAIT, OP_TIMED, OP_CLOCK */
	handled = 0;
	install(SIGUSR1, count_handler, 0);
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	t = start_waiter(&w, &s, _i);
	usleep(20000);
	/* A signal that lands before the thread sleeps is just handled; keep
	 * signalling until the wait gives up. */
	end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) &&
	       harness_now_ns(CLOCK_MONOTONIC) < end) {
		ck_assert_int_eq(pthread_kill(t, SIGUSR1), 0);
		usleep(20000);
	}
	ck_assert_msg(w.done, "the waiter was not interrupted by %d signals", handled);
	ck_assert_int_eq(res(harness_join(t, 10)), EINTR);
	ck_assert_int_ge(handled, 1);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(sem_destroy(&s), 0);
}
END_TEST

static sem_t hs;

static void post_handler(int sig)
{
	int saved = errno;

	(void)sig;
	if (sem_post(&hs) == 0)
		__atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static void *blocked_waiter(void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	return waiter_fn(arg);
}

START_TEST(post_from_handler_wakes_waiter)
{
	struct waiter w = { .s = &hs, .op = OP_WAIT };
	pthread_t t;
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;

	if (harness_skip_under_qemu_i386("post_from_handler_wakes_waiter",
					 "whose waiter never wakes"))
		return;
	handled = 0;
	install(SIGUSR2, post_handler, SA_RESTART);
	ck_assert_int_eq(sem_init(&hs, 0, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, blocked_waiter, &w), 0);
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE)) {
		ck_assert(harness_now_ns(CLOCK_MONOTONIC) < end);
		usleep(1000);
	}
	usleep(50000);
	ck_assert_int_eq(w.done, 0);
	/* Delivered to this thread (the waiter blocks SIGUSR2) before
	 * pthread_kill returns. */
	ck_assert_int_eq(pthread_kill(pthread_self(), SIGUSR2), 0);
	ck_assert_int_eq(handled, 1);
	ck_assert_int_eq(res(harness_join(t, 10)), 0);
	ck_assert_int_eq(val(&hs), 0);
	assert_no_waiters(&hs);
}
END_TEST

/* The handler's post interrupts this thread's own posts and waits on the
 * same semaphore: the count must come out exact. The killer sends up to
 * 3000 signals in at most half a second (on a busy machine each of its
 * sched_yields may give the cpu away for a whole time slice). */
static void *killer(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 500000000LL;
	int i;

	for (i = 0; i < 3000 && harness_now_ns(CLOCK_MONOTONIC) < end; i++) {
		if (pthread_kill(target, SIGUSR2) != 0)
			return (void *)1;
		if (i % 8 == 0)
			usleep(100);
		else
			sched_yield();
	}
	return NULL;
}

START_TEST(post_in_handler_reenters)
{
	pthread_t self = pthread_self(), k;
	sigset_t set;
	long loops = 0;

	if (harness_skip_under_qemu_i386("post_in_handler_reenters",
					 "where the suite times out"))
		return;
	handled = 0;
	install(SIGUSR2, post_handler, SA_RESTART);
	ck_assert_int_eq(sem_init(&hs, 0, 0), 0);
	/* The killer thread must not take the signal itself. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	ck_assert_int_eq(pthread_create(&k, NULL, killer, &self), 0);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	for (;;) {
		int done = pthread_tryjoin_np(k, NULL) == 0;

		/* value >= 1 before each wait: it never blocks */
		ck_assert_int_eq(sem_post(&hs), 0);
		ck_assert_int_eq(sem_wait(&hs), 0);
		ck_assert_int_eq(sem_post(&hs), 0);
		ck_assert_int_eq(sem_trywait(&hs), 0);
		loops++;
		if (done)
			break;
	}
	usleep(1000); /* any last pending signal is delivered by now */
	ck_assert_int_gt(handled, 0);
	ck_assert_int_gt(loops, 0);
	ck_assert_int_eq(val(&hs), handled);
}
END_TEST

/* ==== 6. cancellation ==== */
START_TEST(cancel_blocked_waiter)
{
	static sem_t s;
	struct waiter w[3], later;
	pthread_t t[3], lt;
	int i, victim = _i;

	if (harness_skip_under_asan("cancel_blocked_waiter"))
		return;

	/* waiters in sem_wait, sem_timedwait and sem_clockwait; cancel one */
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	for (i = 0; i < 3; i++)
		t[i] = start_waiter(&w[i], &s, i);
	usleep(50000);
	ck_assert_int_eq(ndone(w, 3), 0);
	ck_assert_int_eq(pthread_cancel(t[victim]), 0);
	ck_assert_ptr_eq(harness_join(t[victim], 5), PTHREAD_CANCELED);
	ck_assert_int_eq(w[victim].done, 0);
	ck_assert_int_eq(val(&s), 0);
	usleep(20000);
	ck_assert_int_eq(ndone(w, 3), 0); /* the others still wait */

	/* Two posts release exactly the two survivors. */
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(sem_post(&s), 0);
	for (i = 0; i < 3; i++)
		if (i != victim)
			ck_assert_int_eq(res(harness_join(t[i], 10)), 0);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);

	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_trywait(&s), 0);
	ck_assert_int_eq(val(&s), 0);
	ASSERT_FAILS(sem_trywait(&s), EAGAIN);

	/* A later waiter is still woken by a post. */
	lt = start_waiter(&later, &s, victim);
	usleep(50000);
	ck_assert_int_eq(later.done, 0);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(res(harness_join(lt, 10)), 0);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
}
END_TEST

START_TEST(cancel_all_blocked_waiters)
{
	static sem_t s;
	struct waiter w[6], later;
	pthread_t t[6], lt;
	int i;

	if (harness_skip_under_asan("cancel_all_blocked_waiters"))
		return;
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	for (i = 0; i < 6; i++)
		t[i] = start_waiter(&w[i], &s, i % 3);
	usleep(50000);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(pthread_cancel(t[i]), 0);
	for (i = 0; i < 6; i++)
		ck_assert_ptr_eq(harness_join(t[i], 5), PTHREAD_CANCELED);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(val(&s), 1);
	ck_assert_int_eq(sem_trywait(&s), 0);
	lt = start_waiter(&later, &s, OP_WAIT);
	usleep(50000);
	ck_assert_int_eq(later.done, 0);
	ck_assert_int_eq(sem_post(&s), 0);
	ck_assert_int_eq(res(harness_join(lt, 10)), 0);
	ck_assert_int_eq(val(&s), 0);
	assert_no_waiters(&s);
}
END_TEST

/* A cancellation point acts on a pending request even when it would not
 * block, and the cancelled call consumes nothing. */
static sem_t ps;
static int pend_op, pend_ready, pend_go;

static void *pending_cancel_fn(void *arg)
{
	int old, r;

	(void)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	__atomic_store_n(&pend_ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&pend_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	r = do_wait(&ps, pend_op, 30000);
	return result(r); /* reaching here is the failure */
}

START_TEST(cancel_pending_on_positive_semaphore)
{
	pthread_t t;
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;

	if (harness_skip_under_asan("cancel_pending_on_positive_semaphore"))
		return;

	/* _i: OP_WAIT, OP_TIMED */
	pend_op = _i;
	pend_ready = pend_go = 0;
	ck_assert_int_eq(sem_init(&ps, 0, 1), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, pending_cancel_fn, NULL), 0);
	while (!__atomic_load_n(&pend_ready, __ATOMIC_ACQUIRE)) {
		ck_assert(harness_now_ns(CLOCK_MONOTONIC) < end);
		usleep(1000);
	}
	ck_assert_int_eq(pthread_cancel(t), 0);
	__atomic_store_n(&pend_go, 1, __ATOMIC_RELEASE);
	ck_assert_ptr_eq(harness_join(t, 5), PTHREAD_CANCELED);
	ck_assert_int_eq(val(&ps), 1);
	assert_no_waiters(&ps);
}
END_TEST

/* A request made while the waiter is on its way into sem_wait or still
 * spins there (before any futex wait), then a post: the wait is a
 * cancellation point, so the request is acted on before it returns and the
 * token stays. The main thread cancels as soon as the waiter has announced
 * itself and posts at once; wherever the waiter is by then, cancelled is
 * the one correct outcome (the request came before the token). */
enum { SP_ROUNDS = 40 };
static sem_t sps;
static int sp_waiting;

static void *spin_cancel_fn(void *arg)
{
	(void)arg;
	__atomic_store_n(&sp_waiting, 1, __ATOMIC_RELEASE);
	if (sem_wait(&sps) != 0)
		return (void *)2L;
	return (void *)1L; /* returned with the token */
}

/* One round: a waiter thread, the request delay_ns after it announced
 * itself, then the post; it must end cancelled, the token left. */
static void cancel_then_post(int round, int delay_ns)
{
	int64_t end, until;
	pthread_t t;
	void *r;

	ck_assert_int_eq(sem_init(&sps, 0, 0), 0);
	sp_waiting = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, spin_cancel_fn, NULL), 0);
	end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;
	while (!__atomic_load_n(&sp_waiting, __ATOMIC_ACQUIRE))
		ck_assert(harness_now_ns(CLOCK_MONOTONIC) < end);
	until = harness_now_ns(CLOCK_MONOTONIC) + delay_ns;
	while (harness_now_ns(CLOCK_MONOTONIC) < until)
		;
	ck_assert_int_eq(pthread_cancel(t), 0);
	ck_assert_int_eq(sem_post(&sps), 0);
	r = harness_join(t, 5);
	ck_assert_msg(r == PTHREAD_CANCELED,
		      "round %d (request %d ns after the waiter started): sem_wait "
		      "returned (%p) with the token posted after the request",
		      round, delay_ns, r);
	ck_assert_int_eq(val(&sps), 1);
	assert_no_waiters(&sps);
	ck_assert_int_eq(sem_destroy(&sps), 0);
}

START_TEST(cancel_during_spin_keeps_the_token)
{
	if (harness_skip_under_asan("cancel_during_spin_keeps_the_token"))
		return;
	for (int round = 0; round < SP_ROUNDS; round++)
		cancel_then_post(round, 0);
}
END_TEST

/* The same order of events, request then post, at every moment of the
 * waiter's way through sem_wait: before it enters, at its first take, in
 * its spin, just after the spin gave up (between its last look and its
 * registration as a waiter: the window the old code returned the token
 * through), asleep. Whatever the moment, a token posted after
 * pthread_cancel returned is never returned by the wait: every successful
 * return checks for the request after its take. The delay between the
 * waiter's announcement and the request sweeps 0-10 us in 100 ns steps,
 * around the end of a new thread's spin, 20 times over, or for 3 s on a
 * machine too busy for that; no outcome depends on where the waiter was.
 * (The old code failed in each of 6 runs on a busy 2-cpu machine, 1-5
 * rounds of 2000 each.) */
enum { SW_ROUNDS = 2000, SW_STEPS = 100 };

START_TEST(cancel_then_post_at_any_moment_keeps_the_token)
{
	int64_t stop = harness_now_ns(CLOCK_MONOTONIC) + 3000000000LL;

	if (harness_skip_under_asan("cancel_then_post_at_any_moment_keeps_the_token"))
		return;
	for (int round = 0; round < SW_ROUNDS && harness_now_ns(CLOCK_MONOTONIC) < stop;
	     round++)
		cancel_then_post(round, (round % SW_STEPS) * 100);
}
END_TEST

/* A cancelled thread's cleanup handler may wait on a semaphore: the wait
 * returns (a timeout here) and the thread finishes exiting. */
static int ch_rc, ch_errno;

static void ch_handler(void *arg)
{
	struct timespec dl = harness_deadline(CLOCK_REALTIME, 20);

	ch_rc = sem_timedwait(arg, &dl);
	ch_errno = errno;
}

START_TEST(cleanup_handler_waits_after_cancel)
{
	static sem_t s;

	if (harness_skip_under_asan("cleanup_handler_waits_after_cancel"))
		return;
	ck_assert_int_eq(sem_init(&s, 0, 0), 0);
	ch_rc = 0;
	ck_assert_ptr_eq(harness_cancel_looping(ch_handler, &s, 5), PTHREAD_CANCELED);
	ck_assert_int_eq(ch_rc, -1);
	ck_assert_int_eq(ch_errno, ETIMEDOUT);
	assert_no_waiters(&s);
}
END_TEST

/* ==== 7. process-shared, across fork ==== */
struct pshm {
	sem_t a, b, m;
	long counter;
};

static struct pshm *map_shared(void)
{
	struct pshm *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* In a forked child: die by SIGALRM (not Check's handler) after secs. */
static void child_bound(unsigned secs)
{
	signal(SIGALRM, SIG_DFL);
	alarm(secs);
}

static pid_t fork_checked(void)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
	return pid;
}

/* Reap a child within 'seconds' (killing it otherwise); it must exit 0. */
static void wait_child(pid_t pid, double seconds, const char *what)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + (int64_t)(seconds * 1e9);
	int status = 0;
	pid_t r;

	while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
		if (harness_now_ns(CLOCK_MONOTONIC) >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			ck_abort_msg("%s did not finish within %.0fs", what, seconds);
		}
		usleep(1000);
	}
	ck_assert_msg(r == pid, "waitpid(%s): %s", what, strerror(errno));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s failed: %s %d", what,
		      WIFEXITED(status) ? "exit status" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* A wait in the parent, bounded to 10 s, that gives up early if the child
 * has died; on failure the child is killed and reaped first. */
static void parent_wait(sem_t *s, pid_t child, const char *what, long round)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 10000000000LL;
	int status, e;

	for (;;) {
		if (do_wait(s, OP_TIMED, 100) == 0)
			return;
		e = errno;
		if (e != ETIMEDOUT)
			break;
		if (waitpid(child, &status, WNOHANG) == child)
			ck_abort_msg("round %ld: %s: the other process ended first "
				     "(%s %d)", round, what,
				     WIFEXITED(status) ? "exit status" : "signal",
				     WIFEXITED(status) ? WEXITSTATUS(status)
						       : WTERMSIG(status));
		if (harness_now_ns(CLOCK_MONOTONIC) >= end)
			break;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_abort_msg("round %ld: %s: %s", round, what, strerror(e));
}

START_TEST(pshared_child_waits_parent_posts)
{
	struct pshm *p = map_shared();
	pid_t pid;

	ck_assert_int_eq(sem_init(&p->a, 1, 0), 0);
	ck_assert_int_eq(sem_init(&p->b, 1, 0), 0);
	pid = fork_checked();
	if (pid == 0) {
		child_bound(10);
		_exit(sem_wait(&p->a) == 0 ? 0 : 2);
	}
	usleep(50000);
	ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0, "child did not block");
	ck_assert_int_eq(sem_post(&p->a), 0);
	wait_child(pid, 10, "waiting child");
	ck_assert_int_eq(val(&p->a), 0);
	assert_no_waiters(&p->a);

	/* and the other way round */
	pid = fork_checked();
	if (pid == 0) {
		child_bound(10);
		usleep(50000);
		_exit(sem_post(&p->b) == 0 ? 0 : 2);
	}
	parent_wait(&p->b, pid, "wait for the child's post", 0);
	wait_child(pid, 10, "posting child");
	ck_assert_int_eq(val(&p->b), 0);
	assert_no_waiters(&p->b);
	ck_assert_int_eq(sem_destroy(&p->a), 0);
	ck_assert_int_eq(sem_destroy(&p->b), 0);
	munmap(p, sizeof(*p));
}
END_TEST

/* (3000 round trips: on a machine busy with as many spinning processes
 * as cpus, each wake-up may wait milliseconds for a cpu; a lost wake-up
 * shows as a wait that times out) */
START_TEST(pshared_pingpong)
{
	enum { ROUNDS = 3000 };
	struct pshm *p = map_shared();
	pid_t pid;
	long i;

	/* _i: the child's wait, OP_WAIT / OP_TIMED / OP_CLOCK */
	ck_assert_int_eq(sem_init(&p->a, 1, 0), 0);
	ck_assert_int_eq(sem_init(&p->b, 1, 0), 0);
	pid = fork_checked();
	if (pid == 0) {
		child_bound(25);
		for (i = 0; i < ROUNDS; i++) {
			if (do_wait(&p->a, _i, 10000) != 0)
				_exit(2);
			if (sem_post(&p->b) != 0)
				_exit(3);
		}
		_exit(0);
	}
	for (i = 0; i < ROUNDS; i++) {
		ck_assert_int_eq(sem_post(&p->a), 0);
		parent_wait(&p->b, pid, "pong", i);
	}
	wait_child(pid, 10, "ponging child");
	ck_assert_int_eq(val(&p->a), 0);
	ck_assert_int_eq(val(&p->b), 0);
	assert_no_waiters(&p->a);
	assert_no_waiters(&p->b);
	munmap(p, sizeof(*p));
}
END_TEST

/* The semaphore as a lock around a non-atomic increment. */
static int lock_loop(struct pshm *p, int iters)
{
	int i;

	for (i = 0; i < iters; i++) {
		if (sem_wait(&p->m) != 0)
			return 2;
		long c = p->counter;
		if ((i & 255) == 0)
			sched_yield();
		p->counter = c + 1;
		if (sem_post(&p->m) != 0)
			return 3;
	}
	return 0;
}

START_TEST(pshared_as_lock)
{
	enum { ITERS = 20000 };
	struct pshm *p = map_shared();
	pid_t pid;
	int i;

	ck_assert_int_eq(sem_init(&p->m, 1, 1), 0);
	p->counter = 0;
	pid = fork_checked();
	if (pid == 0) {
		child_bound(30);
		_exit(lock_loop(p, ITERS));
	}
	i = lock_loop(p, ITERS);
	if (i != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ck_abort_msg("parent: %s failed: %s", i == 2 ? "sem_wait" : "sem_post",
			     strerror(errno));
	}
	wait_child(pid, 30, "locking child");
	ck_assert_int_eq(p->counter, 2 * ITERS);
	ck_assert_int_eq(val(&p->m), 1);
	assert_no_waiters(&p->m);
	munmap(p, sizeof(*p));
}
END_TEST

/* ==== 8. named semaphores ==== */
static void uniq_name(char *buf, size_t n, const char *tag)
{
	static int seq;

	snprintf(buf, n, "/fthr_t_sem_%d_%d_%s_%d", runner_pid, (int)getpid(),
		 tag, seq++);
}

/* glibc keeps a named semaphore in /dev/shm/sem.NAME; a plain-glibc
 * process finds it there, so fthr must too. */
static int shm_stat(const char *name, struct stat *st)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/dev/shm/sem.%s", name + 1);
	return stat(path, st);
}

#define ASSERT_OPEN_FAILS(call, err)                                          \
	do {                                                                  \
		sem_t *p_;                                                    \
		int e_;                                                       \
		errno = 0;                                                    \
		p_ = (call);                                                  \
		e_ = errno;                                                   \
		ck_assert_msg(p_ == SEM_FAILED && e_ == (err),                \
			      "%s returned %p, errno %d (%s); expected SEM_FAILED, %s", \
			      #call, (void *)p_, e_, strerror(e_), strerror(err)); \
	} while (0)

START_TEST(named_open_share_close_unlink)
{
	char name[64];
	sem_t *s1, *s2, *s3;
	struct stat st;

	uniq_name(name, sizeof(name), "share");
	s1 = sem_open(name, O_CREAT | O_EXCL, 0600, 3);
	ck_assert_msg(s1 != SEM_FAILED, "sem_open(%s, O_CREAT|O_EXCL): %s", name,
		      strerror(errno));
	ck_assert_msg(shm_stat(name, &st) == 0, "no /dev/shm/sem.%s", name + 1);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(val(s1), 3);

	/* Opened again: the same semaphore, at the same address (POSIX). */
	s2 = sem_open(name, 0);
	ck_assert_msg(s2 != SEM_FAILED, "reopen: %s", strerror(errno));
	ck_assert_ptr_eq(s2, s1);
	ck_assert_int_eq(val(s2), 3);
	ck_assert_int_eq(sem_trywait(s2), 0);
	ck_assert_int_eq(val(s1), 2);
	ck_assert_int_eq(sem_post(s1), 0);
	ck_assert_int_eq(sem_post(s1), 0);
	ck_assert_int_eq(val(s2), 4);
	/* O_CREAT without O_EXCL on an existing name: opens it, value kept. */
	s3 = sem_open(name, O_CREAT, 0600, 7);
	ck_assert_msg(s3 != SEM_FAILED, "O_CREAT reopen: %s", strerror(errno));
	ck_assert_ptr_eq(s3, s1);
	ck_assert_int_eq(val(s3), 4);
	ASSERT_OPEN_FAILS(sem_open(name, O_CREAT | O_EXCL, 0600, 1), EEXIST);

	/* Closing the extra handles leaves the first one working. */
	ck_assert_int_eq(sem_close(s3), 0);
	ck_assert_int_eq(sem_close(s2), 0);
	ck_assert_int_eq(sem_trywait(s1), 0);
	ck_assert_int_eq(val(s1), 3);

	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_int_ne(shm_stat(name, &st), 0);
	ASSERT_OPEN_FAILS(sem_open(name, 0), ENOENT);
	ASSERT_FAILS(sem_unlink(name), ENOENT);
	/* An open semaphore survives its name... */
	ck_assert_int_eq(sem_post(s1), 0);
	ck_assert_int_eq(val(s1), 4);

	/* ...and the name can be given to a new, distinct semaphore. */
	s2 = sem_open(name, O_CREAT | O_EXCL, 0600, 9);
	ck_assert_msg(s2 != SEM_FAILED, "recreate: %s", strerror(errno));
	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_ptr_ne(s2, s1);
	ck_assert_int_eq(val(s2), 9);
	ck_assert_int_eq(val(s1), 4);
	ck_assert_int_eq(sem_trywait(s2), 0);
	ck_assert_int_eq(val(s2), 8);
	ck_assert_int_eq(val(s1), 4);
	ck_assert_int_eq(sem_close(s2), 0);
	ck_assert_int_eq(sem_trywait(s1), 0);
	ck_assert_int_eq(val(s1), 3);
	ck_assert_int_eq(sem_close(s1), 0);
}
END_TEST

START_TEST(named_errors)
{
	char name[64], slashed[80];
	struct stat st;
	sem_t *s;
	int e;

	uniq_name(name, sizeof(name), "missing");
	ASSERT_OPEN_FAILS(sem_open(name, 0), ENOENT);
	ASSERT_OPEN_FAILS(sem_open(name, O_RDWR), ENOENT);
	ASSERT_FAILS(sem_unlink(name), ENOENT);

	/* Too large an initial value: EINVAL, and nothing is created. */
	ASSERT_OPEN_FAILS(sem_open(name, O_CREAT | O_EXCL, 0600,
				   (unsigned)SEM_VALUE_MAX + 1), EINVAL);
	ASSERT_OPEN_FAILS(sem_open(name, 0), ENOENT);

	/* A slash after the first. */
	snprintf(slashed, sizeof(slashed), "%s/x", name);
	errno = 0;
	s = sem_open(slashed, 0);
	e = errno;
	ck_assert_msg(s == SEM_FAILED && (e == EINVAL || e == ENOENT),
		      "sem_open(%s): %p, %s", slashed, (void *)s, strerror(e));
	errno = 0;
	s = sem_open(slashed, O_CREAT | O_EXCL, 0600, 1);
	e = errno;
	ck_assert_msg(s == SEM_FAILED && (e == EINVAL || e == ENOENT),
		      "sem_open(%s, O_CREAT): %p, %s", slashed, (void *)s, strerror(e));
	ck_assert_int_ne(shm_stat(name, &st), 0);
	ASSERT_OPEN_FAILS(sem_open(name, 0), ENOENT);
}
END_TEST

/* glibc's rules that tests/difftest.c compared: O_CREAT of an existing
 * semaphore ignores the value, even one above SEM_VALUE_MAX (checked only
 * when the file is made); a name spelled without its leading slash is the
 * same file but a handle of its own, closed on its own. */
START_TEST(named_glibc_open_rules)
{
	char name[64];
	sem_t *s1, *s2, *s3;

	uniq_name(name, sizeof(name), "rules");
	s1 = sem_open(name, O_CREAT | O_EXCL, 0600, 2);
	ck_assert_msg(s1 != SEM_FAILED, "sem_open: %s", strerror(errno));
	s2 = sem_open(name, O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1);
	ck_assert_msg(s2 != SEM_FAILED, "O_CREAT, existing, value too large: %s",
		      strerror(errno));
	ck_assert_ptr_eq(s2, s1);
	ck_assert_int_eq(val(s2), 2);
	s3 = sem_open(name + 1, 0); /* "fthr-..." for "/fthr-..." */
	ck_assert_msg(s3 != SEM_FAILED, "without the slash: %s", strerror(errno));
	ck_assert_ptr_ne(s3, s1);
	ck_assert_int_eq(sem_post(s3), 0); /* the same semaphore */
	ck_assert_int_eq(val(s1), 3);
	ck_assert_int_eq(sem_close(s3), 0);
	ck_assert_int_eq(sem_close(s2), 0);
	ck_assert_int_eq(sem_trywait(s1), 0); /* the first handle still works */
	ck_assert_int_eq(val(s1), 2);
	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_int_eq(sem_close(s1), 0);
}
END_TEST

START_TEST(named_across_fork)
{
	char name[64];
	sem_t *s;
	pid_t pid;

	uniq_name(name, sizeof(name), "fork");
	s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	ck_assert_msg(s != SEM_FAILED, "sem_open: %s", strerror(errno));

	/* The child opens it by name and posts; the parent's wait returns. */
	pid = fork_checked();
	if (pid == 0) {
		sem_t *c;

		child_bound(10);
		c = sem_open(name, 0);
		if (c == SEM_FAILED)
			_exit(2);
		usleep(50000);
		if (sem_post(c) != 0)
			_exit(3);
		_exit(sem_close(c) == 0 ? 0 : 4);
	}
	if (do_wait(s, OP_TIMED, 10000) != 0) {
		int e = errno;

		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		sem_unlink(name);
		ck_abort_msg("waiting for the child's post: %s", strerror(e));
	}
	wait_child(pid, 10, "child posting by name");
	ck_assert_int_eq(val(s), 0);

	/* The child waits by name; the parent posts. */
	pid = fork_checked();
	if (pid == 0) {
		sem_t *c;

		child_bound(10);
		c = sem_open(name, 0);
		if (c == SEM_FAILED)
			_exit(2);
		_exit(sem_wait(c) == 0 ? 0 : 3);
	}
	usleep(100000);
	ck_assert_int_eq(sem_post(s), 0);
	wait_child(pid, 10, "child waiting by name");
	ck_assert_int_eq(val(s), 0);

	/* The mapping is inherited across fork too. */
	pid = fork_checked();
	if (pid == 0) {
		child_bound(10);
		_exit(sem_post(s) == 0 ? 0 : 2);
	}
	wait_child(pid, 10, "child posting through the inherited handle");
	ck_assert_int_eq(val(s), 1);
	ck_assert_int_eq(sem_trywait(s), 0);
	assert_no_waiters(s);

	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_int_eq(sem_close(s), 0);
}
END_TEST

/* glibc's name rules (__shm_get_name): leading slashes skipped, then at
 * most NAME_MAX (255) bytes. The file name has "sem." in front, so 251
 * bytes is the longest name that works; 252 to 255 pass the name check and
 * the kernel answers ENAMETOOLONG; a longer name is invalid: EINVAL, and
 * ENOENT from sem_unlink. A name of 'len' bytes after its slash: */
static char *sized_name(size_t len, const char *tag)
{
	char *b = malloc(len + 2);
	size_t n;

	ck_assert_ptr_nonnull(b);
	uniq_name(b, len + 2, tag);
	n = strlen(b);
	memset(b + n, 'x', len + 1 - n);
	b[len + 1] = '\0';
	return b;
}

START_TEST(named_name_lengths)
{
	/* too long a file name for the kernel, then invalid names */
	static const struct {
		size_t len;
		int err, unlink_err;
	} bad[] = {
		{ NAME_MAX - 3, ENAMETOOLONG, ENAMETOOLONG },
		{ NAME_MAX, ENAMETOOLONG, ENAMETOOLONG },
		{ NAME_MAX + 1, EINVAL, ENOENT },
		{ 10000, EINVAL, ENOENT },
	};
	char *name, *slashes;
	sem_t *s1, *s2;
	struct stat st;
	size_t i;
	int e;

	name = sized_name(NAME_MAX - 4, "len");
	errno = 4242;
	s1 = sem_open(name, O_CREAT | O_EXCL, 0600, 1);
	e = errno;
	ck_assert_msg(s1 != SEM_FAILED, "sem_open, a %d-byte name: %s",
		      NAME_MAX - 4, strerror(e));
	ck_assert_int_eq(e, 4242); /* errno left alone on success */
	ck_assert_msg(shm_stat(name, &st) == 0, "no /dev/shm/sem.%s", name + 1);
	s2 = sem_open(name, 0);
	ck_assert_msg(s2 == s1, "reopen, a %d-byte name: %p, %s", NAME_MAX - 4,
		      (void *)s2, strerror(errno));
	ck_assert_int_eq(sem_post(s2), 0);
	ck_assert_int_eq(val(s1), 2);
	errno = 4242;
	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_int_eq(sem_close(s2), 0);
	ck_assert_int_eq(sem_close(s1), 0);
	ck_assert_int_eq(errno, 4242);
	ck_assert_int_ne(shm_stat(name, &st), 0);
	free(name);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		name = sized_name(bad[i].len, "len");
		ASSERT_OPEN_FAILS(sem_open(name, O_CREAT | O_EXCL, 0600, 1), bad[i].err);
		ASSERT_OPEN_FAILS(sem_open(name, O_CREAT, 0600, 1), bad[i].err);
		ASSERT_OPEN_FAILS(sem_open(name, 0), bad[i].err);
		ASSERT_FAILS(sem_unlink(name), bad[i].unlink_err);
		free(name);
	}

	/* The leading slashes do not count. */
	name = sized_name(NAME_MAX, "len");
	slashes = malloc(strlen(name) + 4); /* "//", the name, "x", NUL */
	ck_assert_ptr_nonnull(slashes);
	sprintf(slashes, "//%s", name);
	ASSERT_OPEN_FAILS(sem_open(slashes, 0), ENAMETOOLONG);
	strcat(slashes, "x");
	ASSERT_OPEN_FAILS(sem_open(slashes, 0), EINVAL);
	ASSERT_FAILS(sem_unlink(slashes), ENOENT);
	free(slashes);
	free(name);
}
END_TEST

/* "." and ".." are valid names, as in glibc: "sem." in front makes them the
 * files sem.. and sem... inside /dev/shm, no way out of it. Those names are
 * the same in every run: runs take turns under a lock on /dev/shm itself,
 * a file already there is left alone (the test fails, naming it), and the
 * test removes what it made before it checks. */
START_TEST(named_dot_names)
{
	static const struct {
		const char *name, *alt, *file;
	} c[] = {
		{ ".", "/.", "/dev/shm/sem.." },
		{ "..", "//..", "/dev/shm/sem..." },
	};
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 5000000000LL;
	int dir, i;

	dir = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_msg(dir >= 0, "/dev/shm: %s", strerror(errno));
	while (flock(dir, LOCK_EX | LOCK_NB) != 0) {
		ck_assert_msg(errno == EWOULDBLOCK, "flock /dev/shm: %s", strerror(errno));
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "/dev/shm stayed locked for 5 s");
		usleep(1000);
	}
	for (i = 0; i < 2; i++) {
		sem_t *s1, *s2;
		struct stat st;
		int e1, e2, made, posted = -1, v = -1, unl, ue, gone;

		ck_assert_msg(lstat(c[i].file, &st) != 0 && errno == ENOENT,
			      "%s exists already (not this test's): remove it to "
			      "run this test", c[i].file);
		errno = 0;
		s1 = sem_open(c[i].name, O_CREAT | O_EXCL, 0600, 5);
		e1 = errno;
		made = lstat(c[i].file, &st) == 0 && S_ISREG(st.st_mode) &&
		       st.st_size == (off_t)sizeof(sem_t);
		errno = 0;
		s2 = sem_open(c[i].alt, 0);
		e2 = errno;
		if (s1 != SEM_FAILED && s2 != SEM_FAILED) {
			posted = sem_post(s2);
			v = val(s1);
		}
		errno = 0;
		unl = sem_unlink(c[i].alt);
		ue = errno;
		if (unl != 0 && s1 != SEM_FAILED)
			unlink(c[i].file);
		gone = lstat(c[i].file, &st) != 0 && errno == ENOENT;
		if (s2 != SEM_FAILED)
			sem_close(s2);
		if (s1 != SEM_FAILED)
			sem_close(s1);

		ck_assert_msg(s1 != SEM_FAILED, "sem_open(\"%s\", O_CREAT|O_EXCL): %s",
			      c[i].name, strerror(e1));
		ck_assert_msg(made, "sem_open(\"%s\") made no %s", c[i].name, c[i].file);
		ck_assert_msg(s2 != SEM_FAILED, "sem_open(\"%s\", 0): %s", c[i].alt,
			      strerror(e2));
		ck_assert_ptr_ne(s2, s1); /* another spelling, another handle */
		ck_assert_int_eq(posted, 0);
		ck_assert_int_eq(v, 6); /* one semaphore */
		ck_assert_msg(unl == 0, "sem_unlink(\"%s\"): %s", c[i].alt, strerror(ue));
		ck_assert_msg(gone, "%s still there", c[i].file);
	}
	close(dir);
}
END_TEST

/* Only the permission bits of mode are used, less the umask: no setuid,
 * setgid or sticky bit on a semaphore's file. */
START_TEST(named_mode_permission_bits_only)
{
	char name[64];
	struct stat st;
	mode_t old;
	sem_t *s;
	int e;

	uniq_name(name, sizeof(name), "mode");
	old = umask(022);
	s = sem_open(name, O_CREAT | O_EXCL, (mode_t)(04777 | 01000), 0);
	e = errno;
	umask(old);
	ck_assert_msg(s != SEM_FAILED, "sem_open: %s", strerror(e));
	ck_assert_int_eq(shm_stat(name, &st), 0);
	ck_assert_int_eq(sem_unlink(name), 0);
	ck_assert_int_eq(sem_close(s), 0);
	ck_assert_msg((st.st_mode & 07777) == 0755, "mode %04o; expected 0755",
		      (unsigned)(st.st_mode & 07777));
}
END_TEST

/* A file /dev/shm/sem.NAME shorter than a sem_t (another user's, or
 * truncated) is refused with EINVAL, not mapped (an empty one would raise
 * SIGBUS on first use), and left as it is: a deliberate difference from
 * glibc, which maps it. */
START_TEST(named_short_file_refused)
{
	static const char *const content[] = { "abc", "" };
	char name[64], path[PATH_MAX];
	struct stat st;
	ssize_t len;
	int fd, i;

	for (i = 0; i < 2; i++) {
		uniq_name(name, sizeof(name), "short");
		snprintf(path, sizeof(path), "/dev/shm/sem.%s", name + 1);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
		len = (ssize_t)strlen(content[i]);
		ck_assert_int_eq(write(fd, content[i], (size_t)len), len);
		close(fd);
		ASSERT_OPEN_FAILS(sem_open(name, 0), EINVAL);
		ASSERT_OPEN_FAILS(sem_open(name + 1, O_RDWR), EINVAL);
		ASSERT_OPEN_FAILS(sem_open(name, O_CREAT, 0600, 1), EINVAL);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_int_eq(st.st_size, len);
		ck_assert_int_eq(sem_unlink(name), 0);
	}
}
END_TEST

/* O_CREAT|O_EXCL is atomic (the file is made under a temporary name and
 * link()ed into place): of threads racing to create one fresh name, exactly
 * one succeeds and the others get EEXIST, round after round. */
enum { RACERS = 4, RACE_ROUNDS = 400 };
static pthread_barrier_t race_go, race_done;
static char race_name[64];
static int race_stop;
static sem_t *race_got[RACERS];
static int race_err[RACERS];

static void *racer(void *arg)
{
	int i = (int)(intptr_t)arg;

	for (;;) {
		pthread_barrier_wait(&race_go);
		if (race_stop)
			return NULL;
		errno = 0;
		race_got[i] = sem_open(race_name, O_CREAT | O_EXCL, 0600, 0);
		race_err[i] = errno;
		pthread_barrier_wait(&race_done);
	}
}

START_TEST(named_excl_race)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + 1000000000LL;
	pthread_t t[RACERS];
	char errs[RACERS * 16] = "";
	int round, i, won, lost, bad = -1, bad_won = 0, bad_lost = 0;

	ck_assert_int_eq(pthread_barrier_init(&race_go, NULL, RACERS + 1), 0);
	ck_assert_int_eq(pthread_barrier_init(&race_done, NULL, RACERS + 1), 0);
	for (i = 0; i < RACERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, racer, (void *)(intptr_t)i), 0);
	for (round = 0; round < RACE_ROUNDS && bad < 0 &&
			harness_now_ns(CLOCK_MONOTONIC) < end; round++) {
		uniq_name(race_name, sizeof(race_name), "race");
		pthread_barrier_wait(&race_go);
		pthread_barrier_wait(&race_done);
		won = lost = 0;
		for (i = 0; i < RACERS; i++) {
			if (race_got[i] != SEM_FAILED) {
				won++;
				sem_close(race_got[i]);
			} else if (race_err[i] == EEXIST) {
				lost++;
			}
		}
		sem_unlink(race_name);
		if (won != 1 || lost != RACERS - 1) {
			bad = round, bad_won = won, bad_lost = lost;
			for (i = 0; i < RACERS; i++)
				snprintf(errs + strlen(errs), sizeof(errs) - strlen(errs),
					 " %s", race_got[i] != SEM_FAILED ? "ok" :
					 strerror(race_err[i]));
		}
	}
	race_stop = 1;
	pthread_barrier_wait(&race_go);
	for (i = 0; i < RACERS; i++)
		harness_join(t[i], 5);
	ck_assert_msg(bad < 0, "round %d: %d created, %d EEXIST (of %d):%s", bad,
		      bad_won, bad_lost, RACERS, errs);
	ck_assert_int_gt(round, 0);
	pthread_barrier_destroy(&race_go);
	pthread_barrier_destroy(&race_done);
}
END_TEST

/* sem_open, sem_close and sem_unlink are no cancellation points (glibc's
 * sem_open disables cancellation around its open, write and close; its
 * nptl/tst-sem16): with a request pending, all three run to the end, and
 * the request waits for the next cancellation point. sem_open also keeps
 * errno on success, although its first open() fails with ENOENT. */
static char nc_name[64];
static int nc_go, nc_done, nc_open_errno, nc_close_r, nc_unlink_r;
static sem_t *nc_sem;

static void *named_no_cancel_fn(void *arg)
{
	int old;

	(void)arg;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	while (!__atomic_load_n(&nc_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	sem_unlink(nc_name); /* (not there: ENOENT) */
	errno = EDOM;
	nc_sem = sem_open(nc_name, O_CREAT, 0600, 1);
	nc_open_errno = errno;
	nc_close_r = nc_sem == SEM_FAILED ? -1 : sem_close(nc_sem);
	nc_unlink_r = sem_unlink(nc_name);
	__atomic_store_n(&nc_done, 1, __ATOMIC_RELEASE);
	pthread_testcancel(); /* the request acts here */
	return NULL;
}

START_TEST(named_calls_are_no_cancellation_points)
{
	pthread_t t;
	struct stat st;

	if (harness_skip_under_asan("named_calls_are_no_cancellation_points"))
		return;
	uniq_name(nc_name, sizeof(nc_name), "nocancel");
	nc_go = nc_done = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, named_no_cancel_fn, NULL), 0);
	ck_assert_int_eq(pthread_cancel(t), 0);
	__atomic_store_n(&nc_go, 1, __ATOMIC_RELEASE);
	ck_assert_ptr_eq(harness_join(t, 5), PTHREAD_CANCELED);
	ck_assert_msg(nc_done, "cancelled inside sem_unlink, sem_open or sem_close");
	ck_assert_msg(nc_sem != SEM_FAILED, "sem_open: %s", strerror(nc_open_errno));
	ck_assert_int_eq(nc_open_errno, EDOM);
	ck_assert_int_eq(nc_close_r, 0);
	ck_assert_int_eq(nc_unlink_r, 0);
	ck_assert_int_ne(shm_stat(nc_name, &st), 0);
}
END_TEST

/* ==== 9. a plain-glibc peer process (tests/sem_peer) ==== */
enum { PEER_ROUNDS = 2000 };

static void peer_path(char *buf, size_t n)
{
	const char *d = getenv("FTHR_BUILDDIR");

	if (d && *d)
		snprintf(buf, n, "%s/tests/sem_peer", d);
	else
		snprintf(buf, n, "./tests/sem_peer");
}

static void require_peer(void)
{
	char path[PATH_MAX];

	peer_path(path, sizeof(path));
	ck_assert_msg(access(path, X_OK) == 0,
		      "the plain-glibc peer %s is missing (%s): build tests/sem_peer "
		      "and set FTHR_BUILDDIR to the build directory", path,
		      strerror(errno));
}

static pid_t spawn_peer(const char *mode, const char *arg)
{
	char path[PATH_MAX], rounds[16];
	char *argv[5];
	pid_t pid;

	peer_path(path, sizeof(path));
	snprintf(rounds, sizeof(rounds), "%d", PEER_ROUNDS);
	argv[0] = path;
	argv[1] = (char *)mode;
	argv[2] = (char *)arg;
	argv[3] = rounds;
	argv[4] = NULL;
	pid = fork_checked();
	if (pid == 0) {
		/* single-threaded here: the peer runs glibc, not fthr */
		unsetenv("LD_PRELOAD");
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

static void play_ping(sem_t *ping, sem_t *pong, pid_t peer)
{
	long i;

	for (i = 0; i < PEER_ROUNDS; i++) {
		if (sem_post(ping) != 0) {
			int e = errno;

			kill(peer, SIGKILL);
			waitpid(peer, NULL, 0);
			ck_abort_msg("round %ld: post ping: %s", i, strerror(e));
		}
		parent_wait(pong, peer, "pong from the glibc peer", i);
	}
	wait_child(peer, 10, "sem_peer");
	ck_assert_int_eq(val(ping), 0);
	ck_assert_int_eq(val(pong), 0);
	assert_no_waiters(ping);
	assert_no_waiters(pong);
}

START_TEST(interop_named_with_glibc_peer)
{
	char base[64], pn[80], qn[80];
	sem_t *ping, *pong;
	pid_t pid;

	require_peer();
	snprintf(base, sizeof(base), "/fthr_t_sem_%d_%d_interop", runner_pid,
		 (int)getpid());
	snprintf(pn, sizeof(pn), "%s.ping", base);
	snprintf(qn, sizeof(qn), "%s.pong", base);
	ping = sem_open(pn, O_CREAT | O_EXCL, 0600, 0);
	ck_assert_msg(ping != SEM_FAILED, "sem_open(%s): %s", pn, strerror(errno));
	pong = sem_open(qn, O_CREAT | O_EXCL, 0600, 0);
	if (pong == SEM_FAILED) {
		sem_unlink(pn);
		ck_abort_msg("sem_open(%s): %s", qn, strerror(errno));
	}
	pid = spawn_peer("named", base);
	play_ping(ping, pong, pid);
	ck_assert_int_eq(sem_unlink(pn), 0);
	ck_assert_int_eq(sem_unlink(qn), 0);
	ck_assert_int_eq(sem_close(ping), 0);
	ck_assert_int_eq(sem_close(pong), 0);
}
END_TEST

START_TEST(interop_pshared_with_glibc_peer)
{
	char path[PATH_MAX], arg[PATH_MAX];
	size_t len = 2 * sizeof(sem_t);
	sem_t *sems;
	pid_t pid;
	int fd;

	/* _i: 0 the peer opens the file by path, 1 it inherits the fd */
	require_peer();
	snprintf(path, sizeof(path), "/dev/shm/fthr_t_sem_%d_%d.shm", runner_pid,
		 (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	if (_i == 1)
		unlink(path);
	if (ftruncate(fd, (off_t)len) != 0) {
		unlink(path);
		ck_abort_msg("ftruncate: %s", strerror(errno));
	}
	sems = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sems == MAP_FAILED) {
		unlink(path);
		ck_abort_msg("mmap: %s", strerror(errno));
	}
	ck_assert_int_eq(sem_init(&sems[0], 1, 0), 0);
	ck_assert_int_eq(sem_init(&sems[1], 1, 0), 0);
	if (_i == 1) {
		snprintf(arg, sizeof(arg), "%d", fd);
	} else {
		snprintf(arg, sizeof(arg), "%s", path);
		close(fd);
	}
	pid = spawn_peer("shm", arg);
	if (_i == 1)
		close(fd);
	play_ping(&sems[0], &sems[1], pid);
	if (_i == 0)
		ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(sem_destroy(&sems[0]), 0);
	ck_assert_int_eq(sem_destroy(&sems[1]), 0);
	munmap(sems, len);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sem");
	TCase *tc;

	tc = harness_tcase(s, "values", 10);
	tcase_add_unchecked_fixture(tc, leftovers_setup, leftovers_teardown);
	tcase_add_test(tc, init_value_trywait_post);
	tcase_add_test(tc, init_rejects_value_above_max);
	tcase_add_test(tc, post_at_max_overflows);
	tcase_add_test(tc, destroy_unused);
#ifdef GLIBC_SEM_LAYOUT
	tcase_add_test(tc, glibc_word_layout);
#endif
	tc = harness_tcase(s, "contention", 60);
	tcase_add_loop_test(tc, counting_producers_consumers, 0, NOPS + 1);
	tcase_add_loop_test(tc, post_wakes_one_waiter_each, 0, NOPS);
	tcase_add_loop_test(tc, pingpong_threads, OP_WAIT, OP_CLOCK_RT + 1);
	tc = harness_tcase(s, "timed", 10);
	tcase_add_loop_test(tc, timeout_on_its_clock, 0, 3);
	tcase_add_test(tc, past_deadline_at_once);
	tcase_add_test(tc, timed_bad_input);
	tcase_add_test(tc, timed_on_positive_ignores_deadline);
	tcase_add_loop_test(tc, timed_wait_woken_by_post, OP_TIMED, OP_CLOCK_RT + 1);
	tc = harness_tcase(s, "signals", 10);
	tcase_add_loop_test(tc, eintr_without_sa_restart, OP_WAIT, OP_CLOCK_RT + 1);
	tcase_add_test(tc, post_from_handler_wakes_waiter);
	tcase_add_test(tc, post_in_handler_reenters);
	tc = harness_tcase(s, "cancel", 10);
	tcase_add_loop_test(tc, cancel_blocked_waiter, 0, 3);
	tcase_add_test(tc, cancel_all_blocked_waiters);
	tcase_add_test(tc, cancel_during_spin_keeps_the_token);
	tcase_add_test(tc, cancel_then_post_at_any_moment_keeps_the_token);
	tcase_add_test(tc, cleanup_handler_waits_after_cancel);
	/* sem_wait and sem_timedwait only: glibc 2.36's sem_clockwait takes
	 * a free token without acting on a pending cancellation. */
	tcase_add_loop_test(tc, cancel_pending_on_positive_semaphore, OP_WAIT,
			    OP_TIMED + 1);
	tc = harness_tcase(s, "pshared", 30);
	tcase_add_test(tc, pshared_child_waits_parent_posts);
	tcase_add_loop_test(tc, pshared_pingpong, OP_WAIT, OP_CLOCK + 1);
	tcase_add_test(tc, pshared_as_lock);
	tc = harness_tcase(s, "named", 20);
	tcase_add_unchecked_fixture(tc, leftovers_setup, leftovers_teardown);
	tcase_add_test(tc, named_open_share_close_unlink);
	tcase_add_test(tc, named_errors);
	tcase_add_test(tc, named_glibc_open_rules);
	tcase_add_test(tc, named_across_fork);
	tcase_add_test(tc, named_name_lengths);
	tcase_add_test(tc, named_dot_names);
	tcase_add_test(tc, named_mode_permission_bits_only);
	tcase_add_test(tc, named_short_file_refused);
	tcase_add_test(tc, named_excl_race);
	tcase_add_test(tc, named_calls_are_no_cancellation_points);
	tc = harness_tcase(s, "interop", 30);
	tcase_add_unchecked_fixture(tc, leftovers_setup, leftovers_teardown);
	tcase_add_test(tc, interop_named_with_glibc_peer);
	tcase_add_loop_test(tc, interop_pshared_with_glibc_peer, 0, 2);
	return harness_main(s);
}
