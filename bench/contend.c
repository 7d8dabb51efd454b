/* bench/contend.c: the main job's workload. T threads each take and release
 * one shared mutex N times, doing a little work inside and outside the
 * critical section. Prints the wall time and checks the shared count, so a
 * broken mutex cannot post a good time.
 *
 * Usage: contend THREADS ITERATIONS [TYPE]   TYPE: normal|adaptive|recursive|errorcheck
 *        contend where    prints the file pthread_mutex_lock comes from
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t m;
static volatile unsigned long shared_count;
static long iters;

static void *worker(void *arg)
{
	unsigned long local = (unsigned long)(size_t)arg;
	long i;

	for (i = 0; i < iters; i++) {
		pthread_mutex_lock(&m);
		shared_count++;
		pthread_mutex_unlock(&m);
		/* a little private work, as real code has between locks */
		for (int k = 0; k < 20; k++)
			local = local * 6364136223846793005ul + 1442695040888963407ul;
	}
	return (void *)(size_t)local;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	const char *type = argc > 3 ? argv[3] : "normal";
	pthread_mutexattr_t a;
	pthread_t *t;
	struct timespec t0, t1;
	int i, kind = PTHREAD_MUTEX_NORMAL;

	if (argc > 1 && !strcmp(argv[1], "where")) {
		Dl_info info;

		if (!dladdr((void *)pthread_mutex_lock, &info) || !info.dli_fname)
			return 1;
		puts(info.dli_fname);
		return 0;
	}
	iters = argc > 2 ? atol(argv[2]) : 1000000;
	if (threads < 1 || iters < 1)
		return 2;
	if (!strcmp(type, "adaptive"))
		kind = PTHREAD_MUTEX_ADAPTIVE_NP;
	else if (!strcmp(type, "recursive"))
		kind = PTHREAD_MUTEX_RECURSIVE;
	else if (!strcmp(type, "errorcheck"))
		kind = PTHREAD_MUTEX_ERRORCHECK;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, kind);
	pthread_mutex_init(&m, &a);
	t = calloc((size_t)threads, sizeof(*t));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(size_t)i))
			return 3;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (shared_count != (unsigned long)threads * (unsigned long)iters) {
		fprintf(stderr, "contend: lost updates: %lu != %lu\n", shared_count,
			(unsigned long)threads * (unsigned long)iters);
		return 1;
	}
	printf("%.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}
