/* tests/t_key.c: thread-specific data: values are per thread, the key limit,
 * destructors (rounds, one key's destructor setting another, the main
 * thread's pthread_exit, threads that predate the first key), a deleted
 * key's slot reused without leaking old values, error codes, and exact
 * destructor counts with many threads. */
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

static int gettid_(void) { return (int)syscall(SYS_gettid); }

/* Poll (bounded by the tcase timeout) until *p reaches v. */
static void spin_until(int *p, int v)
{
	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) < v)
		usleep(500);
}

static void bump(int *p) { __atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL); }

/* Loop tests: _i == 0 ends threads by returning, 1 by pthread_exit. */
static int exit_mode;
static void *finish(void *ret)
{
	if (exit_mode)
		pthread_exit(ret);
	return ret;
}

/* What a destructor saw. */
struct rec {
	int calls;
	void *value;	/* the last value it was called with */
	int tid;	/* the thread it last ran in */
	int saw_null;	/* calls where getspecific(key) was already NULL */
};

static pthread_key_t ka, kb, kn, kr, kx, ky, kz;
static struct rec ra, rb, rn, rr, rx, ry, rz;
static int va, vb, vn, vr, vy, vz, vmain;

static void note(struct rec *r, pthread_key_t k, void *v)
{
	r->value = v;
	r->tid = gettid_();
	if (pthread_getspecific(k) == NULL)
		r->saw_null++;
	bump(&r->calls);
}

static void dtor_a(void *v) { note(&ra, ka, v); }
static void dtor_b(void *v) { note(&rb, kb, v); }
static void dtor_n(void *v) { note(&rn, kn, v); }
/* Sets its own key again every time: called once per round. */
static void dtor_r(void *v)
{
	note(&rr, kr, v);
	pthread_setspecific(kr, v);
}
/* Sets two other keys: one created before kx, one after. */
static void dtor_x(void *v)
{
	note(&rx, kx, v);
	pthread_setspecific(ky, &vy);
	pthread_setspecific(kz, &vz);
}
static void dtor_y(void *v) { note(&ry, ky, v); }
static void dtor_z(void *v) { note(&rz, kz, v); }

/* ---- 1. values are per thread ---- */
static int arrived;

static void *per_thread(void *arg)
{
	int mine; /* an address no other thread has */
	int idx = (int)(intptr_t)arg;

	if (pthread_getspecific(ka) != NULL)
		return (void *)1;
	if (pthread_setspecific(ka, &mine) != 0)
		return (void *)2;
	bump(&arrived);
	spin_until(&arrived, 3); /* both threads and main have set theirs */
	if (pthread_getspecific(ka) != &mine)
		return (void *)3;
	if (idx == 0) { /* the other one exits with its value still set */
		if (pthread_setspecific(ka, NULL) != 0)
			return (void *)4;
		if (pthread_getspecific(ka) != NULL)
			return (void *)5;
	}
	return NULL;
}

static void *reads_null(void *arg)
{
	(void)arg;
	if (pthread_getspecific(ka) != NULL)
		return (void *)1;
	if (pthread_getspecific(kb) != NULL)
		return (void *)2;
	return NULL;
}

START_TEST(values_per_thread)
{
	pthread_t t[2];
	int a = 1, b = 2, i;

	ck_assert_int_eq(pthread_key_create(&ka, NULL), 0);
	ck_assert_int_eq(pthread_key_create(&kb, NULL), 0);
	ck_assert_uint_ne(ka, kb);
	ck_assert_ptr_null(pthread_getspecific(ka));
	ck_assert_int_eq(pthread_setspecific(ka, &a), 0);
	ck_assert_ptr_eq(pthread_getspecific(ka), &a);
	ck_assert_ptr_null(pthread_getspecific(kb));
	ck_assert_int_eq(pthread_setspecific(ka, &b), 0);
	ck_assert_ptr_eq(pthread_getspecific(ka), &b);
	ck_assert_int_eq(pthread_setspecific(kb, &a), 0);
	ck_assert_ptr_eq(pthread_getspecific(kb), &a);
	ck_assert_ptr_eq(pthread_getspecific(ka), &b);

	for (i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, per_thread,
						(void *)(intptr_t)i), 0);
	bump(&arrived);
	for (i = 0; i < 2; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_ptr_eq(pthread_getspecific(ka), &b);
	ck_assert_ptr_eq(pthread_getspecific(kb), &a);

	/* New threads (likely on a recycled descriptor/stack) read NULL. */
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_create(&t[0], NULL, reads_null, NULL), 0);
		ck_assert_ptr_null(harness_join(t[0], 10));
	}
	ck_assert_int_eq(pthread_setspecific(ka, NULL), 0);
	ck_assert_ptr_null(pthread_getspecific(ka));
	ck_assert_int_eq(pthread_key_delete(ka), 0);
	ck_assert_int_eq(pthread_key_delete(kb), 0);
}
END_TEST

/* ---- 2. PTHREAD_KEYS_MAX keys, then EAGAIN ---- */
enum { KEYS_CAP = 4 * PTHREAD_KEYS_MAX };
static pthread_key_t many[KEYS_CAP];
static int nmany;

static int create_until_full(int *last)
{
	int n;

	for (n = 0; n < KEYS_CAP; n++)
		if ((*last = pthread_key_create(&many[n], NULL)) != 0)
			break;
	return n;
}

static void *all_null(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < nmany; i++)
		if (pthread_getspecific(many[i]) != NULL)
			return (void *)(intptr_t)(i + 1);
	return NULL;
}

START_TEST(keys_max_then_eagain)
{
	pthread_key_t extra;
	pthread_t t;
	int n, n2, r = 0, i;

	n = create_until_full(&r);
	ck_assert_msg(n < KEYS_CAP, "no limit after %d keys", n);
	ck_assert_int_eq(r, EAGAIN);
	ck_assert_msg(n >= PTHREAD_KEYS_MAX - 8, "only %d keys (PTHREAD_KEYS_MAX %d)",
		      n, PTHREAD_KEYS_MAX);
	ck_assert_int_eq(pthread_key_create(&extra, NULL), EAGAIN);
	nmany = n;

	/* All distinct and usable: each holds its own value. */
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_setspecific(many[i], (void *)(intptr_t)(i + 1)), 0);
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(pthread_getspecific(many[i]), (void *)(intptr_t)(i + 1));
	ck_assert_int_eq(pthread_create(&t, NULL, all_null, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));

	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_key_delete(many[i]), 0);

	/* Deleting freed every slot: the same number again, all reading NULL
	 * although this thread left values in every old slot. */
	n2 = create_until_full(&r);
	ck_assert_int_eq(n2, n);
	ck_assert_int_eq(r, EAGAIN);
	for (i = 0; i < n2; i++)
		ck_assert_ptr_null(pthread_getspecific(many[i]));
	for (i = 0; i < n2; i++)
		ck_assert_int_eq(pthread_key_delete(many[i]), 0);
	ck_assert_int_eq(pthread_key_create(&extra, NULL), 0);
	ck_assert_int_eq(pthread_key_delete(extra), 0);
}
END_TEST

/* ---- 3. destructors at thread exit ---- */
static int worker_tid;

static void *basic_worker(void *arg)
{
	static int first, other;

	(void)arg;
	worker_tid = gettid_();
	if (pthread_setspecific(ka, &first) || pthread_setspecific(ka, &va))
		return (void *)1; /* only the last value is destroyed */
	if (pthread_setspecific(kn, &vn) || pthread_setspecific(kn, NULL))
		return (void *)2; /* NULL again: no destructor */
	if (pthread_setspecific(kb, &other))
		return (void *)3; /* no destructor function */
	return finish(NULL);
}

START_TEST(destructors_basic)
{
	pthread_t t;
	pthread_key_t knone;

	exit_mode = _i;
	ck_assert_int_eq(pthread_key_create(&ka, dtor_a), 0);
	ck_assert_int_eq(pthread_key_create(&kn, dtor_n), 0);
	ck_assert_int_eq(pthread_key_create(&kb, NULL), 0);
	ck_assert_int_eq(pthread_key_create(&knone, dtor_b), 0); /* never set */
	ck_assert_int_eq(pthread_setspecific(ka, &vmain), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, basic_worker, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));

	ck_assert_int_eq(ra.calls, 1);
	ck_assert_ptr_eq(ra.value, &va);
	ck_assert_int_eq(ra.tid, worker_tid); /* in the exiting thread */
	ck_assert_int_eq(ra.saw_null, 1);     /* value cleared before the call */
	ck_assert_int_eq(rn.calls, 0);
	ck_assert_int_eq(rb.calls, 0);
	ck_assert_ptr_eq(pthread_getspecific(ka), &vmain); /* main's untouched */
}
END_TEST

static void *reset_worker(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	if (pthread_setspecific(kr, &vr))
		return (void *)1;
	return finish(NULL);
}

START_TEST(destructor_rounds_bounded)
{
	pthread_t t;

	if (harness_skip_under_tsan("destructor_rounds_bounded", "the last destructor round runs after TSan finished the thread, with glibc too"))
		return;

	exit_mode = _i;
	ck_assert_int_eq(pthread_key_create(&kr, dtor_r), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, reset_worker, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(rr.calls, PTHREAD_DESTRUCTOR_ITERATIONS);
	ck_assert_int_eq(rr.saw_null, PTHREAD_DESTRUCTOR_ITERATIONS);
	ck_assert_ptr_eq(rr.value, &vr);
	ck_assert_int_eq(rr.tid, worker_tid);
}
END_TEST

static void *cross_worker(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	if (pthread_setspecific(kx, &va))
		return (void *)1;
	return finish(NULL);
}

START_TEST(destructor_sets_other_keys)
{
	pthread_t t;

	exit_mode = _i;
	/* ky before kx, kz after it: whatever order destructors run in, one
	 * of them is set "behind" the scan. */
	ck_assert_int_eq(pthread_key_create(&ky, dtor_y), 0);
	ck_assert_int_eq(pthread_key_create(&kx, dtor_x), 0);
	ck_assert_int_eq(pthread_key_create(&kz, dtor_z), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, cross_worker, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(rx.calls, 1);
	ck_assert_ptr_eq(rx.value, &va);
	ck_assert_int_eq(ry.calls, 1);
	ck_assert_ptr_eq(ry.value, &vy);
	ck_assert_int_eq(ry.tid, worker_tid);
	ck_assert_int_eq(ry.saw_null, 1);
	ck_assert_int_eq(rz.calls, 1);
	ck_assert_ptr_eq(rz.value, &vz);
	ck_assert_int_eq(rz.tid, worker_tid);
	ck_assert_int_eq(rz.saw_null, 1);
}
END_TEST

/* ---- 4. the main thread's pthread_exit runs destructors; exit() not ---- */
static int mpipe[2];
static pthread_key_t mk;
static char mval = 'K';

/* Writes 'K' if called right: main thread, its value, already cleared. */
static void main_dtor(void *v)
{
	char c = 'K';

	if (v != &mval)
		c = 'V';
	else if (gettid_() != getpid())
		c = 'T';
	else if (pthread_getspecific(mk) != NULL)
		c = 'N';
	(void)!write(mpipe[1], &c, 1);
}

static void *main_exit_waiter(void *arg)
{
	struct pollfd p = { .fd = mpipe[0], .events = POLLIN };
	char c = 0;

	(void)arg;
	if (poll(&p, 1, 2000) == 1 && read(mpipe[0], &c, 1) == 1)
		_exit(c == 'K' ? 0 : c);
	_exit(1); /* no destructor call within 2 s */
}

/* Wait for a child, at most 'secs' seconds. */
static int wait_child(pid_t pid, int secs)
{
	int status = 0, i;

	for (i = 0; i < secs * 100; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ck_abort_msg("child did not finish within %d s", secs);
	return -1;
}

/* In a child of the test process: no ck_assert, exit codes only. */
static void child_setup(void)
{
	signal(SIGALRM, SIG_DFL); /* not Check's handler */
	alarm(5);
}

START_TEST(main_thread_pthread_exit_runs_destructors)
{
	pid_t pid;
	int status;

	ck_assert_int_eq(pipe(mpipe), 0);
	fflush(NULL); /* the child's exit() must not repeat our output */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pthread_t w;

		child_setup();
		if (pthread_key_create(&mk, main_dtor) != 0)
			_exit(3);
		if (pthread_create(&w, NULL, main_exit_waiter, NULL) != 0)
			_exit(4);
		if (pthread_setspecific(mk, &mval) != 0)
			_exit(5);
		pthread_exit(NULL);
	}
	status = wait_child(pid, 10);
	ck_assert_msg(!WIFSIGNALED(status), "child killed by signal %d",
		      WTERMSIG(status));
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child exit %d (1: no destructor call, 'V' %d: wrong value, "
		      "'T' %d: wrong thread, 'N' %d: value not cleared first)",
		      WEXITSTATUS(status), 'V', 'T', 'N');
}
END_TEST

START_TEST(exit_does_not_run_destructors)
{
	pid_t pid;
	int status;
	char c;

	ck_assert_int_eq(pipe(mpipe), 0);
	fflush(NULL); /* the child's exit() must not repeat our output */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		child_setup();
		close(mpipe[0]);
		if (pthread_key_create(&mk, main_dtor) != 0)
			_exit(3);
		if (pthread_setspecific(mk, &mval) != 0)
			_exit(5);
		exit(0);
	}
	close(mpipe[1]);
	status = wait_child(pid, 10);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %d", status);
	/* every write end is closed: EOF unless the destructor wrote */
	ck_assert_int_eq(read(mpipe[0], &c, 1), 0);
}
END_TEST

/* ---- 5. a thread that predates the first pthread_key_create ---- */
static int gate[2], early_started;

static void *early_thread(void *arg)
{
	struct pollfd p = { .fd = gate[0], .events = POLLIN };
	char c;

	(void)arg;
	worker_tid = gettid_();
	bump(&early_started);
	if (poll(&p, 1, 10000) != 1 || read(gate[0], &c, 1) != 1)
		return (void *)1;
	if (pthread_getspecific(ka) != NULL)
		return (void *)2;
	if (pthread_setspecific(ka, &va) != 0)
		return (void *)3;
	if (pthread_getspecific(ka) != &va)
		return (void *)4;
	if (pthread_setspecific(kb, &vb) != 0)
		return (void *)5;
	return finish(NULL);
}

START_TEST(destructors_for_thread_predating_keys)
{
	pthread_t t;

	exit_mode = _i;
	ck_assert_int_eq(pipe(gate), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, early_thread, NULL), 0);
	spin_until(&early_started, 1);
	usleep(10000); /* it is blocked in poll now */
	ck_assert_int_eq(pthread_key_create(&ka, dtor_a), 0);
	ck_assert_int_eq(pthread_key_create(&kb, dtor_b), 0);
	ck_assert_int_eq(write(gate[1], "g", 1), 1);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(ra.calls, 1);
	ck_assert_ptr_eq(ra.value, &va);
	ck_assert_int_eq(ra.tid, worker_tid);
	ck_assert_int_eq(rb.calls, 1);
	ck_assert_ptr_eq(rb.value, &vb);
	ck_assert_int_eq(rb.tid, worker_tid);
}
END_TEST

/* ---- 6. a deleted key's slot, reused, does not leak old values ---- */
static pthread_key_t k_old, k_new;
static int step;

static void *holder(void *arg)
{
	(void)arg;
	worker_tid = gettid_();
	if (pthread_setspecific(k_old, &va) != 0)
		return (void *)1;
	__atomic_store_n(&step, 1, __ATOMIC_RELEASE);
	spin_until(&step, 2); /* main deletes k_old, creates k_new */
	if (pthread_getspecific(k_new) != NULL)
		return (void *)2;
	return finish(NULL);
}

START_TEST(reused_slot_starts_null)
{
	pthread_t t;

	exit_mode = _i;
	ck_assert_int_eq(pthread_key_create(&k_old, dtor_a), 0);
	ck_assert_int_eq(pthread_setspecific(k_old, &vmain), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, holder, NULL), 0);
	spin_until(&step, 1);
	ck_assert_int_eq(pthread_key_delete(k_old), 0);
	ck_assert_int_eq(pthread_key_create(&k_new, dtor_b), 0);
	ck_assert_ptr_null(pthread_getspecific(k_new)); /* not vmain */
	__atomic_store_n(&step, 2, __ATOMIC_RELEASE);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(ra.calls, 0); /* deleted key: no destructor */
	ck_assert_int_eq(rb.calls, 0); /* new key never set */
	ck_assert_int_eq(pthread_key_delete(k_new), 0);
}
END_TEST

static void *cycler(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 2 * PTHREAD_KEYS_MAX; i++) {
		if (pthread_key_create(&ka, dtor_a) != 0)
			return (void *)1;
		if (pthread_getspecific(ka) != NULL)
			return (void *)2;
		if (pthread_setspecific(ka, &va) != 0)
			return (void *)3;
		if (pthread_key_delete(ka) != 0)
			return (void *)4;
		if (pthread_key_create(&kb, dtor_b) != 0)
			return (void *)5;
		if (pthread_getspecific(kb) != NULL)
			return (void *)6;
		if (pthread_key_delete(kb) != 0)
			return (void *)7;
	}
	/* Exit with values left in (probably) the same slot as kb below. */
	if (pthread_key_create(&ka, dtor_a) != 0 ||
	    pthread_setspecific(ka, &va) != 0 || pthread_key_delete(ka) != 0)
		return (void *)8;
	if (pthread_key_create(&kb, dtor_b) != 0)
		return (void *)9;
	return NULL;
}

START_TEST(create_delete_cycles)
{
	pthread_t t;
	int i;

	for (i = 0; i < 3 * PTHREAD_KEYS_MAX; i++) {
		pthread_key_t k;

		ck_assert_int_eq(pthread_key_create(&k, NULL), 0);
		ck_assert_ptr_null(pthread_getspecific(k));
		ck_assert_int_eq(pthread_setspecific(k, &vmain), 0);
		ck_assert_ptr_eq(pthread_getspecific(k), &vmain);
		ck_assert_int_eq(pthread_key_delete(k), 0);
	}
	ck_assert_int_eq(pthread_create(&t, NULL, cycler, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 20));
	ck_assert_int_eq(ra.calls, 0);
	ck_assert_int_eq(rb.calls, 0);
}
END_TEST

/* ---- 7. error codes ---- */
static void *get_in_thread(void *arg)
{
	(void)arg;
	return pthread_getspecific(ka);
}

START_TEST(invalid_keys)
{
	pthread_key_t k;
	pthread_t t;

	ck_assert_int_eq(pthread_key_create(&k, dtor_a), 0);
	ck_assert_int_eq(pthread_setspecific(k, &va), 0);
	ck_assert_int_eq(pthread_key_delete(k), 0);
	ck_assert_int_eq(pthread_key_delete(k), EINVAL);
	ck_assert_int_eq(pthread_setspecific(k, &va), EINVAL);
	ck_assert_int_eq(pthread_setspecific(k, NULL), EINVAL);
	ck_assert_int_eq(pthread_key_delete((pthread_key_t)-1), EINVAL);
	ck_assert_int_eq(pthread_setspecific((pthread_key_t)-1, &va), EINVAL);
	ck_assert_int_eq(ra.calls, 0);

	/* a valid key in a thread that never set it */
	ck_assert_int_eq(pthread_key_create(&ka, dtor_a), 0);
	ck_assert_int_eq(pthread_setspecific(ka, &vmain), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, get_in_thread, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(ra.calls, 0);
	ck_assert_int_eq(pthread_key_delete(ka), 0);
}
END_TEST

/* ---- 8. many threads, several keys each, exact destructor counts ---- */
enum { NT = 16, NK = 200, NUSED = 6 };
static const int used_idx[NUSED] = { 0, 31, 32, 63, 64, NK - 1 };
static pthread_key_t mkeys[NK];
struct cell {
	int calls, tid, wrong_value;
};
static struct cell cells[NT][NUSED];
static int stray_calls, mt_arrived;

struct mt_arg {
	int idx, tid;
};

static void cell_dtor(void *v)
{
	struct cell *c = v;

	if (c < &cells[0][0] || c >= (struct cell *)(cells + NT)) {
		bump(&stray_calls);
		return;
	}
	c->tid = gettid_();
	bump(&c->calls);
}

static int is_set(int t, int j) { return (t + j) % 3 != 0; }

static void *mt_worker(void *arg)
{
	struct mt_arg *a = arg;
	int j;

	a->tid = gettid_();
	for (j = 0; j < NUSED; j++)
		if (is_set(a->idx, j) &&
		    pthread_setspecific(mkeys[used_idx[j]], &cells[a->idx][j]) != 0)
			return (void *)1;
	bump(&mt_arrived);
	spin_until(&mt_arrived, NT); /* exit all together */
	for (j = 0; j < NUSED; j++)
		if (pthread_getspecific(mkeys[used_idx[j]]) !=
		    (is_set(a->idx, j) ? &cells[a->idx][j] : NULL))
			return (void *)2;
	if (a->idx & 1)
		pthread_exit(NULL);
	return NULL;
}

START_TEST(many_threads_exact_counts)
{
	struct mt_arg args[NT];
	int i, j, expect = 0, total = 0;

	for (i = 0; i < NK; i++)
		ck_assert_int_eq(pthread_key_create(&mkeys[i], cell_dtor), 0);
	for (i = 0; i < NT; i++)
		args[i].idx = i;
	harness_run_threads(NT, mt_worker, args, sizeof(args[0]), 20);
	for (i = 0; i < NT; i++)
		for (j = 0; j < NUSED; j++) {
			struct cell *c = &cells[i][j];

			ck_assert_msg(c->calls == (is_set(i, j) ? 1 : 0),
				      "thread %d key #%d: %d calls", i, used_idx[j],
				      c->calls);
			if (c->calls)
				ck_assert_int_eq(c->tid, args[i].tid);
			expect += is_set(i, j);
			total += c->calls;
		}
	ck_assert_int_eq(total, expect);
	ck_assert_int_eq(stray_calls, 0);
	for (i = 0; i < NK; i++)
		ck_assert_int_eq(pthread_key_delete(mkeys[i]), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("key");
	TCase *tc;

	tc = harness_tcase(s, "basic", 10);
	tcase_add_test(tc, values_per_thread);
	tcase_add_test(tc, invalid_keys);
	tc = harness_tcase(s, "limit", 20);
	tcase_add_test(tc, keys_max_then_eagain);
	tc = harness_tcase(s, "destructors", 10);
	tcase_add_loop_test(tc, destructors_basic, 0, 2);
	tcase_add_loop_test(tc, destructor_rounds_bounded, 0, 2);
	tcase_add_loop_test(tc, destructor_sets_other_keys, 0, 2);
	tcase_add_loop_test(tc, destructors_for_thread_predating_keys, 0, 2);
	tc = harness_tcase(s, "process", 20);
	tcase_add_test(tc, main_thread_pthread_exit_runs_destructors);
	tcase_add_test(tc, exit_does_not_run_destructors);
	tc = harness_tcase(s, "reuse", 20);
	tcase_add_loop_test(tc, reused_slot_starts_null, 0, 2);
	tcase_add_test(tc, create_delete_cycles);
	tc = harness_tcase(s, "many", 30);
	tcase_add_test(tc, many_threads_exact_counts);
	return harness_main(s);
}
