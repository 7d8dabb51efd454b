/* tests/same_results.c: one program, compiled against the system headers,
 * that uses every mutex type (static initializers and attributes), once and
 * spinlocks, and prints a transcript of every result. tests/same-results.sh
 * runs it on plain glibc, with fthr preloaded and linked with -lfthr, and
 * requires the three transcripts to be identical. Where the code runs is
 * printed to stderr, which the script checks separately.
 * Its second half is misuse whose outcome POSIX leaves undefined but glibc
 * gives deterministically (man/fthr.7, "Results where POSIX leaves them
 * undefined"): each object misused is initialized again before any further
 * use, since glibc's own state after some of them is corrupt. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <threads.h>
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

/* ---- misuse: glibc's results ---- */

static pthread_rwlock_t rw;
static pthread_mutex_t um;
static pthread_cond_t ucv;
static sem_t usem;
static volatile int flag, go;

static void *rd_and_exit(void *arg) { (void)arg; return (void *)(long)pthread_rwlock_rdlock(&rw); }
static void *wr_and_exit(void *arg) { (void)arg; return (void *)(long)pthread_rwlock_wrlock(&rw); }
static void *rw_unlock(void *arg) { (void)arg; return (void *)(long)pthread_rwlock_unlock(&rw); }
static void *rw_trywr(void *arg) { (void)arg; return (void *)(long)pthread_rwlock_trywrlock(&rw); }
static void *m_lock_and_exit(void *arg) { (void)arg; return (void *)(long)pthread_mutex_lock(&um); }

static void rw_init(int kind)
{
	pthread_rwlockattr_t ra;

	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, kind);
	pthread_rwlock_init(&rw, &ra);
}

static void m_init(int type, int robust, int proto, int pshared)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, type);
	pthread_mutexattr_setrobust(&ma, robust);
	pthread_mutexattr_setprotocol(&ma, proto);
	pthread_mutexattr_setpshared(&ma, pshared);
	pthread_mutex_init(&um, &ma);
}

/* A robust mutex destroyed by its holder: its unlock then fails, and it
 * stays on the thread's robust list until the thread exits. */
static void *robust_destroy_held(void *arg)
{
	(void)arg;
	SHOW(pthread_mutex_lock(&um));
	SHOW(pthread_mutex_destroy(&um));
	SHOW(pthread_mutex_unlock(&um));
	return NULL;
}

/* A priority-protect mutex unlocked unlocked (glibc's count of the
 * thread's ceilings goes wrong: in a thread of its own). */
static void *pp_stray_unlock(void *arg)
{
	puts("   priority-protect");
	m_init((int)(long)arg, 0, PTHREAD_PRIO_PROTECT, 0);
	SHOW(pthread_mutex_unlock(&um));
	SHOW(pthread_mutex_destroy(&um));
	return NULL;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&um);
	flag = 1;
	while (!go)
		pthread_cond_wait(&ucv, &um);
	pthread_mutex_unlock(&um);
	return NULL;
}

static void *sem_waiter(void *arg)
{
	(void)arg;
	flag = 1;
	return (void *)(long)sem_wait(&usem);
}

static void misuse(void)
{
	static const int rw_kinds[] = { PTHREAD_RWLOCK_PREFER_READER_NP,
					PTHREAD_RWLOCK_PREFER_WRITER_NP,
					PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP };
	struct timespec past = { 1, 0 }, bad = { 0, 1000000000 }, neg = { 0, -1 };
	pthread_spinlock_t sp;
	pthread_barrier_t b;
	pthread_t t;
	mtx_t x;
	int v;

	for (int k = 0; k < 3; k++) {
		printf("-- rwlock kind %d: destroy of a held lock (glibc: 0)\n", rw_kinds[k]);
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_rdlock(&rw));
		SHOW(pthread_rwlock_destroy(&rw));
		SHOW(pthread_rwlock_destroy(&rw));
		SHOW(in_thread(rw_trywr));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(in_thread(rw_trywr)); /* write-held by the thread gone */
		SHOW(pthread_rwlock_destroy(&rw));
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_wrlock(&rw));
		SHOW(pthread_rwlock_destroy(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		puts("   holder exited");
		rw_init(rw_kinds[k]);
		SHOW(in_thread(rd_and_exit));
		SHOW(pthread_rwlock_trywrlock(&rw));
		SHOW(pthread_rwlock_timedwrlock(&rw, &past));
		SHOW(pthread_rwlock_destroy(&rw));
		rw_init(rw_kinds[k]);
		SHOW(in_thread(wr_and_exit));
		SHOW(pthread_rwlock_timedrdlock(&rw, &past));
		SHOW(pthread_rwlock_timedwrlock(&rw, &past));
		SHOW(pthread_rwlock_timedrdlock(&rw, &bad));
		SHOW(pthread_rwlock_destroy(&rw));
		puts("   after destroy: the lock still works");
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_destroy(&rw));
		SHOW(pthread_rwlock_rdlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_trywrlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));

		printf("-- rwlock kind %d: unlock of a lock not held (glibc: 0)\n", rw_kinds[k]);
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_unlock(&rw));
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_wrlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_rdlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		rw_init(rw_kinds[k]);
		SHOW(in_thread(wr_and_exit));
		SHOW(pthread_rwlock_unlock(&rw)); /* another thread's write lock */
		puts("   another thread's read lock: released");
		rw_init(rw_kinds[k]);
		SHOW(in_thread(rd_and_exit));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_trywrlock(&rw));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_rdlock(&rw));
		SHOW(in_thread(rw_unlock));
		SHOW(in_thread(rw_trywr));
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_wrlock(&rw));
		SHOW(in_thread(rw_unlock));

		printf("-- rwlock kind %d: a bad deadline, checked first (glibc)\n", rw_kinds[k]);
		rw_init(rw_kinds[k]);
		SHOW(pthread_rwlock_timedrdlock(&rw, &bad));
		SHOW(pthread_rwlock_timedwrlock(&rw, &bad));
		SHOW(pthread_rwlock_timedrdlock(&rw, &neg));
		SHOW(pthread_rwlock_timedwrlock(&rw, &neg));
		SHOW(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &bad));
		SHOW(pthread_rwlock_clockwrlock(&rw, CLOCK_REALTIME, &bad));
		rw_init(rw_kinds[k]); /* (in case one of them took it) */
		SHOW(pthread_rwlock_trywrlock(&rw));
		SHOW(pthread_rwlock_timedrdlock(&rw, &bad));
		SHOW(pthread_rwlock_timedwrlock(&rw, &bad));
		SHOW(pthread_rwlock_timedwrlock(&rw, &past));
		SHOW(pthread_rwlock_unlock(&rw));
		SHOW(pthread_rwlock_destroy(&rw));
	}

	for (int type = 0; type < 4; type++) {
		printf("-- %s mutex: destroy while a condition wait uses it (glibc: EBUSY)\n",
		       type_name[type]);
		for (int pshared = 0; pshared < 2; pshared++) {
			m_init(type, 0, PTHREAD_PRIO_NONE, pshared);
			pthread_cond_init(&ucv, NULL);
			flag = go = 0;
			pthread_create(&t, NULL, cond_waiter, NULL);
			while (!flag)
				usleep(1000);
			SHOW(pthread_mutex_lock(&um)); /* so the waiter waits */
			SHOW(pthread_mutex_unlock(&um));
			SHOW(v = pthread_mutex_destroy(&um));
			if (v == 0) /* (not glibc's result: keep the waiter going) */
				m_init(type, 0, PTHREAD_PRIO_NONE, pshared);
			SHOW(pthread_mutex_lock(&um));
			go = 1;
			SHOW(pthread_cond_broadcast(&ucv));
			SHOW(pthread_mutex_unlock(&um));
			pthread_join(t, NULL);
			SHOW(um.__data.__nusers);
			SHOW(pthread_mutex_destroy(&um));
			SHOW(pthread_cond_destroy(&ucv));
		}
		if (type == PTHREAD_MUTEX_NORMAL || type == PTHREAD_MUTEX_ADAPTIVE_NP) {
			printf("-- %s mutex: unlocked unlocked (glibc: 0, and destroy EBUSY)\n",
			       type_name[type]);
			for (int pshared = 0; pshared < 2; pshared++) {
				m_init(type, 0, PTHREAD_PRIO_NONE, pshared);
				SHOW(pthread_mutex_unlock(&um));
				SHOW(pthread_mutex_destroy(&um));
				SHOW(pthread_mutex_trylock(&um));
				SHOW(pthread_mutex_unlock(&um));
				SHOW(pthread_mutex_destroy(&um));
			}
			pthread_create(&t, NULL, pp_stray_unlock, (void *)(long)type);
			pthread_join(t, NULL);
		}
		printf("-- robust %s mutex: destroy while held (glibc: 0)\n", type_name[type]);
		m_init(type, PTHREAD_MUTEX_ROBUST, PTHREAD_PRIO_NONE, 0);
		pthread_create(&t, NULL, robust_destroy_held, NULL);
		pthread_join(t, NULL);
		m_init(type, PTHREAD_MUTEX_ROBUST, PTHREAD_PRIO_NONE, 0);
		SHOW(in_thread(m_lock_and_exit));
		SHOW(pthread_mutex_destroy(&um));
		SHOW(pthread_mutex_trylock(&um));
		m_init(type, PTHREAD_MUTEX_ROBUST, PTHREAD_PRIO_INHERIT, 0);
		SHOW(in_thread(m_lock_and_exit));
		SHOW(pthread_mutex_destroy(&um));
	}

	puts("-- spinlock (glibc: any pshared value, destroy of a held lock 0)");
	SHOW(pthread_spin_init(&sp, 5));
	SHOW(pthread_spin_init(&sp, -1));
	pthread_spin_init(&sp, PTHREAD_PROCESS_PRIVATE); /* (if they failed) */
	SHOW(pthread_spin_lock(&sp));
	SHOW(pthread_spin_destroy(&sp));
	SHOW(pthread_spin_trylock(&sp));
	SHOW(pthread_spin_unlock(&sp));
	SHOW(pthread_spin_destroy(&sp));

	puts("-- semaphore: a bad deadline, checked first (glibc)");
	SHOW(sem_init(&usem, 0, 1));
	errno = 0;
	SHOW(sem_timedwait(&usem, &bad));
	SHOW(errno);
	errno = 0;
	SHOW(sem_clockwait(&usem, CLOCK_MONOTONIC, &bad));
	SHOW(errno);
	SHOW(sem_getvalue(&usem, &v)); SHOW(v);
	SHOW(sem_timedwait(&usem, &neg));
	SHOW(errno);
	SHOW(sem_timedwait(&usem, &past));
	SHOW(errno);
	SHOW(sem_getvalue(&usem, &v)); SHOW(v);
	puts("-- semaphore: destroy with a waiter (glibc: 0)");
	SHOW(sem_init(&usem, 0, 0));
	flag = 0;
	pthread_create(&t, NULL, sem_waiter, NULL);
	while (!flag)
		usleep(1000);
	usleep(20000);
	SHOW(sem_destroy(&usem));
	SHOW(sem_post(&usem));
	pthread_join(t, NULL);
	SHOW(sem_destroy(&usem));

	puts("-- barrier: glibc's bound on the count");
	SHOW(pthread_barrier_init(&b, NULL, INT_MAX));
	SHOW(pthread_barrier_init(&b, NULL, (unsigned)INT_MAX + 1));
	SHOW(pthread_barrier_init(&b, NULL, INT_MAX - 1));
	SHOW(pthread_barrier_destroy(&b));

	puts("-- C11: mtx_init of an unknown type (glibc: a plain mutex)");
	SHOW(v = mtx_init(&x, 77));
	if (v != thrd_success) /* (not glibc's result) */
		mtx_init(&x, mtx_plain);
	SHOW(mtx_lock(&x));
	SHOW(mtx_trylock(&x));
	SHOW(mtx_unlock(&x));
	mtx_destroy(&x);
	SHOW(v = mtx_init(&x, mtx_timed | 8));
	if (v != thrd_success)
		mtx_init(&x, mtx_plain);
	SHOW(mtx_trylock(&x));
	SHOW(mtx_trylock(&x));
	SHOW(mtx_unlock(&x));
	mtx_destroy(&x);
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

	misuse();
	return 0;
}
