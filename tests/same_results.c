/* tests/same_results.c: one program, compiled against the system headers,
 * that uses every mutex type (static initializers and attributes), once and
 * spinlocks, and prints a transcript of every result. tests/same-results.sh
 * runs it on plain glibc, with fthr preloaded and linked with -lfthr, and
 * requires the three transcripts to be identical. Where the code runs is
 * printed to stderr, which the script checks separately. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SHOW(expr) printf("%-60s = %d\n", #expr, (int)(expr))

static const char *type_name[] = { "normal", "recursive", "errorcheck", "adaptive" };
static pthread_mutex_t statics[4] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
	PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP, PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
};

static pthread_mutex_t *cm;
static long count;
static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(cm);
		count++;
		pthread_mutex_unlock(cm);
	}
	return NULL;
}

static pthread_mutex_t *other_m;
static void *other_unlock(void *arg) { (void)arg; return (void *)(long)pthread_mutex_unlock(other_m); }
static void *other_trylock(void *arg) { (void)arg; return (void *)(long)pthread_mutex_trylock(other_m); }
static long in_thread(void *(*fn)(void *))
{
	pthread_t t;
	void *r;

	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, &r);
	return (long)r;
}

static void exercise(pthread_mutex_t *m, int type, const char *how)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	struct timespec past = { 1, 0 }, bad = { 0, 1000000000 };
	pthread_t t[4];

	printf("-- %s mutex (%s)\n", type_name[type], how);
	SHOW(pthread_mutex_lock(m));
	SHOW(m->__data.__lock);
	SHOW(m->__data.__owner == tid);
	SHOW(m->__data.__kind & 3);
	if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP)
		SHOW(pthread_mutex_lock(m));
	SHOW(pthread_mutex_trylock(m));
	SHOW(m->__data.__count);
	other_m = m;
	SHOW(in_thread(other_trylock));
	if (type != PTHREAD_MUTEX_NORMAL && type != PTHREAD_MUTEX_ADAPTIVE_NP)
		SHOW(in_thread(other_unlock));
	SHOW(pthread_mutex_destroy(m));
	errno = 0;
	if (type == PTHREAD_MUTEX_RECURSIVE) {
		SHOW(pthread_mutex_timedlock(m, &past));
		SHOW(pthread_mutex_unlock(m));
	} else if (type == PTHREAD_MUTEX_ERRORCHECK) {
		SHOW(pthread_mutex_timedlock(m, &past));
	}
	/* another thread holds it: timeouts and bad deadlines */
	SHOW(pthread_mutex_unlock(m));
	if (type == PTHREAD_MUTEX_RECURSIVE)
		SHOW(pthread_mutex_unlock(m));
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		SHOW(pthread_mutex_unlock(m));
	SHOW(m->__data.__lock);
	SHOW(m->__data.__owner);
	SHOW(m->__data.__nusers);
	SHOW(pthread_mutex_lock(m));
	{
		/* held by us; for normal/adaptive a timed lock must time out */
		if (type == PTHREAD_MUTEX_NORMAL || type == PTHREAD_MUTEX_ADAPTIVE_NP) {
			SHOW(pthread_mutex_timedlock(m, &past));
			SHOW(pthread_mutex_timedlock(m, &bad));
			SHOW(pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &past));
			SHOW(pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID, &past));
		}
	}
	SHOW(pthread_mutex_unlock(m));
	SHOW(errno);
	cm = m;
	count = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	SHOW(count);
	SHOW(pthread_mutex_destroy(m));
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;
static void once_init(void) { once_runs++; usleep(10000); }
static void *once_caller(void *arg) { (void)arg; pthread_once(&once, once_init); return NULL; }

static pthread_spinlock_t sl;
static void *spin_hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50000; i++) {
		pthread_spin_lock(&sl);
		count++;
		pthread_spin_unlock(&sl);
	}
	return NULL;
}

int main(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	pthread_t t[4];
	Dl_info info;
	int v;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dladdr((void *)pthread_mutex_lock, &info))
		fprintf(stderr, "pthread_mutex_lock from %s\n", info.dli_fname);

	for (int type = 0; type < 4; type++)
		exercise(&statics[type], type, "static initializer");
	for (int type = 0; type < 4; type++) {
		SHOW(pthread_mutexattr_init(&a));
		SHOW(pthread_mutexattr_settype(&a, type));
		SHOW(pthread_mutex_init(&m, &a));
		exercise(&m, type, "attribute");
	}

	puts("-- recursion overflow");
	SHOW(pthread_mutex_init(&m, &a)); /* a: adaptive; make recursive */
	SHOW(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE));
	SHOW(pthread_mutex_init(&m, &a));
	SHOW(pthread_mutex_lock(&m));
	m.__data.__count = UINT_MAX;
	SHOW(pthread_mutex_lock(&m));
	SHOW(pthread_mutex_trylock(&m));
	m.__data.__count = 1;
	SHOW(pthread_mutex_unlock(&m));

	puts("-- destroyed mutex");
	SHOW(pthread_mutex_destroy(&m));
	SHOW(pthread_mutex_lock(&m));
	SHOW(pthread_mutex_trylock(&m));

	puts("-- mutexattr");
	SHOW(pthread_mutexattr_init(&a));
	SHOW(pthread_mutexattr_settype(&a, 4));
	SHOW(pthread_mutexattr_settype(&a, -1));
	SHOW(pthread_mutexattr_gettype(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_setpshared(&a, 2));
	SHOW(pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED));
	SHOW(pthread_mutexattr_getpshared(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_setprotocol(&a, 3));
	SHOW(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT));
	SHOW(pthread_mutexattr_getprotocol(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_getprioceiling(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_setprioceiling(&a, 100));
	SHOW(pthread_mutexattr_setprioceiling(&a, 0));
	SHOW(pthread_mutexattr_setprioceiling(&a, 42));
	SHOW(pthread_mutexattr_getprioceiling(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_setrobust(&a, 2));
	SHOW(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
	SHOW(pthread_mutexattr_getrobust(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_gettype(&a, &v)); SHOW(v);
	SHOW(pthread_mutexattr_destroy(&a));

	puts("-- once");
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, once_caller, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	SHOW(pthread_once(&once, once_init));
	SHOW(once_runs);
	SHOW(once);

	puts("-- spinlock");
	SHOW(pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE));
	SHOW(pthread_spin_lock(&sl));
	SHOW(pthread_spin_trylock(&sl));
	SHOW(sl);
	SHOW(pthread_spin_unlock(&sl));
	SHOW(sl);
	count = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spin_hammer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	SHOW(count);
	SHOW(pthread_spin_destroy(&sl));
	return 0;
}
