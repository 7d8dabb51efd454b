/* tests/diag_prog.c: small programs with deliberate lock-order inversions,
 * misuse and contention, one per argument, for tests/diag.sh to run under
 * FTHR_CHECK / FTHR_PROFILE and assert on the reports. Built twice: plain
 * (system headers, -lpthread, run preloaded) and linked with -lfthr. Linked
 * with -rdynamic, and the functions that lock are not inlined, so that the
 * reports can name them.
 * Each scenario prints "RESULT ..." lines with the return codes it saw. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mb = PTHREAD_MUTEX_INITIALIZER;

static void *join(pthread_t t)
{
	void *r;

	pthread_join(t, &r);
	return r;
}

/* A then B here, B then A in another thread, one after the other: the
 * order is inverted, though this run does not deadlock. */
NOINLINE void *take_b_then_a(void *arg)
{
	pthread_mutex_lock(&mb);
	pthread_mutex_lock(&ma);
	pthread_mutex_unlock(&ma);
	pthread_mutex_unlock(&mb);
	return arg;
}

NOINLINE void take_a_then_b(void)
{
	pthread_mutex_lock(&ma);
	pthread_mutex_lock(&mb);
	pthread_mutex_unlock(&mb);
	pthread_mutex_unlock(&ma);
}

static int inversion(void)
{
	pthread_t t;

	take_a_then_b();
	pthread_create(&t, NULL, take_b_then_a, NULL);
	join(t);
	return 0;
}

/* The same across a rwlock and a mutex. */
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

NOINLINE void *mutex_then_rwlock(void *arg)
{
	pthread_mutex_lock(&ma);
	pthread_rwlock_rdlock(&rw);
	pthread_rwlock_unlock(&rw);
	pthread_mutex_unlock(&ma);
	return arg;
}

static int rw_inversion(void)
{
	pthread_t t;

	pthread_rwlock_wrlock(&rw);
	pthread_mutex_lock(&ma);
	pthread_mutex_unlock(&ma);
	pthread_rwlock_unlock(&rw);
	pthread_create(&t, NULL, mutex_then_rwlock, NULL);
	join(t);
	return 0;
}

/* A correct program: nested in one order everywhere, cond waits, sems. */
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static int turn;

NOINLINE void *clean_worker(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		pthread_mutex_lock(&ma);
		pthread_mutex_lock(&mb);
		pthread_mutex_unlock(&mb);
		while (turn % 2 != (int)(long)arg)
			pthread_cond_wait(&cv, &ma);
		turn++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&ma);
		sem_post(&sem);
	}
	return NULL;
}

static int clean(void)
{
	pthread_t t[2];
	pthread_mutex_t m;

	sem_init(&sem, 0, 0);
	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, clean_worker, (void *)i);
	for (int i = 0; i < 2000; i++)
		sem_wait(&sem);
	join(t[0]);
	join(t[1]);
	pthread_mutex_init(&m, NULL);
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	printf("RESULT destroy %d\n", pthread_mutex_destroy(&m));
	sem_destroy(&sem);
	return 0;
}

/* Relock of a normal mutex this thread holds: a self-deadlock (run with
 * FTHR_CHECK=abort, which stops it after the report). */
static int relock(void)
{
	pthread_mutex_lock(&ma);
	alarm(5); /* without the checker: a hang, killed */
	pthread_mutex_lock(&ma);
	return 0;
}

NOINLINE void *lock_and_keep(void *arg)
{
	pthread_mutex_lock(&mb);
	return arg;
}

/* Unlock of a mutex another thread holds. */
static int foreign_unlock(void)
{
	pthread_t t;

	pthread_create(&t, NULL, lock_and_keep, NULL); /* and exits holding it */
	join(t);
	printf("RESULT unlock %d\n", pthread_mutex_unlock(&mb));
	return 0;
}

static int destroy_locked(void)
{
	pthread_mutex_t m;

	pthread_mutex_init(&m, NULL);
	pthread_mutex_lock(&m);
	printf("RESULT destroy %d\n", pthread_mutex_destroy(&m));
	pthread_mutex_unlock(&m);
	return 0;
}

static int use_destroyed(void)
{
	pthread_mutex_t m;

	pthread_mutex_init(&m, NULL);
	pthread_mutex_destroy(&m);
	printf("RESULT lock %d\n", pthread_mutex_lock(&m));
	return 0;
}

static int uninitialized(void)
{
	pthread_mutex_t m;

	memset(&m, 0xa5, sizeof(m));
	printf("RESULT lock %d\n", pthread_mutex_lock(&m));
	return 0;
}

/* Two threads wait on one condvar with different mutexes. */
NOINLINE void *wait_with_b(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	pthread_mutex_lock(&mb);
	pthread_cond_timedwait(&cv, &mb, &ts);
	pthread_mutex_unlock(&mb);
	return arg;
}

static int two_mutexes(void)
{
	struct timespec ts;
	pthread_t t;

	pthread_create(&t, NULL, wait_with_b, NULL);
	usleep(200000);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec = 0;
	ts.tv_sec += 1;
	pthread_mutex_lock(&ma);
	pthread_cond_timedwait(&cv, &ma, &ts);
	pthread_mutex_unlock(&ma);
	pthread_cond_broadcast(&cv);
	join(t);
	return 0;
}

/* Contention for the profiler: 4 threads, 10 us critical sections. */
static pthread_mutex_t hot;
static volatile int stop;
static long hot_count;

static void spin_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

NOINLINE void *hot_worker(void *arg)
{
	while (!stop) {
		pthread_mutex_lock(&hot);
		hot_count++;
		spin_us(10);
		pthread_mutex_unlock(&hot);
	}
	return arg;
}

NOINLINE void make_contention(void)
{
	if (pthread_mutex_init(&hot, NULL) != 0) /* not a tail call */
		abort();
}

static int contention(void)
{
	pthread_t t[4];
	mtx_t m;

	make_contention();
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hot_worker, NULL);
	usleep(300000);
	stop = 1;
	for (int i = 0; i < 4; i++)
		join(t[i]);
	/* C11 objects are watched too */
	mtx_init(&m, mtx_plain);
	mtx_lock(&m);
	mtx_unlock(&m);
	mtx_destroy(&m);
	printf("RESULT hot %ld\n", hot_count);
	if (getenv("DIAG_SIGUSR2"))
		raise(SIGUSR2);
	return 0;
}

/* Misuse whose result is glibc's (man/fthr.7): reported, the call made. */
static pthread_rwlock_t drw;

NOINLINE void *read_and_exit(void *arg)
{
	pthread_rwlock_rdlock(&drw);
	return arg;
}

/* An rwlock destroyed after its reader exited: 0, as glibc's. */
static int rw_destroy_held(void)
{
	pthread_t t;

	pthread_rwlock_init(&drw, NULL);
	pthread_create(&t, NULL, read_and_exit, NULL); /* and exits holding it */
	join(t);
	printf("RESULT destroy %d\n", pthread_rwlock_destroy(&drw));
	printf("RESULT rdlock %d\n", pthread_rwlock_tryrdlock(&drw));
	return 0;
}

/* The unlock of an rwlock nobody holds: 0, as glibc's; the destroy after
 * it is no misuse. */
static int rw_unlock_unheld(void)
{
	pthread_rwlock_t l;

	pthread_rwlock_init(&l, NULL);
	printf("RESULT unlock %d\n", pthread_rwlock_unlock(&l));
	printf("RESULT destroy %d\n", pthread_rwlock_destroy(&l));
	return 0;
}

/* A spinlock made with a bad pshared value and destroyed held: 0, 0. */
static int spin_misuse(void)
{
	pthread_spinlock_t s;

	printf("RESULT init %d\n", pthread_spin_init(&s, 5));
	pthread_spin_lock(&s);
	printf("RESULT destroy %d\n", pthread_spin_destroy(&s));
	pthread_spin_unlock(&s);
	printf("RESULT destroy %d\n", pthread_spin_destroy(&s));
	return 0;
}

/* Which pthread_mutex_lock is the program bound to? Prints its offset in
 * the library that defines it. */
static int binding(void)
{
	void *f = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	Dl_info di;

	if (!dladdr(f, &di))
		return 1;
	printf("RESULT binding %s 0x%lx\n", di.dli_fname,
	       (unsigned long)f - (unsigned long)di.dli_fbase);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} s[] = {
		{ "inversion", inversion }, { "rw_inversion", rw_inversion },
		{ "clean", clean }, { "relock", relock },
		{ "foreign_unlock", foreign_unlock }, { "destroy_locked", destroy_locked },
		{ "use_destroyed", use_destroyed }, { "uninitialized", uninitialized },
		{ "two_mutexes", two_mutexes }, { "contention", contention },
		{ "binding", binding }, { "rw_destroy_held", rw_destroy_held },
		{ "rw_unlock_unheld", rw_unlock_unheld }, { "spin_misuse", spin_misuse },
	};

	setvbuf(stdout, NULL, _IONBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(s) / sizeof(s[0]); i++)
		if (!strcmp(argv[1], s[i].name))
			return s[i].fn();
	fprintf(stderr, "usage: diag_prog SCENARIO\n");
	return 2;
}
