/* tests/t_c11.c: C11 <threads.h>: mtx_* of every type, timed locks and
 * waits on TIME_UTC, cnd_* with exact counts, call_once, tss_* destructors,
 * and C11 objects used through the pthread API (glibc's shared layout).
 * thrd_* is the host's; threads are joined through pthread_timedjoin_np so
 * that every join is bounded (a thrd_t is a pthread_t on glibc). */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>
#include "harness.h"

_Static_assert(sizeof(thrd_t) == sizeof(pthread_t), "thrd_t is a pthread_t");
_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "shared mutex layout");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "shared condvar layout");

static int gettid_(void) { return (int)syscall(SYS_gettid); }

static void bump(int *p) { __atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL); }
static int load(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Poll (bounded by the tcase timeout) until *p reaches v. */
static void spin_until(int *p, int v)
{
	while (load(p) < v)
		usleep(500);
}

/* Join a C11 thread within 'seconds'; its int result. */
static int join_c11(thrd_t t, double seconds)
{
	return (int)(intptr_t)harness_join((pthread_t)t, seconds);
}

/* Under ThreadSanitizer, which does not intercept thrd_create (and cannot
 * run a thread it did not see created), the thread is made with
 * pthread_create: on glibc a C11 thread is a pthread, thrd_* is the host's,
 * and the suite's subject is fthr's objects. */
struct c11_start {
	thrd_start_t fn;
	void *arg;
};

static void *c11_trampoline(void *p)
{
	struct c11_start s = *(struct c11_start *)p;

	free(p);
	return (void *)(intptr_t)s.fn(s.arg);
}

static thrd_t start(thrd_start_t fn, void *arg)
{
	thrd_t t;

	if (harness_under_tsan()) {
		struct c11_start *s = malloc(sizeof *s);
		pthread_t pt;

		ck_assert_ptr_nonnull(s);
		*s = (struct c11_start){ fn, arg };
		ck_assert_int_eq(pthread_create(&pt, NULL, c11_trampoline, s), 0);
		return (thrd_t)pt;
	}
	ck_assert_int_eq(thrd_create(&t, fn, arg), thrd_success);
	return t;
}

static int64_t utc_ns(void)
{
	struct timespec ts;

	ck_assert_int_eq(timespec_get(&ts, TIME_UTC), TIME_UTC);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A TIME_UTC deadline ms milliseconds from now (may be negative). */
static struct timespec utc_in(long ms)
{
	int64_t t = utc_ns() + (int64_t)ms * 1000000;

	return (struct timespec){ .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* The four valid C11 mutex types; loop tests index this. */
static const int types[4] = { mtx_plain, mtx_plain | mtx_recursive, mtx_timed,
			      mtx_timed | mtx_recursive };
static const char *const type_names[4] = { "plain", "plain|recursive", "timed",
					   "timed|recursive" };

/* ---- 1. lock / trylock / unlock for each type ---- */
static mtx_t m;

static int trylock_other(void *arg)
{
	mtx_t *mx = arg;
	int r = mtx_trylock(mx);

	if (r == thrd_success && mtx_unlock(mx) != thrd_success)
		return -1;
	return r;
}

START_TEST(mtx_each_type)
{
	int type = types[_i], recursive = type & mtx_recursive, i;

	ck_assert_int_eq(mtx_init(&m, type), thrd_success);
	ck_assert_int_eq(mtx_lock(&m), thrd_success);
	if (recursive) {
		ck_assert_int_eq(mtx_trylock(&m), thrd_success);
		ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	} else {
		ck_assert_int_eq(mtx_trylock(&m), thrd_busy);
	}
	ck_assert_int_eq(join_c11(start(trylock_other, &m), 10), thrd_busy);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	ck_assert_int_eq(join_c11(start(trylock_other, &m), 10), thrd_success);

	ck_assert_int_eq(mtx_trylock(&m), thrd_success);
	ck_assert_int_eq(join_c11(start(trylock_other, &m), 10), thrd_busy);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);

	if (recursive) {
		for (i = 0; i < 5; i++)
			ck_assert_int_eq(mtx_lock(&m), thrd_success);
		ck_assert_int_eq(mtx_trylock(&m), thrd_success);
		for (i = 0; i < 5; i++) {
			ck_assert_int_eq(mtx_unlock(&m), thrd_success);
			/* still held after each inner unlock */
			ck_assert_int_eq(join_c11(start(trylock_other, &m), 10),
					 thrd_busy);
		}
		ck_assert_int_eq(mtx_unlock(&m), thrd_success);
		ck_assert_int_eq(join_c11(start(trylock_other, &m), 10), thrd_success);
	}
	mtx_destroy(&m);
}
END_TEST

/* ---- counted mutual exclusion under contention ---- */
enum { NTHREADS = 4, ITERS = 50000 };
static long counter;
static int cur_type;

static int hammer(void *arg)
{
	int idx = (int)(intptr_t)arg, i, r;
	struct timespec far = utc_in(60000);

	for (i = 0; i < ITERS; i++) {
		switch (idx % 3) {
		case 1:
			while ((r = mtx_trylock(&m)) == thrd_busy)
				;
			break;
		case 2:
			r = (cur_type & mtx_timed) ? mtx_timedlock(&m, &far)
						   : mtx_lock(&m);
			break;
		default:
			r = mtx_lock(&m);
		}
		if (r != thrd_success)
			return 1;
		long c = counter;
		if ((i & 1023) == 0)
			thrd_yield();
		counter = c + 1;
		if (mtx_unlock(&m) != thrd_success)
			return 2;
	}
	return 0;
}

START_TEST(mtx_contention)
{
	thrd_t t[NTHREADS];
	int i;

	cur_type = types[_i];
	ck_assert_int_eq(mtx_init(&m, cur_type), thrd_success);
	counter = 0;
	for (i = 0; i < NTHREADS; i++)
		t[i] = start(hammer, (void *)(intptr_t)i);
	for (i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(join_c11(t[i], 50), 0);
	ck_assert_msg(counter == (long)NTHREADS * ITERS, "%s: counter %ld",
		      type_names[_i], counter);
	ck_assert_int_eq(mtx_trylock(&m), thrd_success);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	mtx_destroy(&m);
}
END_TEST

/* ---- 2. mtx_timedlock ---- */
static mtx_t held, go;
static int holding;

static int holder(void *arg)
{
	(void)arg;
	if (mtx_lock(&held) != thrd_success)
		return 1;
	bump(&holding);
	if (mtx_lock(&go) != thrd_success) /* released by the test */
		return 2;
	mtx_unlock(&go);
	return mtx_unlock(&held) == thrd_success ? 0 : 3;
}

static thrd_t start_holder(void)
{
	ck_assert_int_eq(mtx_lock(&go), thrd_success);
	thrd_t t = start(holder, NULL);
	spin_until(&holding, 1);
	return t;
}

static void stop_holder(thrd_t t)
{
	ck_assert_int_eq(mtx_unlock(&go), thrd_success);
	ck_assert_int_eq(join_c11(t, 10), 0);
}

static int timedlock_far(void *arg)
{
	struct timespec dl = utc_in(10000);
	int r;

	(void)arg;
	bump(&holding);
	r = mtx_timedlock(&held, &dl);
	if (r == thrd_success && mtx_unlock(&held) != thrd_success)
		return -1;
	return r;
}

START_TEST(mtx_timedlock_times_out)
{
	int type = types[2 + _i]; /* the timed ones */
	struct timespec dl, past = utc_in(-1000), epoch = { 0, 0 };
	int64_t t0, el;
	thrd_t t, w;

	ck_assert_int_eq(mtx_init(&held, type), thrd_success);
	ck_assert_int_eq(mtx_init(&go, mtx_plain), thrd_success);

	/* free: succeeds, even with a deadline already past */
	dl = utc_in(1000);
	ck_assert_int_eq(mtx_timedlock(&held, &dl), thrd_success);
	ck_assert_int_eq(mtx_unlock(&held), thrd_success);
	ck_assert_int_eq(mtx_timedlock(&held, &past), thrd_success);
	ck_assert_int_eq(mtx_unlock(&held), thrd_success);

	t = start_holder();
	dl = utc_in(100);
	t0 = utc_ns();
	ck_assert_int_eq(mtx_timedlock(&held, &dl), thrd_timedout);
	el = utc_ns() - t0;
	ck_assert_msg(utc_ns() >= ts_ns(&dl), "returned before the deadline");
	ck_assert_msg(el < 5000000000LL, "took %lld ns", (long long)el);

	t0 = utc_ns();
	ck_assert_int_eq(mtx_timedlock(&held, &past), thrd_timedout);
	ck_assert_int_eq(mtx_timedlock(&held, &epoch), thrd_timedout);
	ck_assert_msg(utc_ns() - t0 < 500000000LL, "a past deadline did not return at once");
	ck_assert_int_eq(mtx_trylock(&held), thrd_busy);
	stop_holder(t);

	/* a waiter blocked in mtx_timedlock gets the mutex when released */
	holding = 0;
	ck_assert_int_eq(mtx_lock(&held), thrd_success);
	w = start(timedlock_far, NULL);
	spin_until(&holding, 1);
	usleep(50000);
	t0 = utc_ns();
	ck_assert_int_eq(mtx_unlock(&held), thrd_success);
	ck_assert_int_eq(join_c11(w, 10), thrd_success);
	ck_assert_msg(utc_ns() - t0 < 5000000000LL, "waiter was not woken by the unlock");
	ck_assert_int_eq(mtx_trylock(&held), thrd_success);
	ck_assert_int_eq(mtx_unlock(&held), thrd_success);
	mtx_destroy(&held);
	mtx_destroy(&go);
}
END_TEST

/* ---- 3. condition variables ---- */
enum { CAP = 8, NPROD = 2, NCONS = 3, PER_PROD = 10000 };
static mtx_t qm;
static cnd_t not_empty, not_full;
static int q[CAP], qhead, qlen, done, consumed_n;
static long long consumed_sum;

static int producer(void *arg)
{
	int base = (int)(intptr_t)arg * PER_PROD, i;

	for (i = 1; i <= PER_PROD; i++) {
		if (mtx_lock(&qm) != thrd_success)
			return 1;
		while (qlen == CAP)
			if (cnd_wait(&not_full, &qm) != thrd_success)
				return 2;
		q[(qhead + qlen++) % CAP] = base + i;
		if (cnd_signal(&not_empty) != thrd_success)
			return 3;
		if (mtx_unlock(&qm) != thrd_success)
			return 4;
	}
	return 0;
}

static int consumer(void *arg)
{
	(void)arg;
	for (;;) {
		if (mtx_lock(&qm) != thrd_success)
			return 1;
		while (qlen == 0 && !done)
			if (cnd_wait(&not_empty, &qm) != thrd_success)
				return 2;
		if (qlen == 0) { /* done and drained */
			mtx_unlock(&qm);
			return 0;
		}
		consumed_sum += q[qhead];
		qhead = (qhead + 1) % CAP;
		qlen--;
		consumed_n++;
		if (cnd_signal(&not_full) != thrd_success)
			return 3;
		if (mtx_unlock(&qm) != thrd_success)
			return 4;
	}
}

START_TEST(cnd_producer_consumer)
{
	thrd_t p[NPROD], c[NCONS];
	long long expect = 0;
	int i;

	ck_assert_int_eq(mtx_init(&qm, mtx_plain), thrd_success);
	ck_assert_int_eq(cnd_init(&not_empty), thrd_success);
	ck_assert_int_eq(cnd_init(&not_full), thrd_success);
	for (i = 0; i < NCONS; i++)
		c[i] = start(consumer, NULL);
	for (i = 0; i < NPROD; i++)
		p[i] = start(producer, (void *)(intptr_t)i);
	for (i = 0; i < NPROD; i++)
		ck_assert_int_eq(join_c11(p[i], 30), 0);
	ck_assert_int_eq(mtx_lock(&qm), thrd_success);
	done = 1;
	ck_assert_int_eq(cnd_broadcast(&not_empty), thrd_success);
	ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	for (i = 0; i < NCONS; i++)
		ck_assert_int_eq(join_c11(c[i], 30), 0);
	for (i = 0; i < NPROD * PER_PROD; i++)
		expect += i + 1;
	ck_assert_int_eq(consumed_n, NPROD * PER_PROD);
	ck_assert_int_eq(qlen, 0);
	ck_assert_msg(consumed_sum == expect, "sum %lld, expected %lld",
		      consumed_sum, expect);
	cnd_destroy(&not_empty);
	cnd_destroy(&not_full);
	mtx_destroy(&qm);
}
END_TEST

/* broadcast wakes every waiter: one that is not woken never returns */
enum { NWAIT = 6 };
static int waiting, go_flag, woken;

static int bcast_waiter(void *arg)
{
	(void)arg;
	if (mtx_lock(&qm) != thrd_success)
		return 1;
	waiting++;
	while (!go_flag)
		if (cnd_wait(&not_empty, &qm) != thrd_success)
			return 2;
	woken++;
	return mtx_unlock(&qm) == thrd_success ? 0 : 3;
}

START_TEST(cnd_broadcast_wakes_all)
{
	thrd_t t[NWAIT];
	int i, n;

	ck_assert_int_eq(mtx_init(&qm, types[_i]), thrd_success);
	ck_assert_int_eq(cnd_init(&not_empty), thrd_success);
	for (i = 0; i < NWAIT; i++)
		t[i] = start(bcast_waiter, NULL);
	do { /* all inside cnd_wait once they counted and released qm */
		usleep(1000);
		ck_assert_int_eq(mtx_lock(&qm), thrd_success);
		n = waiting;
		ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	} while (n < NWAIT);
	usleep(10000);
	ck_assert_int_eq(mtx_lock(&qm), thrd_success);
	ck_assert_int_eq(woken, 0);
	go_flag = 1;
	ck_assert_int_eq(cnd_broadcast(&not_empty), thrd_success);
	ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	for (i = 0; i < NWAIT; i++)
		ck_assert_int_eq(join_c11(t[i], 10), 0);
	ck_assert_int_eq(woken, NWAIT);
	cnd_destroy(&not_empty);
	mtx_destroy(&qm);
}
END_TEST

static int signal_waiter(void *arg)
{
	struct timespec dl = utc_in(10000);
	int r = thrd_success;

	(void)arg;
	if (mtx_lock(&qm) != thrd_success)
		return -1;
	waiting++;
	while (!go_flag && r == thrd_success)
		r = cnd_timedwait(&not_empty, &qm, &dl);
	if (mtx_unlock(&qm) != thrd_success)
		return -2;
	return r;
}

static int trylock_qm(void *arg)
{
	(void)arg;
	int r = mtx_trylock(&qm);

	if (r == thrd_success)
		mtx_unlock(&qm);
	return r;
}

START_TEST(cnd_timedwait_timeout_and_wakeup)
{
	struct timespec dl, past = utc_in(-1000);
	int64_t t0, el;
	thrd_t t;
	int n;

	ck_assert_int_eq(mtx_init(&qm, mtx_plain), thrd_success);
	ck_assert_int_eq(cnd_init(&not_empty), thrd_success);

	ck_assert_int_eq(mtx_lock(&qm), thrd_success);
	dl = utc_in(100);
	t0 = utc_ns();
	ck_assert_int_eq(cnd_timedwait(&not_empty, &qm, &dl), thrd_timedout);
	el = utc_ns() - t0;
	ck_assert_msg(utc_ns() >= ts_ns(&dl), "returned before the deadline");
	ck_assert_msg(el < 5000000000LL, "took %lld ns", (long long)el);
	/* the mutex is held again on return */
	ck_assert_int_eq(join_c11(start(trylock_qm, NULL), 10), thrd_busy);
	t0 = utc_ns();
	ck_assert_int_eq(cnd_timedwait(&not_empty, &qm, &past), thrd_timedout);
	ck_assert_msg(utc_ns() - t0 < 500000000LL, "a past deadline did not return at once");
	ck_assert_int_eq(join_c11(start(trylock_qm, NULL), 10), thrd_busy);
	ck_assert_int_eq(mtx_unlock(&qm), thrd_success);

	/* signalled before its deadline: thrd_success */
	t = start(signal_waiter, NULL);
	do {
		usleep(1000);
		ck_assert_int_eq(mtx_lock(&qm), thrd_success);
		n = waiting;
		ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	} while (n < 1);
	usleep(10000);
	t0 = utc_ns();
	ck_assert_int_eq(mtx_lock(&qm), thrd_success);
	go_flag = 1;
	ck_assert_int_eq(cnd_signal(&not_empty), thrd_success);
	ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	ck_assert_int_eq(join_c11(t, 15), thrd_success);
	ck_assert_msg(utc_ns() - t0 < 5000000000LL, "waiter was not woken by the signal");
	cnd_destroy(&not_empty);
	mtx_destroy(&qm);
}
END_TEST

/* ---- 4. call_once ---- */
static once_flag once = ONCE_FLAG_INIT;
static int runs, effect;

static void slow_init(void)
{
	bump(&runs);
	usleep(50000);
	effect = 42;
}

static int once_caller(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 3; i++) {
		call_once(&once, slow_init);
		if (effect != 42)
			return 1;
	}
	return 0;
}

START_TEST(call_once_exactly_once)
{
	enum { N = 8 };
	static once_flag other = ONCE_FLAG_INIT;
	thrd_t t[N];
	int i;

	for (i = 0; i < N; i++)
		t[i] = start(once_caller, NULL);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(join_c11(t[i], 10), 0);
	ck_assert_int_eq(runs, 1);
	call_once(&once, slow_init);
	ck_assert_int_eq(runs, 1);
	/* a second flag runs the same function once more */
	call_once(&other, slow_init);
	call_once(&other, slow_init);
	ck_assert_int_eq(runs, 2);
}
END_TEST

/* ---- 5. tss ---- */
static tss_t key, key2;
static int dcalls, dtid, dnull, worker_tid, dcalls2;
static void *dval;
static int tval, tval2, mval;

static void tss_dtor(void *v)
{
	dval = v;
	dtid = gettid_();
	if (tss_get(key) == NULL)
		dnull++;
	bump(&dcalls);
}

static void tss_dtor_reset(void *v)
{
	bump(&dcalls);
	dval = v;
	tss_set(key, v);
}

static void tss_dtor2(void *v)
{
	(void)v;
	bump(&dcalls2);
}

static int exit_mode;

static int tss_worker(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	if (tss_get(key) != NULL)
		return 1;
	if (tss_set(key, &tval) != thrd_success)
		return 2;
	if (tss_get(key) != &tval)
		return 3;
	if (tss_set(key2, &tval2) != thrd_success ||
	    tss_set(key2, NULL) != thrd_success) /* NULL: no destructor */
		return 4;
	if (exit_mode)
		thrd_exit(7);
	return 7;
}

START_TEST(tss_destructor_at_exit)
{
	exit_mode = _i;
	ck_assert_int_eq(tss_create(&key, tss_dtor), thrd_success);
	ck_assert_int_eq(tss_create(&key2, tss_dtor2), thrd_success);
	ck_assert_ptr_null(tss_get(key));
	ck_assert_int_eq(tss_set(key, &mval), thrd_success);
	ck_assert_ptr_eq(tss_get(key), &mval);

	ck_assert_int_eq(join_c11(start(tss_worker, NULL), 10), 7);
	ck_assert_int_eq(dcalls, 1);
	ck_assert_ptr_eq(dval, &tval);
	ck_assert_int_eq(dtid, worker_tid);
	ck_assert_int_eq(dnull, 1);
	ck_assert_int_eq(dcalls2, 0);
	ck_assert_ptr_eq(tss_get(key), &mval);
	tss_delete(key);
	tss_delete(key2);
	ck_assert_int_eq(dcalls, 1); /* tss_delete calls no destructor */
}
END_TEST

static int tss_reset_worker(void *arg)
{
	(void)arg;
	if (tss_set(key, &tval) != thrd_success)
		return 1;
	if (exit_mode)
		thrd_exit(0);
	return 0;
}

START_TEST(tss_destructor_rounds)
{
	if (harness_skip_under_tsan("tss_destructor_rounds",
				    "its last destructor rounds run after TSan's own thread-exit destructor"))
		return;
	exit_mode = _i;
	ck_assert_int_eq(tss_create(&key, tss_dtor_reset), thrd_success);
	ck_assert_int_eq(join_c11(start(tss_reset_worker, NULL), 10), 0);
	ck_assert_int_eq(dcalls, TSS_DTOR_ITERATIONS);
	ck_assert_ptr_eq(dval, &tval);
}
END_TEST

static int step;

static int tss_holder(void *arg)
{
	(void)arg;
	if (tss_set(key, &tval) != thrd_success)
		return 1;
	__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
	spin_until(&step, 2);
	if (tss_get(key2) != NULL) /* likely the deleted key's slot */
		return 2;
	return 0;
}

START_TEST(tss_delete_then_exit)
{
	thrd_t t;

	ck_assert_int_eq(tss_create(&key, tss_dtor), thrd_success);
	t = start(tss_holder, NULL);
	spin_until(&step, 1);
	tss_delete(key);
	ck_assert_int_eq(tss_create(&key2, tss_dtor2), thrd_success);
	__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
	ck_assert_int_eq(join_c11(t, 10), 0);
	ck_assert_int_eq(dcalls, 0);
	ck_assert_int_eq(dcalls2, 0);
	tss_delete(key2);
}
END_TEST

/* ---- 6. C11 objects through the pthread API ---- */
static int ptrylock_other(void *arg)
{
	pthread_mutex_t *pm = arg;
	int r = pthread_mutex_trylock(pm);

	if (r == 0 && pthread_mutex_unlock(pm) != 0)
		return -1;
	return r;
}

START_TEST(mtx_through_pthread_api)
{
	pthread_mutex_t *pm = (pthread_mutex_t *)&m;

	ck_assert_int_eq(mtx_init(&m, mtx_plain), thrd_success);
	ck_assert_int_eq(mtx_lock(&m), thrd_success);
	ck_assert_int_eq(pthread_mutex_trylock(pm), EBUSY);
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), EBUSY);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), 0);
	ck_assert_int_eq(pthread_mutex_lock(pm), 0);
	ck_assert_int_eq(mtx_trylock(&m), thrd_busy);
	ck_assert_int_eq(join_c11(start(trylock_other, &m), 10), thrd_busy);
	ck_assert_int_eq(pthread_mutex_unlock(pm), 0);
	ck_assert_int_eq(mtx_trylock(&m), thrd_success);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	mtx_destroy(&m);

	/* recursive: one count, two APIs */
	ck_assert_int_eq(mtx_init(&m, mtx_plain | mtx_recursive), thrd_success);
	ck_assert_int_eq(mtx_lock(&m), thrd_success);
	ck_assert_int_eq(pthread_mutex_lock(pm), 0);
	ck_assert_int_eq(pthread_mutex_trylock(pm), 0);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	ck_assert_int_eq(pthread_mutex_unlock(pm), 0);
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), EBUSY);
	ck_assert_int_eq(mtx_unlock(&m), thrd_success);
	ck_assert_int_eq(pthread_mutex_unlock(pm), EPERM); /* not held */
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), 0);
	mtx_destroy(&m);
}
END_TEST

/* C11 leaves mtx_init of another type undefined; glibc makes a plain
 * mutex (thrd_success), and so does fthr. */
START_TEST(mtx_init_unknown_type)
{
	static const int types[] = { 4, 8, 77, -1, mtx_timed | 4, mtx_recursive | 8 };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		ck_assert_int_eq(mtx_init(&m, types[i]), thrd_success);
		ck_assert_int_eq(((pthread_mutex_t *)&m)->__data.__kind & 3, PTHREAD_MUTEX_NORMAL);
		ck_assert_int_eq(mtx_lock(&m), thrd_success);
		ck_assert_int_eq(mtx_trylock(&m), thrd_busy);
		ck_assert_int_eq(mtx_unlock(&m), thrd_success);
		mtx_destroy(&m);
	}
}
END_TEST

/* A cnd_t waited on with a mutex that was locked through the pthread API. */
static int mixed_waiter(void *arg)
{
	pthread_mutex_t *pm = (pthread_mutex_t *)&qm;
	int use_pthread_wait = (int)(intptr_t)arg, r;

	if (pthread_mutex_lock(pm) != 0)
		return 1;
	waiting++;
	while (!go_flag) {
		r = use_pthread_wait
			    ? pthread_cond_wait((pthread_cond_t *)&not_empty, pm)
			    : cnd_wait(&not_empty, &qm);
		if (r != 0) /* thrd_success is 0 too */
			return 2;
	}
	woken++;
	return pthread_mutex_unlock(pm) == 0 ? 0 : 3;
}

START_TEST(cnd_with_pthread_locked_mutex)
{
	pthread_mutex_t *pm = (pthread_mutex_t *)&qm;
	struct timespec dl;
	thrd_t t[2];
	int i, n;

	ck_assert_int_eq(mtx_init(&qm, types[_i]), thrd_success);
	ck_assert_int_eq(cnd_init(&not_empty), thrd_success);

	/* a timed wait under a pthread-locked mtx_t returns with it held */
	ck_assert_int_eq(pthread_mutex_lock(pm), 0);
	dl = utc_in(50);
	ck_assert_int_eq(cnd_timedwait(&not_empty, &qm, &dl), thrd_timedout);
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(pm), 0);
	ck_assert_int_eq(join_c11(start(ptrylock_other, pm), 10), 0);

	/* one waiter in cnd_wait, one in pthread_cond_wait on the cnd_t */
	for (i = 0; i < 2; i++)
		t[i] = start(mixed_waiter, (void *)(intptr_t)i);
	do {
		usleep(1000);
		ck_assert_int_eq(pthread_mutex_lock(pm), 0);
		n = waiting;
		ck_assert_int_eq(pthread_mutex_unlock(pm), 0);
	} while (n < 2);
	usleep(10000);
	ck_assert_int_eq(mtx_lock(&qm), thrd_success);
	go_flag = 1;
	ck_assert_int_eq(cnd_signal(&not_empty), thrd_success);
	ck_assert_int_eq(pthread_cond_signal((pthread_cond_t *)&not_empty), 0);
	ck_assert_int_eq(mtx_unlock(&qm), thrd_success);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(join_c11(t[i], 10), 0);
	ck_assert_int_eq(woken, 2);
	cnd_destroy(&not_empty);
	mtx_destroy(&qm);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("c11");
	TCase *tc;

	tc = harness_tcase(s, "mtx", 10);
	tcase_add_loop_test(tc, mtx_each_type, 0, 4);
	tc = harness_tcase(s, "contention", 60);
	tcase_add_loop_test(tc, mtx_contention, 0, 4);
	tc = harness_tcase(s, "timed", 20);
	tcase_add_loop_test(tc, mtx_timedlock_times_out, 0, 2);
	tc = harness_tcase(s, "cnd", 30);
	tcase_add_test(tc, cnd_producer_consumer);
	tcase_add_loop_test(tc, cnd_broadcast_wakes_all, 0, 4);
	tcase_add_test(tc, cnd_timedwait_timeout_and_wakeup);
	tc = harness_tcase(s, "once", 10);
	tcase_add_test(tc, call_once_exactly_once);
	tc = harness_tcase(s, "tss", 10);
	tcase_add_loop_test(tc, tss_destructor_at_exit, 0, 2);
	tcase_add_loop_test(tc, tss_destructor_rounds, 0, 2);
	tcase_add_test(tc, tss_delete_then_exit);
	tc = harness_tcase(s, "mixed", 10);
	tcase_add_test(tc, mtx_through_pthread_api);
	tcase_add_test(tc, mtx_init_unknown_type);
	tcase_add_loop_test(tc, cnd_with_pthread_locked_mutex, 0, 4);
	return harness_main(s);
}
