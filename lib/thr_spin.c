/* lib/thr_spin.c: pthread spinlocks, glibc's values.
 *
 * The word: 0 unlocked, 1 locked. No futex: a spinlock's waiters spin.
 *   lock     SWAP(1) with acquire; if it returned 1, spin on relaxed loads
 *            with the cpu's relax hint until the word reads 0, then SWAP
 *            again (test-and-test-and-set: the line stays shared while
 *            waiting, only one thread writes it at a time).
 *   trylock  SWAP(1); EBUSY if it returned 1.
 *   unlock   store-release 0. Nobody sleeps, so nobody is woken.
 */
#include "config.h"
#include <errno.h>
#include "fthr_impl.h"

static FTHR_NOINLINE int spin_wait(volatile int *w)
{
	do {
		while (a_load_relaxed(w) != 0)
			arch_cpu_relax();
	} while (a_swap_acquire(w, 1) != 0);
	return 0;
}

FTHR_HIDDEN int fthr_spin_lock(pthread_spinlock_t *l)
{
	if (likely(a_swap_acquire(l, 1) == 0))
		return 0;
	return spin_wait(l);
}

FTHR_HIDDEN int fthr_spin_trylock(pthread_spinlock_t *l)
{
	return a_swap_acquire(l, 1) == 0 ? 0 : EBUSY;
}

FTHR_HIDDEN int fthr_spin_unlock(pthread_spinlock_t *l)
{
	a_store_release(l, 0);
	return 0;
}

FTHR_HIDDEN int fthr_spin_init(pthread_spinlock_t *l, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE &&
	    pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a_store_release(l, 0);
	return 0;
}

FTHR_HIDDEN int fthr_spin_destroy(pthread_spinlock_t *l)
{
	return a_load_relaxed(l) != 0 ? EBUSY : 0;
}

FTHR_EXPORT(pthread_spin_init, fthr_spin_init);
FTHR_EXPORT(pthread_spin_destroy, fthr_spin_destroy);
FTHR_EXPORT(pthread_spin_lock, fthr_spin_lock);
FTHR_EXPORT(pthread_spin_trylock, fthr_spin_trylock);
FTHR_EXPORT(pthread_spin_unlock, fthr_spin_unlock);
