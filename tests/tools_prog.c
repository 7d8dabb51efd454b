/* tests/tools_prog.c: small programs for the thread checkers (tests/tools.sh).
 *
 * tools_prog MODE runs one program: each correct one hands plain data from
 * thread to thread through one kind of object, and a checker that sees the
 * object's synchronization reports nothing; "race" and "inversion" are the
 * two bugs a checker must still report (an unprotected counter; two locks
 * taken in both orders, by threads that never run at once, so it never
 * deadlocks). The program checks its own results (exit 1 on a wrong count)
 * and prints which object its pthread_mutex_lock comes from.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <threads.h>
#include <unistd.h>

enum { NT = 4, ITER = 200 };

static long counter;   /* plain data, guarded by the object of each mode */
static long rcounter;  /* ... by the recursive mutex */
static long slot[NT];  /* written by one thread, read by the others */
static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "tools_prog: wrong result: %s\n", what);
		failed = 1;
	}
}

static void run(void *(*fn)(void *))
{
	pthread_t t[NT];

	for (long i = 0; i < NT; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)i) != 0)
			abort();
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
}

/* ---- mutex: normal, recursive, trylock ---- */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rm;

static void *mutex_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITER; i++) {
		if (i % 3 == 0) {
			while (pthread_mutex_trylock(&m) != 0)
				sched_yield();
		} else {
			pthread_mutex_lock(&m);
		}
		counter++;
		pthread_mutex_unlock(&m);
		pthread_mutex_lock(&rm);
		pthread_mutex_lock(&rm);
		rcounter++;
		pthread_mutex_unlock(&rm);
		pthread_mutex_unlock(&rm);
	}
	return NULL;
}

static void mode_mutex(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rm, &a);
	pthread_mutexattr_destroy(&a);
	run(mutex_thread);
	pthread_mutex_destroy(&rm);
	check(counter == (long)NT * ITER && rcounter == (long)NT * ITER, "mutex counts");
}

/* ---- condition variable: a one-slot queue, signal and broadcast ---- */
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t nonfull = PTHREAD_COND_INITIALIZER;
static long queue_item, queue_full, consumed_sum;

static void *cond_producer(void *arg)
{
	(void)arg;
	for (long i = 1; i <= ITER; i++) {
		pthread_mutex_lock(&m);
		while (queue_full)
			pthread_cond_wait(&nonfull, &m);
		queue_item = i; /* plain data handed over under m */
		queue_full = 1;
		pthread_cond_signal(&nonempty);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void *cond_consumer(void *arg)
{
	(void)arg;
	for (long i = 0; i < ITER; i++) {
		pthread_mutex_lock(&m);
		while (!queue_full)
			if (i % 2) {
				pthread_cond_wait(&nonempty, &m);
			} else { /* a timed wait that is signalled */
				struct timespec dl;

				clock_gettime(CLOCK_REALTIME, &dl);
				dl.tv_sec += 60;
				pthread_cond_timedwait(&nonempty, &m, &dl);
			}
		consumed_sum += queue_item;
		queue_full = 0;
		pthread_cond_broadcast(&nonfull);
		pthread_mutex_unlock(&m);
	}
	return NULL;
}

static void mode_cond(void)
{
	pthread_cond_t alone = PTHREAD_COND_INITIALIZER;
	struct timespec dl;
	pthread_t p, c;

	/* a timed wait that times out, holding the mutex again after it */
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 10000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&m);
	check(pthread_cond_timedwait(&alone, &m, &dl) == ETIMEDOUT, "cond timeout");
	counter++;
	pthread_mutex_unlock(&m);
	pthread_cond_destroy(&alone);
	pthread_create(&c, NULL, cond_consumer, NULL);
	pthread_create(&p, NULL, cond_producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	pthread_cond_destroy(&nonempty);
	pthread_cond_destroy(&nonfull);
	check(consumed_sum == (long)ITER * (ITER + 1) / 2, "cond sum");
}

/* ---- rwlock: writers change a pair, readers see it whole ---- */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long pair[2];

static void *rwlock_thread(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ITER; i++) {
		if (id == 0 || i % 8 == 0) {
			pthread_rwlock_wrlock(&rw);
			pair[0]++;
			pair[1]++;
			pthread_rwlock_unlock(&rw);
		} else {
			pthread_rwlock_rdlock(&rw);
			if (pair[0] != pair[1])
				failed = 2; /* (a torn pair: read under the lock) */
			pthread_rwlock_unlock(&rw);
		}
	}
	return NULL;
}

static void mode_rwlock(void)
{
	run(rwlock_thread);
	pthread_rwlock_destroy(&rw);
	check(pair[0] == ITER + (NT - 1) * (ITER / 8), "rwlock count");
}

/* ---- semaphores: an unnamed one as a lock, a named one hands over ---- */
static sem_t sem_lock;
static sem_t *sem_ready;
static long handed;

static void *sem_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITER; i++) {
		sem_wait(&sem_lock);
		counter++;
		sem_post(&sem_lock);
	}
	return NULL;
}

static void *sem_giver(void *arg)
{
	(void)arg;
	handed = 12345;
	sem_post(sem_ready);
	return NULL;
}

static void mode_sem(void)
{
	char name[64];
	pthread_t t;

	sem_init(&sem_lock, 0, 1);
	run(sem_thread);
	sem_destroy(&sem_lock);
	check(counter == (long)NT * ITER, "sem count");
	snprintf(name, sizeof name, "/fthr-tools-%d", (int)getpid());
	sem_ready = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	if (sem_ready == SEM_FAILED)
		abort();
	sem_unlink(name);
	pthread_create(&t, NULL, sem_giver, NULL);
	sem_wait(sem_ready);
	check(handed == 12345, "sem hand-over");
	pthread_join(t, NULL);
	sem_close(sem_ready);
}

/* ---- barrier: each writes its slot, all read all ---- */
static pthread_barrier_t bar;

static void *barrier_thread(void *arg)
{
	long id = (long)arg, sum = 0;

	for (int round = 1; round <= 3; round++) {
		slot[id] = id * round;
		pthread_barrier_wait(&bar);
		sum = 0;
		for (int i = 0; i < NT; i++)
			sum += slot[i];
		if (sum != round * (long)NT * (NT - 1) / 2)
			failed = 3;
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static void mode_barrier(void)
{
	pthread_barrier_init(&bar, NULL, NT);
	run(barrier_thread);
	pthread_barrier_destroy(&bar);
	check(failed != 3, "barrier sums");
}

/* ---- spin lock ---- */
static pthread_spinlock_t spin;

static void *spin_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < ITER; i++) {
		pthread_spin_lock(&spin);
		counter++;
		pthread_spin_unlock(&spin);
	}
	return NULL;
}

static void mode_spin(void)
{
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	run(spin_thread);
	pthread_spin_destroy(&spin);
	check(counter == (long)NT * ITER, "spin count");
}

/* ---- once: the initializer's writes are seen by every caller ---- */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static long table[16];

static void once_init(void)
{
	for (int i = 0; i < 16; i++)
		table[i] = i * i;
}

static void *once_thread(void *arg)
{
	(void)arg;
	pthread_once(&once, once_init);
	if (table[15] != 225)
		failed = 4;
	return NULL;
}

static void mode_once(void)
{
	run(once_thread);
	check(failed != 4, "once table");
}

/* ---- C11: mtx (plain, recursive), cnd, call_once on the same ideas ---- */
static mtx_t cm, crm;
static cnd_t cc;
static once_flag cflag = ONCE_FLAG_INIT;
static long c_item, c_full, c_sum, c_table;

static void c_once_init(void)
{
	c_table = 99;
}

static void *c11_producer(void *arg)
{
	(void)arg;
	call_once(&cflag, c_once_init);
	for (long i = 1; i <= ITER; i++) {
		mtx_lock(&cm);
		while (c_full)
			cnd_wait(&cc, &cm);
		c_item = i;
		c_full = 1;
		cnd_broadcast(&cc);
		mtx_unlock(&cm);
	}
	return NULL;
}

static void *c11_consumer(void *arg)
{
	(void)arg;
	call_once(&cflag, c_once_init);
	if (c_table != 99)
		failed = 5;
	for (long i = 0; i < ITER; i++) {
		mtx_lock(&cm);
		while (!c_full)
			cnd_wait(&cc, &cm);
		mtx_lock(&crm);
		mtx_lock(&crm);
		c_sum += c_item;
		mtx_unlock(&crm);
		mtx_unlock(&crm);
		c_full = 0;
		cnd_signal(&cc);
		mtx_unlock(&cm);
	}
	return NULL;
}

static void mode_c11(void)
{
	pthread_t p, c;

	mtx_init(&cm, mtx_plain);
	mtx_init(&crm, mtx_plain | mtx_recursive);
	cnd_init(&cc);
	pthread_create(&c, NULL, c11_consumer, NULL);
	pthread_create(&p, NULL, c11_producer, NULL);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	cnd_destroy(&cc);
	mtx_destroy(&crm);
	mtx_destroy(&cm);
	check(c_sum == (long)ITER * (ITER + 1) / 2 && failed != 5, "c11 sum");
}

/* ---- the bugs ---- */
static void *race_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m); /* a lock, but not around the counter */
	pthread_mutex_unlock(&m);
	for (int i = 0; i < ITER; i++)
		counter++;
	return NULL;
}

static void mode_race(void)
{
	run(race_thread);
}

static pthread_mutex_t la = PTHREAD_MUTEX_INITIALIZER, lb = PTHREAD_MUTEX_INITIALIZER;

static void *ab(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&la);
	pthread_mutex_lock(&lb);
	pthread_mutex_unlock(&lb);
	pthread_mutex_unlock(&la);
	return NULL;
}

static void *ba(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lb);
	pthread_mutex_lock(&la);
	pthread_mutex_unlock(&la);
	pthread_mutex_unlock(&lb);
	return NULL;
}

static void mode_inversion(void)
{
	pthread_t t;

	pthread_create(&t, NULL, ab, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, ba, NULL);
	pthread_join(t, NULL);
}

static const struct {
	const char *name;
	void (*fn)(void);
} modes[] = {
	{ "mutex", mode_mutex },   { "cond", mode_cond }, { "rwlock", mode_rwlock },
	{ "sem", mode_sem },       { "barrier", mode_barrier }, { "spin", mode_spin },
	{ "once", mode_once },     { "c11", mode_c11 },       { "race", mode_race }, { "inversion", mode_inversion },
};

int main(int argc, char **argv)
{
	Dl_info di;

	if (argc != 2) {
		fprintf(stderr, "usage: tools_prog MODE\n");
		return 2;
	}
	if (dladdr((void *)pthread_mutex_lock, &di) && di.dli_fname)
		printf("pthread_mutex_lock from %s\n", di.dli_fname);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].fn();
			return failed ? 1 : 0;
		}
	fprintf(stderr, "tools_prog: no mode %s\n", argv[1]);
	return 2;
}
