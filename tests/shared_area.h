/* tests/shared_area.h: the shared file of the process-shared interop tests
 * (tests/t_pshared.c, tests/shared_peer.c): a condition variable, rwlock
 * and barrier with their mutexes and the counters the tests check. */
#ifndef SHARED_AREA_H
#define SHARED_AREA_H
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

struct shared_area {
	pthread_mutex_t m;	/* normal, process-shared */
	pthread_mutex_t rm;	/* robust, process-shared */
	pthread_cond_t c;	/* process-shared, realtime clock */
	pthread_cond_t cm;	/* process-shared, monotonic clock */
	pthread_rwlock_t rw;
	pthread_barrier_t b;
	int turn;		/* ping-pong: whose turn (under m) */
	int gen, ready, woken;	/* broadcast, cancel (under m) */
	int tokens, phase;	/* cancel (under m) */
	long rounds;		/* ping-pong rounds done (under m) */
	int writer_in, readers_in, bad;	/* rwlock exclusion (atomics) */
	long wcount, rcount;
	long arrivals, serials;	/* barrier (atomics) */
};

/* Make the condition variables and the rwlock, process-shared. */
static inline int shared_make_cond_rw(struct shared_area *a)
{
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	int r;

	if ((r = pthread_condattr_init(&ca)) || (r = pthread_condattr_setpshared(&ca, 1)) ||
	    (r = pthread_cond_init(&a->c, &ca)) ||
	    (r = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC)) ||
	    (r = pthread_cond_init(&a->cm, &ca)))
		return r;
	if ((r = pthread_rwlockattr_init(&ra)) || (r = pthread_rwlockattr_setpshared(&ra, 1)) ||
	    (r = pthread_rwlock_init(&a->rw, &ra)))
		return r;
	return 0;
}

/* The kill -9 rounds' victim: ping-pong on (rm, c) as player 1, the
 * robust mutex's deaths made consistent; at round target it hands the turn
 * back, signals, says 'V' on fd and waits to be killed holding rm. */
static inline int shared_victim(struct shared_area *a, long target, int fd)
{
	int r;

	for (;;) {
		r = pthread_mutex_lock(&a->rm);
		if (r == EOWNERDEAD)
			r = pthread_mutex_consistent(&a->rm);
		if (r)
			return 60;
		while (a->turn != 1) {
			r = pthread_cond_wait(&a->c, &a->rm);
			if (r == EOWNERDEAD)
				r = pthread_mutex_consistent(&a->rm);
			if (r)
				return 61;
		}
		a->turn = 0;
		if (++a->rounds == target) {
			pthread_cond_signal(&a->c);
			if (write(fd, "V", 1) != 1)
				return 62;
			for (;;)
				pause();
		}
		pthread_cond_signal(&a->c);
		pthread_mutex_unlock(&a->rm);
	}
}

/* Destroy and make again the condition variables and the rwlock (the other
 * process idle). */
static inline int shared_remake(struct shared_area *a)
{
	int r;

	if ((r = pthread_cond_destroy(&a->c)) || (r = pthread_cond_destroy(&a->cm)) ||
	    (r = pthread_rwlock_destroy(&a->rw)))
		return r;
	return shared_make_cond_rw(a);
}

/* Initialize every object of a, process-shared; barrier_count for b.
 * 0 or the first error. */
static inline int shared_area_init(struct shared_area *a, unsigned barrier_count)
{
	pthread_mutexattr_t ma;
	pthread_barrierattr_t ba;
	int r;

	if ((r = pthread_mutexattr_init(&ma)) || (r = pthread_mutexattr_setpshared(&ma, 1)) ||
	    (r = pthread_mutex_init(&a->m, &ma)) ||
	    (r = pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST)) ||
	    (r = pthread_mutex_init(&a->rm, &ma)))
		return r;
	if ((r = shared_make_cond_rw(a)))
		return r;
	if ((r = pthread_barrierattr_init(&ba)) || (r = pthread_barrierattr_setpshared(&ba, 1)) ||
	    (r = pthread_barrier_init(&a->b, &ba, barrier_count)))
		return r;
	a->turn = a->gen = a->ready = a->woken = a->tokens = a->phase = 0;
	a->rounds = 0;
	a->writer_in = a->readers_in = a->bad = 0;
	a->wcount = a->rcount = a->arrivals = a->serials = 0;
	return 0;
}

/* The work both sides run, so each side's code is the same C. */

/* Ping-pong on c (cm if mono): n rounds as player me (0 or 1); timed:
 * timed waits with a 10 s deadline (a timeout is then an error). 0 or an
 * error number. */
static inline int shared_pingpong(struct shared_area *a, int me, long n, int timed, int mono)
{
	pthread_cond_t *c = mono ? &a->cm : &a->c;
	struct timespec d;
	int r = 0;

	for (long i = 0; i < n && r == 0; i++) {
		if ((r = pthread_mutex_lock(&a->m)))
			return r;
		while (a->turn != me && r == 0) {
			if (timed) {
				clock_gettime(mono ? CLOCK_MONOTONIC : CLOCK_REALTIME, &d);
				d.tv_sec += 10;
				r = pthread_cond_timedwait(c, &a->m, &d);
			} else {
				r = pthread_cond_wait(c, &a->m);
			}
		}
		a->turn = !me;
		a->rounds++;
		if (r == 0)
			r = pthread_cond_signal(c);
		pthread_mutex_unlock(&a->m);
	}
	return r;
}

/* One broadcast waiter: counts itself ready, waits for gen, counts itself
 * woken. */
static inline void *shared_bcast_waiter(void *arg)
{
	struct shared_area *a = arg;
	long r = 0;

	pthread_mutex_lock(&a->m);
	a->ready++;
	while (a->gen == 0 && r == 0)
		r = pthread_cond_wait(&a->c, &a->m);
	a->woken++;
	pthread_mutex_unlock(&a->m);
	return (void *)r;
}

/* The broadcaster: once k waiters are ready, gen = 1 and one broadcast. */
static inline int shared_bcast(struct shared_area *a, int k)
{
	struct timespec ms = { 0, 1000000 };
	int ready;

	for (;;) {
		pthread_mutex_lock(&a->m);
		ready = a->ready;
		if (ready >= k)
			break;
		pthread_mutex_unlock(&a->m);
		nanosleep(&ms, NULL);
	}
	a->gen = 1;
	pthread_cond_broadcast(&a->c);
	pthread_mutex_unlock(&a->m);
	return 0;
}

/* rwlock traffic: n operations, every tenth a write (alternating wrlock
 * and timedwrlock), the rest reads (alternating rdlock and tryrdlock
 * retried); exclusion checked by counts. */
static inline void *shared_rw_worker(void *arg)
{
	struct shared_area *a = arg;
	struct timespec d;
	long n = 20000, r = 0;

	for (long i = 0; i < n && r == 0; i++) {
		if (i % 10 == 0) {
			if (i % 20 == 0) {
				r = pthread_rwlock_wrlock(&a->rw);
			} else {
				clock_gettime(CLOCK_REALTIME, &d);
				d.tv_sec += 10;
				r = pthread_rwlock_timedwrlock(&a->rw, &d);
			}
			if (r)
				break;
			if (__atomic_exchange_n(&a->writer_in, 1, __ATOMIC_SEQ_CST) ||
			    __atomic_load_n(&a->readers_in, __ATOMIC_SEQ_CST))
				__atomic_fetch_add(&a->bad, 1, __ATOMIC_SEQ_CST);
			a->wcount++;
			__atomic_store_n(&a->writer_in, 0, __ATOMIC_SEQ_CST);
		} else {
			if (i % 2) {
				r = pthread_rwlock_rdlock(&a->rw);
			} else {
				while ((r = pthread_rwlock_tryrdlock(&a->rw)) == EBUSY)
					sched_yield();
			}
			if (r)
				break;
			__atomic_fetch_add(&a->readers_in, 1, __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&a->writer_in, __ATOMIC_SEQ_CST))
				__atomic_fetch_add(&a->bad, 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_add(&a->rcount, 1, __ATOMIC_SEQ_CST);
			__atomic_fetch_sub(&a->readers_in, 1, __ATOMIC_SEQ_CST);
		}
		r = pthread_rwlock_unlock(&a->rw);
	}
	return (void *)r;
}
#define SHARED_RW_OPS 20000L

/* Barrier member: rounds rounds; after each, every arrival of the round
 * and none past the next must be counted. */
#define SHARED_BARRIER_ROUNDS 2000L
static inline void *shared_barrier_member(void *arg)
{
	struct shared_area *a = arg;
	long members = 4;

	for (long i = 0; i < SHARED_BARRIER_ROUNDS; i++) {
		__atomic_fetch_add(&a->arrivals, 1, __ATOMIC_SEQ_CST);
		int r = pthread_barrier_wait(&a->b);
		long seen = __atomic_load_n(&a->arrivals, __ATOMIC_SEQ_CST);

		if (r == PTHREAD_BARRIER_SERIAL_THREAD)
			__atomic_fetch_add(&a->serials, 1, __ATOMIC_SEQ_CST);
		else if (r != 0)
			return (void *)(long)r;
		if (seen < members * (i + 1) || seen >= members * (i + 2))
			__atomic_fetch_add(&a->bad, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}
#define SHARED_BARRIER_MEMBERS 4

/* Cancellation: two waiters for a token; one is cancelled while it waits
 * (its cleanup gives the mutex back), then phase = 1 tells the other
 * process to post one token and signal, which the other waiter must get.
 * 0 if so. */
static inline void shared_unlock_cleanup(void *m)
{
	pthread_mutex_unlock(m);
}

static inline void *shared_token_waiter(void *arg)
{
	struct shared_area *a = arg;
	long r = 0;

	pthread_mutex_lock(&a->m);
	pthread_cleanup_push(shared_unlock_cleanup, &a->m);
	a->ready++;
	while (a->tokens == 0 && r == 0)
		r = pthread_cond_wait(&a->c, &a->m);
	a->tokens--;
	a->woken++;
	pthread_cleanup_pop(1);
	return (void *)r;
}

static inline int shared_cancel_scenario(struct shared_area *a)
{
	struct timespec ms = { 0, 1000000 };
	pthread_t t[2];
	void *v0, *v1;
	int ready;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, shared_token_waiter, a))
			return 40;
	do {
		nanosleep(&ms, NULL);
		pthread_mutex_lock(&a->m);
		ready = a->ready;
		pthread_mutex_unlock(&a->m);
	} while (ready < 2);
	nanosleep(&ms, NULL); /* (both are inside the wait: they hold m until then) */
	if (pthread_cancel(t[0]) || pthread_join(t[0], &v0))
		return 41;
	if (v0 != PTHREAD_CANCELED)
		return 42;
	pthread_mutex_lock(&a->m); /* the cleanup gave it back */
	a->phase = 1;
	pthread_mutex_unlock(&a->m);
	if (pthread_join(t[1], &v1) || v1 != NULL)
		return 43;
	return a->woken == 1 && a->tokens == 0 ? 0 : 44;
}

static inline int shared_cancel_signal(struct shared_area *a)
{
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		pthread_mutex_lock(&a->m);
		if (a->phase == 1)
			break;
		pthread_mutex_unlock(&a->m);
		nanosleep(&ms, NULL);
	}
	a->tokens = 1;
	pthread_cond_signal(&a->c);
	pthread_mutex_unlock(&a->m);
	return 0;
}

/* A robust mutex's owner dies while a condition waiter needs it back: the
 * waiter's wait returns EOWNERDEAD. 0 if so. */
static inline int shared_owner_wait(struct shared_area *a)
{
	int r;

	if (pthread_mutex_lock(&a->rm))
		return 50;
	a->ready = 1;
	do
		r = pthread_cond_wait(&a->c, &a->rm);
	while (r == 0 && a->turn != 7);
	if (r != EOWNERDEAD)
		return 51;
	if (pthread_mutex_consistent(&a->rm) || pthread_mutex_unlock(&a->rm))
		return 52;
	return 0;
}

/* The owner that dies: takes rm once the waiter waits, wakes it, tells fd,
 * and waits to be killed. */
static inline int shared_owner_die(struct shared_area *a, int fd)
{
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		if (pthread_mutex_lock(&a->rm))
			return 55;
		if (a->ready)
			break;
		pthread_mutex_unlock(&a->rm);
		nanosleep(&ms, NULL);
	}
	a->turn = 7;
	pthread_cond_signal(&a->c);
	if (write(fd, "L", 1) != 1)
		return 56;
	for (;;)
		pause();
}

#endif
