/* tests/t_robust.c: robust mutexes: owner death by thread exit and by
 * SIGKILL, consistent / not recoverable, and interop with plain-glibc
 * processes (tests/mutex_peer, run without LD_PRELOAD) on a shared file. */
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "peer_area.h"

static void init_robust(pthread_mutex_t *m, int type, int pshared)
{
	harness_mutex_init(m, type, pshared, PTHREAD_MUTEX_ROBUST, PTHREAD_PRIO_NONE);
}

static pthread_mutex_t rm;
static void *lock_and_exit(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_lock(&rm);
}

static const int types[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
			     PTHREAD_MUTEX_ERRORCHECK };

START_TEST(thread_exit_gives_ownerdead)
{
	pthread_t t;

	if (harness_skip_without_robust_list("thread_exit_gives_ownerdead"))
		return;
	init_robust(&rm, types[_i], PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(pthread_mutex_lock(&rm), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&rm), 0);
	ck_assert_int_eq(pthread_mutex_consistent(&rm), EINVAL); /* already */
	if (types[_i] == PTHREAD_MUTEX_RECURSIVE) {
		ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	}
	if (types[_i] == PTHREAD_MUTEX_ERRORCHECK)
		ck_assert_int_eq(pthread_mutex_lock(&rm), EDEADLK);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&rm), 0);
}
END_TEST

START_TEST(unlock_without_consistent_is_not_recoverable)
{
	pthread_t t;

	if (harness_skip_without_robust_list("unlock_without_consistent_is_not_recoverable"))
		return;
	init_robust(&rm, types[_i], PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t, NULL, lock_and_exit, NULL);
	harness_join(t, 10);
	ck_assert_int_eq(pthread_mutex_trylock(&rm), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_lock(&rm), ENOTRECOVERABLE);
	ck_assert_int_eq(pthread_mutex_trylock(&rm), ENOTRECOVERABLE);
	ck_assert_int_eq(pthread_mutex_consistent(&rm), EINVAL);
}
END_TEST

static void *lock_wait_exit(void *arg)
{
	(void)arg;
	if (pthread_mutex_lock(&rm) != 0)
		return (void *)1;
	usleep(100000); /* the main thread blocks meanwhile */
	return NULL;
}

START_TEST(blocked_waiter_learns_of_death)
{
	pthread_t t;
	int64_t t0;

	if (harness_skip_without_robust_list("blocked_waiter_learns_of_death"))
		return;
	init_robust(&rm, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t, NULL, lock_wait_exit, NULL);
	while (pthread_mutex_trylock(&rm) == 0)
		pthread_mutex_unlock(&rm), usleep(1000);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(pthread_mutex_lock(&rm), EOWNERDEAD);
	ck_assert_int_lt(harness_now_ns(CLOCK_MONOTONIC) - t0, 5000000000LL);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(pthread_mutex_consistent(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
}
END_TEST

static void *try_unlock(void *arg)
{
	(void)arg;
	return (void *)(long)pthread_mutex_unlock(&rm);
}

START_TEST(errors_and_counts)
{
	pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
	struct timespec past = { 1, 0 };
	pthread_t t;

	if (harness_skip_without_robust_list("errors_and_counts"))
		return;
	ck_assert_int_eq(pthread_mutex_consistent(&plain), EINVAL);
	init_robust(&rm, PTHREAD_MUTEX_RECURSIVE, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_consistent(&rm), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), EPERM);
	ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_trylock(&rm), 0);
	ck_assert_uint_eq(rm.__data.__count, 3);
	pthread_create(&t, NULL, try_unlock, NULL);
	ck_assert_int_eq((long)harness_join(t, 10), EPERM);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), EPERM);

	init_robust(&rm, PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_timedlock(&rm, &past), ETIMEDOUT);
	ck_assert_int_eq(pthread_mutex_trylock(&rm), EBUSY);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(rm.__data.__lock, 0);
}
END_TEST

/* As glibc's, the destroy of a robust mutex returns 0 whatever its state
 * (POSIX leaves the destroy of a locked mutex undefined; FTHR_CHECK
 * reports it): its holder died, or holds it still. */
static void *destroy_held(void *arg)
{
	long r;

	(void)arg;
	if ((r = pthread_mutex_lock(&rm)) != 0)
		return (void *)r;
	if ((r = pthread_mutex_destroy(&rm)) != 0)
		return (void *)(100 + r);
	/* destroyed: the unlock fails as glibc's (EINVAL), the thread exits
	 * with the mutex on its robust list: the kernel marks it dead */
	return (void *)(long)(pthread_mutex_unlock(&rm) == EINVAL ? 0 : 99);
}

START_TEST(destroy_whatever_the_state)
{
	pthread_t t;

	if (harness_skip_without_robust_list("destroy_whatever_the_state"))
		return;
	if (harness_skip_under_tsan("destroy_whatever_the_state",
				    "it locks a destroyed mutex on purpose (EINVAL)"))
		return;
	init_robust(&rm, types[_i], PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_create(&t, NULL, lock_and_exit, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(pthread_mutex_destroy(&rm), 0); /* owner died */
	ck_assert_int_eq(pthread_mutex_trylock(&rm), EINVAL);
	ck_assert_int_eq(pthread_mutex_lock(&rm), EINVAL);

	init_robust(&rm, types[_i], PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_create(&t, NULL, destroy_held, NULL), 0);
	ck_assert_ptr_null(harness_join(t, 10));
	ck_assert_int_eq(pthread_mutex_destroy(&rm), 0); /* again */
	init_robust(&rm, types[_i], PTHREAD_PROCESS_PRIVATE);
	ck_assert_int_eq(pthread_mutex_lock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&rm), 0);
	ck_assert_int_eq(pthread_mutex_destroy(&rm), 0);
}
END_TEST

/* Many robust mutexes held at once, all released by one thread's death. */
static pthread_mutex_t many[64];
static void *lock_many(void *arg)
{
	(void)arg;
	for (int i = 0; i < 64; i++)
		if (pthread_mutex_lock(&many[i]) != 0)
			return (void *)1;
	/* unlock a few in the middle: the list must stay sound */
	for (int i = 10; i < 20; i++)
		pthread_mutex_unlock(&many[i]);
	return NULL;
}

START_TEST(list_of_many)
{
	pthread_t t;
	int i, dead = 0;

	if (harness_skip_without_robust_list("list_of_many"))
		return;
	if (harness_skip_under_tsan("list_of_many",
				    "TSan's deadlock detector keeps at most 64 locks per thread"))
		return;
	for (i = 0; i < 64; i++)
		init_robust(&many[i], PTHREAD_MUTEX_NORMAL, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&t, NULL, lock_many, NULL);
	ck_assert_ptr_null(harness_join(t, 10));
	for (i = 0; i < 64; i++) {
		int r = pthread_mutex_lock(&many[i]);

		ck_assert_int_eq(r, (i >= 10 && i < 20) ? 0 : EOWNERDEAD);
		dead += r == EOWNERDEAD;
		if (r == EOWNERDEAD)
			pthread_mutex_consistent(&many[i]);
	}
	for (i = 63; i >= 0; i--)
		ck_assert_int_eq(pthread_mutex_unlock(&many[i]), 0);
	ck_assert_int_eq(dead, 54);
}
END_TEST

/* ---- processes killed with SIGKILL while holding, waiters already blocked ---- */
struct shared {
	pthread_mutex_t m;
	long rounds;
};
static struct shared *sh;

static void *blocked_locker(void *arg)
{
	int r = pthread_mutex_lock(&sh->m);

	(void)arg;
	if (r == EOWNERDEAD && (pthread_mutex_consistent(&sh->m) != 0 ||
				pthread_mutex_unlock(&sh->m) != 0))
		return (void *)-1L;
	return (void *)(long)r;
}

START_TEST(sigkill_owner_rounds)
{
	enum { ROUNDS = 100 };
	int i, dead = 0;

	if (harness_skip_without_robust_list("sigkill_owner_rounds"))
		return;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(sh, MAP_FAILED);
	init_robust(&sh->m, types[_i], PTHREAD_PROCESS_SHARED);
	for (i = 0; i < ROUNDS; i++) {
		int p[2], status;
		char c;
		pid_t pid;
		pthread_t w;
		long r;

		ck_assert_int_eq(pipe(p), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			if (pthread_mutex_lock(&sh->m) != 0)
				_exit(1);
			sh->rounds++;
			if (write(p[1], "L", 1) != 1)
				_exit(2);
			for (;;)
				pause();
		}
		close(p[1]); /* a child that fails ends the read with EOF, not a hang */
		ck_assert_int_eq(read(p[0], &c, 1), 1);
		close(p[0]);
		pthread_create(&w, NULL, blocked_locker, NULL);
		if (i % 2)
			usleep(2000); /* now and then the waiter is surely asleep */
		kill(pid, SIGKILL);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		r = (long)harness_join(w, 10);
		ck_assert_int_eq(r, EOWNERDEAD); /* and it made it consistent */
		dead++;
		ck_assert_int_eq(pthread_mutex_lock(&sh->m), 0);
		ck_assert_int_eq(pthread_mutex_unlock(&sh->m), 0);
	}
	ck_assert_int_eq(dead, ROUNDS);
	ck_assert_int_eq(sh->rounds, ROUNDS);
}
END_TEST

/* ---- interop with a plain-glibc process on a shared file ---- */
static char area_path[64];
static struct peer_area *area;

static void make_area(void)
{
	pthread_mutexattr_t a;
	int fd, k;

	snprintf(area_path, sizeof(area_path), "/dev/shm/fthr_t_robust_%d", (int)getpid());
	fd = open(area_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, sizeof(*area)), 0);
	area = mmap(NULL, sizeof(*area), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ck_assert_ptr_ne(area, MAP_FAILED);
	for (k = 0; k < PEER_MUTEXES; k++) {
		pthread_mutexattr_init(&a);
		pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
		pthread_mutexattr_settype(&a, k == PEER_RECURSIVE ? PTHREAD_MUTEX_RECURSIVE :
					      k == PEER_ERRORCHECK ? PTHREAD_MUTEX_ERRORCHECK :
								     PTHREAD_MUTEX_NORMAL);
		if (k == PEER_ROBUST || k == PEER_ROBUST_PI)
			pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
		if (k == PEER_PI || k == PEER_ROBUST_PI)
			pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
		ck_assert_int_eq(pthread_mutex_init(&area->m[k], &a), 0);
		area->count[k] = 0;
	}
	ck_assert_msg(access(harness_peer_path("mutex_peer"), X_OK) == 0, "no peer program %s", harness_peer_path("mutex_peer"));
}

START_TEST(interop_counts_with_glibc)
{
	enum { N = 20000 };
	char n[16];
	pid_t pid;
	int i, k;

	if (harness_skip_without_robust_list("interop_counts_with_glibc"))
		return;
	make_area();
	snprintf(n, sizeof(n), "%d", N);
	pid = harness_spawn_peer((char *[]){ "mutex_peer", "count", area_path, n, NULL });
	for (i = 0; i < N; i++)
		for (k = 0; k < PEER_MUTEXES; k++) {
			ck_assert_int_eq(pthread_mutex_lock(&area->m[k]), 0);
			area->count[k]++;
			ck_assert_int_eq(pthread_mutex_unlock(&area->m[k]), 0);
		}
	ck_assert_int_eq(harness_status(pid), 0);
	for (k = 0; k < PEER_MUTEXES; k++)
		ck_assert_int_eq(area->count[k], 2 * N);
	unlink(area_path);
}
END_TEST

START_TEST(interop_glibc_owner_killed)
{
	char fd[16], c;
	int p[2];
	pid_t pid;

	if (harness_skip_without_robust_list("interop_glibc_owner_killed"))
		return;
	make_area();
	ck_assert_int_eq(pipe(p), 0);
	snprintf(fd, sizeof(fd), "%d", p[1]);
	pid = harness_spawn_peer((char *[]){ "mutex_peer", "hold", area_path, fd, NULL });
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	kill(pid, SIGKILL);
	ck_assert_int_eq(harness_status(pid), 128 + SIGKILL);
	ck_assert_int_eq(pthread_mutex_lock(&area->m[PEER_ROBUST]), EOWNERDEAD);
	ck_assert_int_eq(pthread_mutex_consistent(&area->m[PEER_ROBUST]), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&area->m[PEER_ROBUST]), 0);
	unlink(area_path);
}
END_TEST

START_TEST(interop_fthr_owner_killed)
{
	int p[2];
	char c;
	pid_t holder, peer;

	if (harness_skip_without_robust_list("interop_fthr_owner_killed"))
		return;
	make_area();
	ck_assert_int_eq(pipe(p), 0);
	holder = fork();
	ck_assert_int_ge(holder, 0);
	if (holder == 0) { /* fthr side holds */
		if (pthread_mutex_lock(&area->m[PEER_ROBUST]) != 0 || write(p[1], "L", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	kill(holder, SIGKILL);
	ck_assert_int_eq(harness_status(holder), 128 + SIGKILL);
	peer = harness_spawn_peer((char *[]){ "mutex_peer", "ownerdead", area_path, NULL });
	ck_assert_int_eq(harness_status(peer), 0);
	ck_assert_int_eq(pthread_mutex_lock(&area->m[PEER_ROBUST]), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&area->m[PEER_ROBUST]), 0);
	unlink(area_path);
}
END_TEST

/* ---- a woken sleeper killed before it re-takes the mutex ----
 * The hole of glibc's robust protocol (lib/thr_mutex_robust.c, head
 * comment: recheck): the holder H unlocks, waking the first sleeper S1;
 * before S1 runs (S1 shares H's cpu, and H runs SCHED_FIFO) H takes the
 * free word again, unmarked; S1 is killed and dies while H holds the word;
 * H unlocks, waking nobody. The second sleeper S2, an fthr process, must
 * get the mutex. _i: bit 0 H is a plain-glibc process (else fthr), bit 1
 * S1 is (else fthr). */
static void pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ck_assert_int_eq(sched_setaffinity(pid, sizeof(set), &set), 0);
}

/* A sleeper on cpu: lock, write 'G' to fd, unlock. */
static pid_t spawn_sleeper(bool glibc, int cpu, int fd)
{
	char f[16];
	pid_t pid;
	int r;

	if (glibc) {
		snprintf(f, sizeof(f), "%d", fd);
		pid = harness_spawn_peer((char *[]){ "mutex_peer", "lockwrite", area_path, f, NULL });
		pin(pid, cpu); /* (it sleeps on the mutex only once it has run) */
		return pid;
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pin(0, cpu);
		r = pthread_mutex_lock(&area->m[PEER_ROBUST]);
		if (r == EOWNERDEAD)
			r = pthread_mutex_consistent(&area->m[PEER_ROBUST]);
		if (r != 0 || write(fd, "G", 1) != 1)
			_exit(8);
		_exit(pthread_mutex_unlock(&area->m[PEER_ROBUST]) ? 9 : 0);
	}
	return pid;
}

START_TEST(woken_sleeper_killed_loses_no_wakeup)
{
	char out[16], in[16], c;
	int ph[2], go[2], got[2];
	struct pollfd pf;
	pid_t h, s1, s2;

	if (harness_skip_without_robust_list("woken_sleeper_killed_loses_no_wakeup"))
		return;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("woken_sleeper_killed_loses_no_wakeup: SKIPPED (needs 2 cpus)\n");
		return;
	}
	make_area();
	area->killed = 0;
	ck_assert_int_eq(pipe(ph), 0);
	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(got), 0);
	if (_i & 1) {
		snprintf(out, sizeof(out), "%d", ph[1]);
		snprintf(in, sizeof(in), "%d", go[0]);
		h = harness_spawn_peer((char *[]){ "mutex_peer", "barge", area_path, out, in, NULL });
	} else {
		h = fork();
		ck_assert_int_ge(h, 0);
		if (h == 0)
			_exit(peer_barging_holder(area, ph[1], go[0]));
	}
	ck_assert_int_eq(read(ph[0], &c, 1), 1);
	ck_assert_int_eq(c, 'H');
	/* S1 first, so that it is the first in the futex queue */
	s1 = spawn_sleeper(_i & 2, 0, got[1]);
	harness_wait_asleep(s1, 20);
	s2 = spawn_sleeper(false, 1, got[1]);
	harness_wait_asleep(s2, 20);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(read(ph[0], &c, 1), 1);
	if (c == 'E') {
		printf("woken_sleeper_killed_loses_no_wakeup: SKIPPED (SCHED_FIFO not allowed)\n");
		kill(s1, SIGKILL);
		kill(s2, SIGKILL);
		harness_status(s1);
		harness_status(s2);
		ck_assert_int_eq(harness_status(h), 77);
		return;
	}
	ck_assert_int_eq(c, 'R');
	/* S1, woken, waits for H's cpu: kill it, and let it die on the other
	 * cpu while H holds the word */
	kill(s1, SIGKILL);
	pin(s1, 1);
	ck_assert_int_eq(harness_status(s1), 128 + SIGKILL);
	__atomic_store_n(&area->killed, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(harness_status(h), 0);
	/* the mutex is free: S2 must get it */
	pf = (struct pollfd){ .fd = got[0], .events = POLLIN };
	if (poll(&pf, 1, 3000) != 1) {
		kill(s2, SIGKILL);
		harness_status(s2);
		ck_abort_msg("the second sleeper still sleeps on a free mutex (lost wake-up)");
	}
	ck_assert_int_eq(read(got[0], &c, 1), 1);
	ck_assert_int_eq(harness_status(s2), 0);
	ck_assert_int_eq(pthread_mutex_lock(&area->m[PEER_ROBUST]), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&area->m[PEER_ROBUST]), 0);
	unlink(area_path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("robust");
	TCase *tc;

	tc = harness_tcase(s, "death", 20);
	tcase_add_loop_test(tc, thread_exit_gives_ownerdead, 0, 3);
	tcase_add_loop_test(tc, unlock_without_consistent_is_not_recoverable, 0, 3);
	tcase_add_test(tc, blocked_waiter_learns_of_death);
	tcase_add_test(tc, errors_and_counts);
	tcase_add_loop_test(tc, destroy_whatever_the_state, 0, 3);
	tcase_add_test(tc, list_of_many);
	tc = harness_tcase(s, "sigkill", 60);
	tcase_add_loop_test(tc, sigkill_owner_rounds, 0, 3);
	tc = harness_tcase(s, "interop", 60);
	tcase_add_test(tc, interop_counts_with_glibc);
	tcase_add_test(tc, interop_glibc_owner_killed);
	tcase_add_test(tc, interop_fthr_owner_killed);
	tcase_add_loop_test(tc, woken_sleeper_killed_loses_no_wakeup, 0, 4);
	return harness_main(s);
}
