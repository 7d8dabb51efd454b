/* lib/thr_spin.c: pthread spinlocks, glibc's values.
 *
 * The word: FREE, or anything else when held. FREE and HELD are glibc's
 * values for the cpu (arch.h: x86_64 1 and 0, aarch64 0 and 1), so that a
 * process-shared spinlock works between fthr and plain-glibc processes
 * (glibc's x86_64 contenders decrement a held word below 0; still held).
 * No futex: a spinlock's waiters spin.
 *   lock     take: where FREE is 1 (x86), a decrement with acquire that
 *            reaches 0, glibc's own "lock decl" (a failed one leaves the
 *            word below 0: held, as glibc's contenders leave it); elsewhere
 *            SWAP(HELD) returning FREE. If the take failed, spin on
 *            relaxed loads with the cpu's relax hint until the word reads
 *            FREE, then take again (test-and-test-and-set: the line stays
 *            shared while waiting, only one thread writes it at a time).
 *   trylock  SWAP(HELD); EBUSY unless it returned FREE.
 *   unlock   store-release FREE. Nobody sleeps, so nobody is woken.
 * As glibc's, init takes any pshared value and destroy returns 0 even for
 * a held lock (POSIX leaves both undefined; FTHR_CHECK reports them).
 */
#include "config.h"
#include <errno.h>
#include "diag.h"
#include "fthr_impl.h"

/* One attempt at a free lock. The decrement is one instruction fewer than
 * the swap on x86 (no register to load with HELD), which makes the
 * lock-and-unlock pair glibc's 7 instructions instead of 9. */
static inline bool spin_take(volatile int *w)
{
#if ARCH_SPIN_FREE == 1
	return a_sub_fetch_acquire(w, 1) == 0;
#else
	return a_swap_acquire(w, ARCH_SPIN_HELD) == ARCH_SPIN_FREE;
#endif
}

static FTHR_NOINLINE int spin_wait(volatile int *w)
{
	do {
		while (a_load_relaxed(w) != ARCH_SPIN_FREE)
			arch_cpu_relax();
	} while (!spin_take(w));
	return 0;
}

FTHR_HIDDEN int fthr_spin_lock(pthread_spinlock_t *l)
{
	if (likely(spin_take(l)))
		return 0;
	return spin_wait(l);
}

FTHR_HIDDEN int fthr_spin_trylock(pthread_spinlock_t *l)
{
	return a_swap_acquire(l, ARCH_SPIN_HELD) == ARCH_SPIN_FREE ? 0 : EBUSY;
}

FTHR_HIDDEN int fthr_spin_unlock(pthread_spinlock_t *l)
{
	a_store_release(l, ARCH_SPIN_FREE);
	return 0;
}

FTHR_HIDDEN int fthr_spin_init(pthread_spinlock_t *l, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED &&
	    fthr_diag_mode())
		fthr_diag_misuse("spinlock initialized with an invalid pshared value",
				 "spinlock", l);
	a_store_release(l, ARCH_SPIN_FREE);
	return 0;
}

FTHR_HIDDEN int fthr_spin_destroy(pthread_spinlock_t *l)
{
	if (a_load_relaxed(l) != ARCH_SPIN_FREE && fthr_diag_mode())
		fthr_diag_misuse("destroy of a locked spinlock", "spinlock", l);
	return 0;
}

FTHR_EXPORT(pthread_spin_init, fthr_spin_init);
FTHR_EXPORT(pthread_spin_destroy, fthr_spin_destroy);
FTHR_EXPORT(pthread_spin_lock, fthr_spin_lock);
FTHR_EXPORT(pthread_spin_trylock, fthr_spin_trylock);
FTHR_EXPORT(pthread_spin_unlock, fthr_spin_unlock);
