/* tests/t_once.c: pthread_once: exactly once, waiters see the effect,
 * cancellation and longjmp let another caller run it, fork keeps the child
 * usable. */
#include <setjmp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dlfcn.h>
#include "harness.h"

/* pthread_once, or, under ThreadSanitizer, fthr's pthread_once reached by
 * name: TSan replaces the program's pthread_once with its own, which never
 * calls the library's, so the suite would test TSan's. fthr announces its
 * once to TSan (lib/tsan.h), and that is what runs here. */
static int (*once_call)(pthread_once_t *, void (*)(void)) = pthread_once;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int runs, effect;

static void slow_init(void)
{
	__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
	usleep(50000);
	effect = 42;
}

static void *caller(void *arg)
{
	(void)arg;
	if (once_call(&once, slow_init) != 0)
		return (void *)1;
	return (void *)(long)(effect == 42 ? 0 : 2);
}

START_TEST(exactly_once_waiters_see_effect)
{
	enum { N = 8 };
	pthread_t t[N];
	int i;

	for (i = 0; i < N; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, caller, NULL), 0);
	for (i = 0; i < N; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(once_call(&once, slow_init), 0);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(once, 2); /* glibc's "done" value */
}
END_TEST

/* ---- cancellation inside the initializer ---- */
static int pipefd[2];
static void blocking_init(void)
{
	char c;

	__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
	(void)read(pipefd[0], &c, 1); /* a cancellation point */
	effect = -1; /* must not be reached */
}

static void quick_init(void)
{
	__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
	effect = 7;
}

static void *cancel_victim(void *arg)
{
	(void)arg;
	once_call(&once, blocking_init);
	return (void *)1;
}

static void *quick_caller(void *arg)
{
	(void)arg;
	once_call(&once, quick_init);
	return (void *)(long)effect;
}

START_TEST(cancelled_init_lets_another_run)
{
	pthread_t t, w;

	if (harness_skip_under_asan("cancelled_init_lets_another_run"))
		return;

	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, cancel_victim, NULL), 0);
	while (__atomic_load_n(&runs, __ATOMIC_RELAXED) == 0)
		usleep(1000);
	/* a second caller waits for the runner */
	ck_assert_int_eq(pthread_create(&w, NULL, quick_caller, NULL), 0);
	usleep(20000);
	ck_assert_int_eq(pthread_cancel(t), 0);
	ck_assert_ptr_eq(harness_join(t, 10), PTHREAD_CANCELED);
	ck_assert_int_eq((long)harness_join(w, 10), 7);
	ck_assert_int_eq(runs, 2);
	ck_assert_int_eq(once, 2);
	ck_assert_int_eq(once_call(&once, blocking_init), 0);
	ck_assert_int_eq(runs, 2);
}
END_TEST

/* ---- longjmp out of the initializer ---- */
static jmp_buf jb;
static void jumping_init(void)
{
	__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
	longjmp(jb, 1);
}

START_TEST(longjmp_out_lets_another_run)
{
	pthread_t w;

	if (setjmp(jb) == 0) {
		once_call(&once, jumping_init);
		ck_abort_msg("init returned normally");
	}
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(once, 0); /* back to "not run" */
	/* another thread runs it now */
	ck_assert_int_eq(pthread_create(&w, NULL, quick_caller, NULL), 0);
	ck_assert_int_eq((long)harness_join(w, 10), 7);
	ck_assert_int_eq(runs, 2);
}
END_TEST

/* ---- fork ---- */
static void *runner_in_parent(void *arg)
{
	(void)arg;
	once_call(&once, blocking_init);
	return NULL;
}

START_TEST(fork_while_another_thread_runs_init)
{
	pthread_t t;
	pid_t pid;
	int status;

	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, runner_in_parent, NULL), 0);
	while (__atomic_load_n(&runs, __ATOMIC_RELAXED) == 0)
		usleep(1000);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The runner does not exist here: we must run init ourselves. */
		alarm(10);
		once_call(&once, quick_init);
		_exit(effect == 7 && runs == 2 && once == 2 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child of fork could not run pthread_once: status %d", status);
	ck_assert_int_eq(write(pipefd[1], "x", 1), 1); /* let the parent's runner finish */
	harness_join(t, 10);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(once, 2);
}
END_TEST

static pid_t forked;
static void forking_init(void)
{
	__atomic_add_fetch(&runs, 1, __ATOMIC_RELAXED);
	forked = fork();
}

START_TEST(fork_inside_init)
{
	int status;

	ck_assert_int_eq(once_call(&once, forking_init), 0);
	ck_assert_int_eq(once_call(&once, forking_init), 0);
	if (forked == 0)
		_exit(runs == 1 && once == 2 ? 0 : 1);
	ck_assert_int_gt(forked, 0);
	ck_assert_int_eq(waitpid(forked, &status, 0), forked);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %d", status);
	ck_assert_int_eq(runs, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("once");
	TCase *tc = harness_tcase(s, "once", 20);
	void *fthr = dlopen("libfthr.so.0", RTLD_NOW | RTLD_NOLOAD);

	if (harness_under_tsan() && fthr)
		once_call = (int (*)(pthread_once_t *, void (*)(void)))dlsym(fthr, "pthread_once");

	tcase_add_test(tc, exactly_once_waiters_see_effect);
	tcase_add_test(tc, cancelled_init_lets_another_run);
	tcase_add_test(tc, longjmp_out_lets_another_run);
	tcase_add_test(tc, fork_while_another_thread_runs_init);
	tcase_add_test(tc, fork_inside_init);
	return harness_main(s);
}
