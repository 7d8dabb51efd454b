/* tests/harness.c: see harness.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "harness.h"

TCase *harness_tcase(Suite *s, const char *name, double seconds)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, seconds);
	suite_add_tcase(s, tc);
	return tc;
}

int64_t harness_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct timespec harness_deadline(clockid_t clk, long ms)
{
	int64_t t = harness_now_ns(clk) + (int64_t)ms * 1000000;
	struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

	if (ts.tv_nsec < 0) {
		ts.tv_nsec += 1000000000;
		ts.tv_sec--;
	}
	return ts;
}

void *harness_join(pthread_t t, double seconds)
{
	struct timespec dl = harness_deadline(CLOCK_REALTIME, (long)(seconds * 1000));
	void *ret = NULL;
	int r = pthread_timedjoin_np(t, &ret, &dl);

	ck_assert_msg(r == 0, "thread did not finish within %.1fs (%s)", seconds,
		      strerror(r));
	return ret;
}

struct cancel_looping {
	void (*cleanup)(void *);
	void *arg;
};

static void *cancel_looping_thread(void *p)
{
	struct cancel_looping *c = p;

	pthread_cleanup_push(c->cleanup, c->arg);
	for (;;) {
		pthread_testcancel();
		usleep(1000);
	}
	pthread_cleanup_pop(0);
	return NULL;
}

void *harness_cancel_looping(void (*cleanup)(void *), void *arg, double seconds)
{
	struct cancel_looping c = { cleanup, arg };
	pthread_t t;

	ck_assert_int_eq(pthread_create(&t, NULL, cancel_looping_thread, &c), 0);
	usleep(10000);
	ck_assert_int_eq(pthread_cancel(t), 0);
	return harness_join(t, seconds);
}

void harness_run_threads(int n, void *(*fn)(void *), void *args, size_t argsize,
			 double seconds)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	int i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn,
						(char *)args + (size_t)i * argsize), 0);
	for (i = 0; i < n; i++)
		harness_join(t[i], seconds);
	free(t);
}

static int task_state(int tid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	/* (/proc/TID works for any thread, of this process or another) */
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return (p && p[1] == ' ') ? p[2] : -1;
}

void harness_wait_asleep(int tid, double seconds)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + (int64_t)(seconds * 1e9);
	int seen = 0, st;

	for (;;) {
		st = task_state(tid);
		if (st < 0) {
			usleep(200000);
			return;
		}
		seen = (st == 'S') ? seen + 1 : 0;
		if (seen >= 2)
			return;
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "thread %d never went to sleep (state %c)", tid, st);
		usleep(seen ? 50000 : 1000);
	}
}

void harness_wait_tid_gone(int tid, double seconds)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + (int64_t)(seconds * 1e9);

	while (syscall(SYS_tgkill, getpid(), tid, 0) == 0) {
		ck_assert_msg(harness_now_ns(CLOCK_MONOTONIC) < end,
			      "task %d still there after its join", tid);
		usleep(1000);
	}
	ck_assert_int_eq(errno, ESRCH);
}

int harness_wait_nonzero(int *p, double seconds)
{
	int64_t end = harness_now_ns(CLOCK_MONOTONIC) + (int64_t)(seconds * 1e9);

	while (__atomic_load_n(p, __ATOMIC_SEQ_CST) == 0) {
		if (harness_now_ns(CLOCK_MONOTONIC) > end)
			return 0;
		usleep(200);
	}
	return 1;
}

void harness_mutex_init(pthread_mutex_t *m, int type, int pshared, int robust,
			int protocol)
{
	pthread_mutexattr_t a;

	ck_assert_int_eq(pthread_mutexattr_init(&a), 0);
	ck_assert_int_eq(pthread_mutexattr_settype(&a, type), 0);
	ck_assert_int_eq(pthread_mutexattr_setpshared(&a, pshared), 0);
	ck_assert_int_eq(pthread_mutexattr_setrobust(&a, robust), 0);
	ck_assert_int_eq(pthread_mutexattr_setprotocol(&a, protocol), 0);
	ck_assert_int_eq(pthread_mutex_init(m, &a), 0);
	ck_assert_int_eq(pthread_mutexattr_destroy(&a), 0);
}

bool harness_under_qemu(void)
{
	void *head;
	size_t len;

	return syscall(SYS_get_robust_list, 0, &head, &len) != 0 && errno == ENOSYS;
}

bool harness_skip_without_robust_list(const char *test)
{
	if (!harness_under_qemu())
		return false;
	fprintf(stderr, "%s: SKIPPED, qemu does not implement set_robust_list/"
			"get_robust_list (ENOSYS): no robust mutexes here\n", test);
	return true;
}

bool harness_skip_under_qemu_i386(const char *test, const char *why)
{
#if defined(__i386__)
	if (harness_under_qemu()) {
		fprintf(stderr, "%s: SKIPPED under qemu-i386, %s (plain glibc "
				"fails it there too)\n", test, why);
		return true;
	}
#endif
	(void)test;
	(void)why;
	return false;
}

/* FUTEX_LOCK_PI on a free word must leave the caller's tid in it (then
 * FUTEX_UNLOCK_PI frees it again); a byte-swapped tid is the emulator's. */
bool harness_skip_without_pi_futex(const char *test)
{
	int w = 0, seen, tid = (int)syscall(SYS_gettid);

	if (syscall(SYS_futex, &w, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) != 0)
		return false; /* the test itself says what is wrong */
	seen = w;
	syscall(SYS_futex, &w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
	if ((seen & FUTEX_TID_MASK) == tid)
		return false;
	w = seen;
	fprintf(stderr, "%s: SKIPPED, the kernel wrote the PI futex owner 0x%x for "
			"tid 0x%x (FUTEX_LOCK_PI): qemu-user on a host of the other byte "
			"order, where no PI mutex works, glibc's neither\n", test, w, tid);
	return true;
}

bool harness_skip_under_asan(const char *test)
{
	if (!dlsym(RTLD_DEFAULT, "__asan_init"))
		return false;
	fprintf(stderr, "%s: SKIPPED under AddressSanitizer (cancellation's forced "
			"unwinding leaves stack poison ASan reports at thread exit, "
			"on plain glibc too)\n", test);
	return true;
}

bool harness_under_tsan(void)
{
	return dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
}

bool harness_skip_under_tsan(const char *test, const char *why)
{
	if (!harness_under_tsan())
		return false;
	fprintf(stderr, "%s: SKIPPED under ThreadSanitizer (%s)\n", test, why);
	return true;
}

const char *harness_peer_path(const char *name)
{
	static char p[512];
	const char *b = getenv("FTHR_BUILDDIR");

	snprintf(p, sizeof(p), "%s/tests/%s", b ? b : ".", name);
	return p;
}

pid_t harness_spawn_peer(char *const argv[])
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		unsetenv("LD_PRELOAD"); /* the peer runs plain glibc */
		execv(harness_peer_path(argv[0]), argv);
		_exit(127);
	}
	return pid;
}

int harness_status(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *harness_object_of(void *fn)
{
	Dl_info info;

	if (!dladdr(fn, &info) || !info.dli_fname)
		return "(unknown)";
	return info.dli_fname;
}

START_TEST(interposed)
{
	/* Through the GOT, as any caller in the program would see it. */
	void *lock = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	const char *where = harness_object_of(lock);

	/* A sanitizer runtime interposes its own pthread_mutex_lock, which
	 * calls the next definition: fthr's, if fthr is loaded. */
	if (strstr(where, "libasan") || strstr(where, "libtsan")) {
		void *fthr = dlopen("libfthr.so.0", RTLD_NOW | RTLD_NOLOAD);

		ck_assert_msg(fthr != NULL, "%s interposes, and libfthr is not loaded", where);
		where = harness_object_of(dlsym(fthr, "pthread_mutex_lock"));
		dlclose(fthr);
		ck_assert_msg(strstr(where, "libfthr") != NULL, "behind the sanitizer: %s", where);
		return;
	}
	ck_assert_msg(strstr(where, "libfthr") != NULL,
		      "pthread_mutex_lock comes from %s, not libfthr", where);
	ck_assert_msg(strstr(harness_object_of((void *)pthread_mutex_lock),
			     "libfthr") != NULL,
		      "the program's pthread_mutex_lock is not fthr's");
}
END_TEST

int harness_main(Suite *s)
{
	SRunner *sr;
	int failed;

	/* FTHR_TEST_ALLOW_GLIBC=1 lets a developer check a new test against
	 * plain glibc first; make check and CI never set it. */
	if (!getenv("FTHR_TEST_ALLOW_GLIBC"))
		tcase_add_test(harness_tcase(s, "interposed", 10), interposed);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
