/* tests/t_futex.c: the futex layer's contract (lib/futex.h), compiled in. */
#include "config.h"
#include <limits.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "harness.h"
#include "futex.h"
#include "wait.h" /* fthr_crowd_judge */

static volatile int word;
static int woke;

static void *sleeper(void *arg)
{
	volatile int *w = arg;
	int r;

	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == 0) {
		r = fthr_futex_wait(w, 0, false, CLOCK_MONOTONIC, NULL);
		if (r != 0 && r != EAGAIN && r != EINTR)
			return (void *)(long)r;
	}
	__atomic_add_fetch(&woke, 1, __ATOMIC_RELAXED);
	return NULL;
}

START_TEST(wait_compares)
{
	word = 5;
	errno = 0;
	ck_assert_int_eq(fthr_futex_wait(&word, 4, false, CLOCK_MONOTONIC, NULL), EAGAIN);
	ck_assert_int_eq(fthr_futex_wait(&word, 4, true, CLOCK_REALTIME, NULL), EAGAIN);
	ck_assert_int_eq(errno, 0); /* the layer never writes errno */
}
END_TEST

START_TEST(deadlines)
{
	clockid_t c = _i ? CLOCK_REALTIME : CLOCK_MONOTONIC;
	struct timespec past = harness_deadline(c, -10);
	struct timespec soon = harness_deadline(c, 50);
	int64_t t0 = harness_now_ns(c);

	ck_assert(fthr_futex_clock_ok(c));
	ck_assert_int_eq(fthr_futex_wait(&word, 0, false, c, &past), ETIMEDOUT);
	ck_assert_int_eq(fthr_futex_wait(&word, 0, false, c, &soon), ETIMEDOUT);
	ck_assert_int_ge(harness_now_ns(c), (int64_t)soon.tv_sec * 1000000000 + soon.tv_nsec);
	ck_assert_int_lt(harness_now_ns(c) - t0, 5000000000LL);
}
END_TEST

START_TEST(clocks_and_abstime_check)
{
	struct timespec bad = { 0, 1000000000 }, neg = { -1, 0 }, ok = { 1, 5 };

	ck_assert(!fthr_futex_clock_ok(CLOCK_PROCESS_CPUTIME_ID));
	ck_assert(!fthr_futex_clock_ok(CLOCK_BOOTTIME + 1000));
	ck_assert_int_eq(fthr_abstime_check(NULL), EINVAL);
	ck_assert_int_eq(fthr_abstime_check(&bad), EINVAL);
	ck_assert_int_eq(fthr_abstime_check(&neg), ETIMEDOUT);
	ck_assert_int_eq(fthr_abstime_check(&ok), 0);
}
END_TEST

START_TEST(wake_counts)
{
	pthread_t t[3];
	int i, n = 0;

	word = 0;
	woke = 0;
	ck_assert_int_eq(fthr_futex_wake(&word, INT_MAX, false), 0);
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, sleeper, (void *)&word);
	usleep(50000);
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	/* all three are (or soon will be) awake; the count woken is <= 3 */
	n = fthr_futex_wake(&word, 1, false);
	ck_assert_int_le(n, 1);
	n += fthr_futex_wake(&word, INT_MAX, false);
	ck_assert_int_le(n, 3);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_int_eq(woke, 3);
}
END_TEST

START_TEST(shared_across_fork)
{
	volatile int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid;
	int status, n = 0, i;

	ck_assert_ptr_ne((void *)w, MAP_FAILED);
	*w = 0;
	pid = fork();
	if (pid == 0) {
		while (*w == 0)
			fthr_futex_wait(w, 0, true, CLOCK_MONOTONIC, NULL);
		_exit(*w == 1 ? 0 : 1);
	}
	usleep(50000);
	__atomic_store_n(w, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 100 && n == 0; i++) {
		n = fthr_futex_wake(w, 1, true);
		if (!n)
			usleep(1000);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(n, 1); /* a shared wake reached the other process */
}
END_TEST

/* The machine's runnable threads (fthr_os_runnable): the caller is one,
 * and threads that never stop running are counted; no descriptor is left
 * open and errno is not written. */
static volatile int busy_stop, busy_started;

static void *busy(void *unused)
{
	(void)unused;
	__atomic_add_fetch(&busy_started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&busy_stop, __ATOMIC_ACQUIRE))
		;
	return NULL;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

START_TEST(runnable_counts)
{
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN), k, i, r, most = 0, fds;
	pthread_t t[65];

	if (access("/proc/loadavg", R_OK) != 0) {
		ck_assert_int_eq(fthr_os_runnable(), -1); /* unknown, not made up */
		return;
	}
	k = cpus > 0 && 2 * cpus + 1 < 65 ? 2 * cpus + 1 : 65;
	fds = open_fds();
	errno = 0;
	for (i = 0; i < 1000; i++)
		ck_assert_int_ge(fthr_os_runnable(), 1); /* at least the caller */
	ck_assert_int_eq(open_fds(), fds);
	busy_stop = busy_started = 0;
	for (i = 0; i < k; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, busy, NULL), 0);
	while (__atomic_load_n(&busy_started, __ATOMIC_ACQUIRE) < k)
		usleep(1000);
	/* k threads that never sleep, and the caller: a sum over the cpus'
	 * run queues, not one snapshot, so the largest of a few looks */
	for (i = 0; i < 50; i++) {
		r = fthr_os_runnable();
		ck_assert_int_ge(r, 1);
		most = r > most ? r : most;
	}
	__atomic_store_n(&busy_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < k; i++)
		ck_assert_ptr_null(harness_join(t[i], 10));
	ck_assert_int_ge(most, k + 1);
	ck_assert_int_eq(errno, 0);
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

/* The cpus the process may use (fthr_os_cpus_usable): its affinity mask,
 * and a cgroup v1 CPU quota of its own cgroup or an ancestor's, rounded up
 * to whole cpus; no descriptor left open, errno untouched. The cgroup
 * cases need root and a writable v1 cpu controller (skipped otherwise). */
static int affinity_count(void)
{
	cpu_set_t set;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set);
}

static void put(const char *dir, const char *file, const char *what)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "open %s", path);
	fputs(what, f);
	ck_assert_msg(fclose(f) == 0, "write %s to %s", what, path);
}

/* In a child moved into cgroup dir (NULL: stay): what it may use. */
static int usable_in(const char *dir)
{
	int fd[2], got = -2, status;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int u;

		if (dir)
			put(dir, "cgroup.procs", "0");
		u = fthr_os_cpus_usable(fthr_os_cpus_affine());
		_exit(write(fd[1], &u, sizeof(u)) == sizeof(u) ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(read(fd[0], &got, sizeof(got)), sizeof(got));
	close(fd[0]);
	close(fd[1]);
	return got;
}

START_TEST(cpus_usable)
{
	int aff = affinity_count(), fds = open_fds(), u;
	const char *v1 = "/sys/fs/cgroup/cpu";
	char dir[128], sub[160], self[64];
	cpu_set_t one, all;

	errno = 0;
	u = fthr_os_cpus_usable(fthr_os_cpus_affine());
	ck_assert_int_ge(u, 1);
	ck_assert_int_le(u, aff);
	ck_assert_int_eq(errno, 0);
	ck_assert_int_eq(open_fds(), fds);
	/* pinned to one cpu */
	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	u = fthr_os_cpus_usable(fthr_os_cpus_affine());
	ck_assert_int_eq(sched_setaffinity(0, sizeof(all), &all), 0);
	ck_assert_int_eq(u, 1);
	/* cgroup v1 quotas: the process's own, then an ancestor's */
	snprintf(self, sizeof(self), "%s/cpu.cfs_quota_us", v1);
	if (geteuid() != 0 || access(self, W_OK) != 0)
		return;
	snprintf(dir, sizeof(dir), "%s/fthr-t_futex-%d", v1, (int)getpid());
	snprintf(sub, sizeof(sub), "%s/inner", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	put(dir, "cpu.cfs_period_us", "100000");
	put(dir, "cpu.cfs_quota_us", "50000"); /* half a cpu: 1 */
	ck_assert_int_eq(usable_in(dir), 1);
	ck_assert_int_eq(usable_in(sub), 1); /* the parent's limit holds */
	put(dir, "cpu.cfs_quota_us", "150000"); /* one and a half: 2 */
	ck_assert_int_eq(usable_in(dir), aff < 2 ? aff : 2);
	put(sub, "cpu.cfs_period_us", "100000");
	put(sub, "cpu.cfs_quota_us", "100000"); /* the child's, lower */
	ck_assert_int_eq(usable_in(sub), 1);
	put(dir, "cpu.cfs_quota_us", "-1");
	put(sub, "cpu.cfs_quota_us", "-1");
	ck_assert_int_eq(usable_in(sub), aff); /* no limit */
	ck_assert_int_eq(usable_in(NULL), aff);
	ck_assert_int_eq(rmdir(sub), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The look's verdict (wait.h): a machine with a cpu per thread stays
 * uncrowded through a look that catches a thread woken for an instant;
 * one with more runnable threads than cpus is found crowded within a few
 * looks, and uncrowded again within a few once it is not. */
START_TEST(crowd_judge)
{
	int avg = 0, i, n;

	for (i = 0; i < 100; i++)
		ck_assert(!fthr_crowd_judge(&avg, 2, 2));
	ck_assert(!fthr_crowd_judge(&avg, 3, 2)); /* one look finds a third */
	for (i = 0; i < 20; i++)
		ck_assert(!fthr_crowd_judge(&avg, i % 10 ? 2 : 3, 2));
	for (n = 1; !fthr_crowd_judge(&avg, 4, 2); n++)
		ck_assert_int_le(n, 4);
	for (i = 0; i < 100; i++)
		ck_assert(fthr_crowd_judge(&avg, 3 + i % 3, 2)); /* a pool: 3-5 */
	for (n = 1; fthr_crowd_judge(&avg, 2, 2); n++)
		ck_assert_int_le(n, 8);
	for (i = 0; i < 100; i++)
		ck_assert(!fthr_crowd_judge(&avg, 1 + i % 2, 2));
	/* a co-runner on a 64-cpu machine */
	avg = 0;
	for (n = 1; !fthr_crowd_judge(&avg, 100, 64); n++)
		ck_assert_int_le(n, 8);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("futex");
	TCase *tc = harness_tcase(s, "futex", 20);

	tcase_add_test(tc, wait_compares);
	tcase_add_test(tc, cpus_usable);
	tcase_add_loop_test(tc, deadlines, 0, 2);
	tcase_add_test(tc, clocks_and_abstime_check);
	tcase_add_test(tc, wake_counts);
	tcase_add_test(tc, shared_across_fork);
	tcase_add_test(tc, runnable_counts);
	tcase_add_test(tc, crowd_judge);
	return harness_main(s);
}
