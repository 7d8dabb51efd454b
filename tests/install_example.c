/* tests/install_example.c: a program built against an installed fthr with
 * pkg-config (tests/install.sh): four threads count under one mutex. */
#include <fthr.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n;

static void *count(void *arg)
{
	for (int i = 0; i < 100000; i++) {
		pthread_mutex_lock(&m);
		n++;
		pthread_mutex_unlock(&m);
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, count, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("fthr %s counted %ld\n", fthr_version(), n);
	return n == 400000 ? 0 : 1;
}
