/* tests/bindnow_lib.c: a library linked with -z now (as Debian builds
 * liblzma, libcrypto, liblmdb...) that uses the entry points fthr's
 * profiler and checker can watch. tests/bindnow.sh preloads fthr into a
 * program that needs it: ld.so must print nothing. */
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

int bindnow_work(void)
{
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_rwlock_t l;
	sem_t s;
	struct timespec past = { 1, 0 };
	int r = 0;

	r |= pthread_mutex_init(&m, NULL);
	r |= pthread_cond_init(&c, NULL);
	r |= pthread_mutex_lock(&m);
	r |= pthread_cond_timedwait(&c, &m, &past) != 110; /* ETIMEDOUT */
	r |= pthread_mutex_unlock(&m);
	r |= pthread_cond_destroy(&c);
	r |= pthread_mutex_destroy(&m);
	r |= pthread_rwlock_init(&l, NULL);
	r |= pthread_rwlock_rdlock(&l);
	r |= pthread_rwlock_unlock(&l);
	r |= pthread_rwlock_destroy(&l);
	r |= sem_init(&s, 0, 1);
	r |= sem_wait(&s);
	r |= sem_destroy(&s);
	return r;
}
