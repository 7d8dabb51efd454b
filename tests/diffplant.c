/* tests/diffplant.c: a planted difference for tests/difftest.sh, preloaded
 * in front of libfthr in the fthr runs only: pthread_spin_trylock of a
 * held spin lock says EAGAIN instead of EBUSY. The differential run must
 * find it and shrink it to the few calls that show it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

int pthread_spin_trylock(pthread_spinlock_t *l)
{
	static int (*next)(pthread_spinlock_t *);

	if (!next)
		next = (int (*)(pthread_spinlock_t *))dlsym(RTLD_NEXT, "pthread_spin_trylock");
	int r = next(l);
	return r == EBUSY ? EAGAIN : r;
}
