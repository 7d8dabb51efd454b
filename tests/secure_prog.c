/* tests/secure_prog.c: the program tests/secure.sh installs setuid,
 * setgid or with a file capability, linked with fthr or plain (fthr then
 * comes from a simulated /etc/ld.so.preload). It prints whether fthr is
 * loaded and whether the kernel marked the process AT_SECURE, then takes
 * two mutexes in both orders: a lock-order inversion, which FTHR_CHECK
 * reports (and, with abort, aborts on) and FTHR_PROFILE counts. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/auxv.h>

int main(void)
{
	static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

	printf("fthr %s, AT_SECURE %lu\n", dlsym(RTLD_DEFAULT, "fthr_version") ? "loaded" : "absent",
	       getauxval(AT_SECURE));
	fflush(stdout);
	pthread_mutex_lock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_unlock(&b);
	pthread_mutex_unlock(&a);
	pthread_mutex_lock(&b);
	pthread_mutex_lock(&a);
	pthread_mutex_unlock(&a);
	pthread_mutex_unlock(&b);
	puts("done");
	return 0;
}
