/* tests/t_pshared.c: process-shared condition variables, rwlocks and
 * barriers between this process (fthr, linked or preloaded) and a
 * plain-glibc one (tests/shared_peer, run without LD_PRELOAD) on a shared
 * file: either side makes the objects, waits, wakes, cancels, dies. */
#include "harness.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shared_area.h"

static char path[64];
static struct shared_area *a;

/* The peer plays one role to the end: its exit status. */
static int peer(char *const argv[])
{
	return harness_status(harness_spawn_peer(argv));
}

/* The shared file, its objects made by glibc (the peer) or by fthr. */
static void make_area(bool by_glibc)
{
	int fd;

	ck_assert_msg(access(harness_peer_path("shared_peer"), X_OK) == 0, "no peer program %s", harness_peer_path("shared_peer"));
	snprintf(path, sizeof(path), "/dev/shm/fthr_t_pshared_%d", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, sizeof(*a)), 0);
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	ck_assert_ptr_ne(a, MAP_FAILED);
	if (by_glibc)
		ck_assert_int_eq(peer((char *[]){ "shared_peer", "init", path, NULL }), 0);
	else
		ck_assert_int_eq(shared_area_init(a, SHARED_BARRIER_MEMBERS), 0);
}

static void drop_area(void)
{
	munmap(a, sizeof(*a));
	unlink(path);
}

static void threads(int n, void *(*fn)(void *))
{
	pthread_t t[8];

	for (int i = 0; i < n; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, fn, a), 0);
	for (int i = 0; i < n; i++)
		ck_assert_ptr_null(harness_join(t[i], 50));
}

/* _i: bit 0 glibc makes the objects, bit 1 timed waits, bit 2 the
 * monotonic-clock condition variable. Both sides wait and signal. */
START_TEST(pingpong_with_glibc)
{
	enum { N = 2000 };
	char n[16], timed[4], mono[4];
	pid_t pid;

	make_area(_i & 1);
	snprintf(n, sizeof(n), "%d", N);
	snprintf(timed, sizeof(timed), "%d", !!(_i & 2));
	snprintf(mono, sizeof(mono), "%d", !!(_i & 4));
	pid = harness_spawn_peer((char *[]){ "shared_peer", "pingpong", path, "1", n, timed, mono, NULL });
	ck_assert_int_eq(shared_pingpong(a, 0, N, _i & 2, _i & 4), 0);
	ck_assert_int_eq(harness_status(pid), 0);
	ck_assert_int_eq(a->rounds, 2 * N);
	drop_area();
}
END_TEST

/* _i: bit 0 glibc makes the objects; bit 1 the waiters are glibc's (else
 * fthr's), the broadcaster the other side. Every waiter wakes. */
START_TEST(broadcast_wakes_every_waiter)
{
	enum { K = 4 };
	pid_t pid;

	make_area(_i & 1);
	if (_i & 2) {
		pid = harness_spawn_peer((char *[]){ "shared_peer", "waiters", path, "4", NULL });
		ck_assert_int_eq(shared_bcast(a, K), 0);
		ck_assert_int_eq(harness_status(pid), 0);
	} else {
		pid = harness_spawn_peer((char *[]){ "shared_peer", "bcast", path, "4", NULL });
		threads(K, shared_bcast_waiter);
		ck_assert_int_eq(harness_status(pid), 0);
	}
	ck_assert_int_eq(a->woken, K);
	drop_area();
}
END_TEST

/* A timed wait nobody signals times out, on either clock, whoever made
 * the condition variable; one the peer signals does not. */
START_TEST(timeout_is_a_timeout)
{
	struct timespec d;
	int64_t t0;

	make_area(_i & 1);
	ck_assert_int_eq(pthread_mutex_lock(&a->m), 0);
	t0 = harness_now_ns(CLOCK_MONOTONIC);
	d = harness_deadline(CLOCK_REALTIME, 50);
	ck_assert_int_eq(pthread_cond_timedwait(&a->c, &a->m, &d), ETIMEDOUT);
	d = harness_deadline(CLOCK_MONOTONIC, 50);
	ck_assert_int_eq(pthread_cond_timedwait(&a->cm, &a->m, &d), ETIMEDOUT);
	d = harness_deadline(CLOCK_MONOTONIC, 50);
	ck_assert_int_eq(pthread_cond_clockwait(&a->c, &a->m, CLOCK_MONOTONIC, &d), ETIMEDOUT);
	ck_assert_int_ge(harness_now_ns(CLOCK_MONOTONIC) - t0, 150000000);
	d = (struct timespec){ 0, 1000000000 };
	ck_assert_int_eq(pthread_cond_timedwait(&a->c, &a->m, &d), EINVAL);
	ck_assert_int_eq(pthread_mutex_unlock(&a->m), 0);
	drop_area();
}
END_TEST

/* _i: bit 0 glibc makes the objects; bit 1 the cancelled waiter is
 * glibc's. The cancelled waiter takes no token, the other one gets it. */
START_TEST(cancelled_waiter_loses_nothing)
{
	pid_t pid;

	if (harness_skip_under_asan("cancelled_waiter_loses_nothing"))
		return;
	make_area(_i & 1);
	if (_i & 2) {
		pid = harness_spawn_peer((char *[]){ "shared_peer", "cancelwait", path, NULL });
		ck_assert_int_eq(shared_cancel_signal(a), 0);
		ck_assert_int_eq(harness_status(pid), 0);
	} else {
		pid = harness_spawn_peer((char *[]){ "shared_peer", "cancelsignal", path, NULL });
		ck_assert_int_eq(shared_cancel_scenario(a), 0);
		ck_assert_int_eq(harness_status(pid), 0);
	}
	ck_assert_int_eq(a->woken, 1);
	drop_area();
}
END_TEST

static int kill_fd;
static pid_t kill_pid;

/* Once the owner says it holds the mutex, kill it. */
static void *killer(void *arg)
{
	char c;

	(void)arg;
	if (read(kill_fd, &c, 1) != 1)
		return (void *)1;
	kill(kill_pid, SIGKILL);
	return NULL;
}

/* _i: bit 0 glibc makes the objects; bit 1 the waiter is glibc's and
 * fthr's (a forked child of this process) owner dies, else the other way
 * round. The wait returns EOWNERDEAD. */
START_TEST(owner_dies_wait_gets_ownerdead)
{
	char fd[16];
	int p[2];
	pid_t waiter;
	pthread_t k;

	if (harness_skip_without_robust_list("owner_dies_wait_gets_ownerdead"))
		return;
	make_area(_i & 1);
	ck_assert_int_eq(pipe(p), 0);
	kill_fd = p[0];
	if (_i & 2) {
		waiter = harness_spawn_peer((char *[]){ "shared_peer", "ownerwait", path, NULL });
		kill_pid = fork();
		ck_assert_int_ge(kill_pid, 0);
		if (kill_pid == 0)
			_exit(shared_owner_die(a, p[1]));
		ck_assert_int_eq(pthread_create(&k, NULL, killer, NULL), 0);
		ck_assert_ptr_null(harness_join(k, 30));
		ck_assert_int_eq(harness_status(kill_pid), 128 + SIGKILL);
		ck_assert_int_eq(harness_status(waiter), 0);
	} else {
		snprintf(fd, sizeof(fd), "%d", p[1]);
		kill_pid = harness_spawn_peer((char *[]){ "shared_peer", "ownerdie", path, fd, NULL });
		ck_assert_int_eq(pthread_create(&k, NULL, killer, NULL), 0);
		ck_assert_int_eq(shared_owner_wait(a), 0);
		ck_assert_ptr_null(harness_join(k, 30));
		ck_assert_int_eq(harness_status(kill_pid), 128 + SIGKILL);
	}
	/* and the mutex works on */
	ck_assert_int_eq(pthread_mutex_lock(&a->rm), 0);
	ck_assert_int_eq(pthread_mutex_unlock(&a->rm), 0);
	close(p[0]);
	close(p[1]);
	drop_area();
}
END_TEST

/* kill -9 rounds on the robust mutex + condition variable pair: each round
 * a victim (plain glibc in even rounds, an fthr child in odd ones)
 * ping-pongs with this process, then, at a round count of its own, dies
 * holding the mutex just after it signalled: this process's wait returns
 * EOWNERDEAD, the count is exact, and the pair works on in the next
 * round. _i: glibc makes the objects. */
START_TEST(kill9_rounds_robust_cond)
{
	enum { ROUNDS = 12 };
	char t[16], f[16];
	int p[2], r;
	pthread_t k;

	if (harness_skip_without_robust_list("kill9_rounds_robust_cond"))
		return;
	make_area(_i & 1);
	ck_assert_int_eq(pipe(p), 0);
	kill_fd = p[0];
	for (int round = 0; round < ROUNDS; round++) {
		long target = 20 + 37 * round % 200;
		bool dead = false;

		a->turn = 0;
		a->rounds = 0;
		snprintf(t, sizeof(t), "%ld", target);
		snprintf(f, sizeof(f), "%d", p[1]);
		if (round % 2 == 0) {
			kill_pid = harness_spawn_peer((char *[]){ "shared_peer", "victim", path, t, f,
								  NULL });
		} else {
			kill_pid = fork();
			ck_assert_int_ge(kill_pid, 0);
			if (kill_pid == 0)
				_exit(shared_victim(a, target, p[1]));
		}
		ck_assert_int_eq(pthread_create(&k, NULL, killer, NULL), 0);
		while (!dead) {
			r = pthread_mutex_lock(&a->rm);
			if (r == EOWNERDEAD) {
				dead = true;
				ck_assert_int_eq(pthread_mutex_consistent(&a->rm), 0);
			} else {
				ck_assert_int_eq(r, 0);
			}
			while (!dead && a->turn != 0) {
				r = pthread_cond_wait(&a->c, &a->rm);
				if (r == EOWNERDEAD) {
					dead = true;
					ck_assert_int_eq(pthread_mutex_consistent(&a->rm), 0);
				} else {
					ck_assert_int_eq(r, 0);
				}
			}
			if (!dead) {
				a->turn = 1;
				ck_assert_int_eq(pthread_cond_signal(&a->c), 0);
			}
			ck_assert_int_eq(pthread_mutex_unlock(&a->rm), 0);
		}
		ck_assert_ptr_null(harness_join(k, 30));
		ck_assert_int_eq(harness_status(kill_pid), 128 + SIGKILL);
		ck_assert_int_eq(a->rounds, target);
	}
	close(p[0]);
	close(p[1]);
	drop_area();
}
END_TEST

/* _i: glibc makes the lock. Two readers-and-writers each side. */
START_TEST(rwlock_exclusion_with_glibc)
{
	pid_t pid;

	make_area(_i & 1);
	pid = harness_spawn_peer((char *[]){ "shared_peer", "rw", path, NULL });
	threads(2, shared_rw_worker);
	ck_assert_int_eq(harness_status(pid), 0);
	ck_assert_int_eq(a->bad, 0);
	ck_assert_int_eq(a->wcount, 4 * SHARED_RW_OPS / 10);
	ck_assert_int_eq(a->rcount, 4 * (SHARED_RW_OPS - SHARED_RW_OPS / 10));
	/* free again: a try from this side takes it */
	ck_assert_int_eq(pthread_rwlock_trywrlock(&a->rw), 0);
	ck_assert_int_eq(pthread_rwlock_tryrdlock(&a->rw), EBUSY);
	ck_assert_int_eq(pthread_rwlock_unlock(&a->rw), 0);
	drop_area();
}
END_TEST

/* _i: glibc makes the barrier. Two members each side, many rounds. */
START_TEST(barrier_split_between_sides)
{
	pid_t pid;

	make_area(_i & 1);
	pid = harness_spawn_peer((char *[]){ "shared_peer", "barrier", path, NULL });
	threads(2, shared_barrier_member);
	ck_assert_int_eq(harness_status(pid), 0);
	ck_assert_int_eq(a->bad, 0);
	ck_assert_int_eq(a->serials, SHARED_BARRIER_ROUNDS);
	ck_assert_int_eq(a->arrivals, SHARED_BARRIER_MEMBERS * SHARED_BARRIER_ROUNDS);
	ck_assert_int_eq(pthread_barrier_destroy(&a->b), 0);
	drop_area();
}
END_TEST

/* _i: bit 0 glibc makes the objects, bit 1 glibc destroys and makes them
 * again (else fthr) while the other side is idle; the ping-pong goes on. */
START_TEST(remake_while_the_other_is_idle)
{
	enum { N = 500 };
	char n[16];
	pid_t pid;

	make_area(_i & 1);
	snprintf(n, sizeof(n), "%d", N);
	for (int round = 0; round < 2; round++) {
		if (round == 1) {
			if (_i & 2)
				ck_assert_int_eq(peer((char *[]){ "shared_peer", "remake", path,
								  NULL }), 0);
			else
				ck_assert_int_eq(shared_remake(a), 0);
		}
		pid = harness_spawn_peer((char *[]){ "shared_peer", "pingpong", path, "1", n, "0", "0", NULL });
		ck_assert_int_eq(shared_pingpong(a, 0, N, 0, 0), 0);
		ck_assert_int_eq(harness_status(pid), 0);
	}
	ck_assert_int_eq(a->rounds, 4 * N);
	drop_area();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pshared");
	TCase *tc;

	tc = harness_tcase(s, "cond", 60);
	tcase_add_loop_test(tc, pingpong_with_glibc, 0, 8);
	tcase_add_loop_test(tc, broadcast_wakes_every_waiter, 0, 4);
	tcase_add_loop_test(tc, timeout_is_a_timeout, 0, 2);
	tcase_add_loop_test(tc, cancelled_waiter_loses_nothing, 0, 4);
	tcase_add_loop_test(tc, owner_dies_wait_gets_ownerdead, 0, 4);
	tcase_add_loop_test(tc, remake_while_the_other_is_idle, 0, 4);
	tcase_add_loop_test(tc, kill9_rounds_robust_cond, 0, 2);
	tc = harness_tcase(s, "rwlock", 60);
	tcase_add_loop_test(tc, rwlock_exclusion_with_glibc, 0, 2);
	tc = harness_tcase(s, "barrier", 60);
	tcase_add_loop_test(tc, barrier_split_between_sides, 0, 2);
	return harness_main(s);
}
