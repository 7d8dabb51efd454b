/* tests/gdb_prog.c: objects in known states for gdb's pretty-printers
 * (tests/gdb.sh). Threads take and wait on them, the program prints the
 * tids, then stops in ready(), where gdb prints each object. */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

pthread_mutex_t m_normal = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t m_rec, m_check, m_robust;
pthread_mutex_t m_c = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
pthread_cond_t c_shared;
pthread_rwlock_t rw_rd = PTHREAD_RWLOCK_INITIALIZER;
pthread_rwlock_t rw_wr = PTHREAD_RWLOCK_INITIALIZER;
sem_t s3, s0;
pthread_barrier_t b;

static sem_t hold; /* never posted: the holders keep what they hold */
static sem_t took;
static int owner_tid;

static void *owner(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m_normal);
	pthread_mutex_lock(&m_robust);
	owner_tid = gettid();
	sem_post(&took);
	sem_wait(&hold);
	return NULL;
}

static void *contender(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m_normal); /* sleeps: owner keeps it */
	return NULL;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m_c);
	for (;;)
		pthread_cond_wait(&c, &m_c);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	pthread_rwlock_rdlock(&rw_rd);
	sem_post(&took);
	sem_wait(&hold);
	return NULL;
}

static void *sem_waiter(void *arg)
{
	(void)arg;
	sem_wait(&s0);
	return NULL;
}

static void *barrier_waiter(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&b);
	return NULL;
}

/* gdb stops here */
__attribute__((noinline)) void ready(void)
{
	__asm__ volatile("" ::: "memory");
}

static void start(void *(*fn)(void *))
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, NULL) != 0)
		abort();
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_condattr_t ca;

	sem_init(&hold, 0, 0);
	sem_init(&took, 0, 0);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m_rec, &a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m_check, &a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m_robust, &a);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&c_shared, &ca);
	sem_init(&s3, 0, 3);
	sem_init(&s0, 0, 0);
	pthread_barrier_init(&b, NULL, 3);

	start(owner);
	sem_wait(&took);
	start(contender);
	start(cond_waiter);
	start(reader);
	start(reader);
	sem_wait(&took);
	sem_wait(&took);
	start(sem_waiter);
	start(barrier_waiter);
	pthread_mutex_lock(&m_rec);
	pthread_mutex_lock(&m_rec);
	pthread_rwlock_wrlock(&rw_wr);
	usleep(300000); /* the waiters spin a while, then sleep */
	printf("tids: main %d owner %d\n", gettid(), owner_tid);
	fflush(stdout);
	ready();
	return 0;
}
