/* lib/thr_once.c: pthread_once on one futex word, glibc's encoding.
 *
 * Futex protocol of the pthread_once_t word:
 *   0          not run
 *   gen|1      an initializer runs, started in fork generation gen
 *              (gen is a multiple of 4, advanced in every fork child)
 *   2          done
 *
 *   caller   load-acquire; 2 -> return (the fast path: a load, a bit test).
 *            0, or gen'|1 from another fork generation (its runner was left
 *            behind by fork and does not exist in this process) -> CAS to
 *            gen|1 and become the runner.
 *            gen|1 of this generation -> futex_wait(word, gen|1), re-check.
 *   runner   init returns -> store-release 2, futex_wake(all).
 *            init is cancelled or longjmp'd out of -> the cleanup handler,
 *            registered with libc's _pthread_cleanup_push (run by both the
 *            cancellation unwinder and longjmp), stores 0 and wakes all; one
 *            woken caller wins the CAS and runs init again.
 */
#include "config.h"
#include "objects.h"
#include <limits.h>
#include "futex.h"
#include "host.h"
#include "self.h"
#include "tsan.h"

#define ONCE_INPROGRESS 1
#define ONCE_DONE 2


static void once_abandoned(void *arg)
{
	volatile int *w = arg;

	a_store_release(w, 0);
	fthr_futex_wake(w, INT_MAX, false);
}

/* announce: tell ThreadSanitizer that init's writes happen before every
 * return (lib/tsan.h). Only the entry points do: TSan's own thread start
 * calls pthread_setspecific, which arms the thread's exit with an internal
 * once, before TSan knows the thread. */
static FTHR_NOINLINE int once_slow(volatile int *w, void (*init)(void), bool announce)
{
	struct _pthread_cleanup_buffer buf;

	(void)announce;
	for (;;) {
		int v = a_load_acquire(w);
		int mine = a_load_relaxed(&fthr_fork_gen) | ONCE_INPROGRESS;

		if (v == ONCE_DONE)
			return 0;
		if (v == mine) {
			fthr_futex_wait(w, v, false, CLOCK_MONOTONIC, NULL);
			continue;
		}
		if (a_cas_acq_rel(w, &v, mine))
			break;
	}
	_pthread_cleanup_push(&buf, once_abandoned, (void *)w);
	init();
	_pthread_cleanup_pop(&buf, 0);
	if (announce)
		TSAN_RELEASE(w);
	a_store_release(w, ONCE_DONE);
	fthr_futex_wake(w, INT_MAX, false);
	return 0;
}

static inline int once_run(pthread_once_t *once, void (*init)(void), bool announce)
{
	if (likely(a_load_acquire(once) & ONCE_DONE)) { /* only 'done' has it */
		if (announce)
			TSAN_ACQUIRE(once);
		return 0;
	}
	once_slow(once, init, announce);
	if (announce)
		TSAN_ACQUIRE(once);
	return 0;
}

/* fthr's own onces */
FTHR_HIDDEN int fthr_once(pthread_once_t *once, void (*init)(void))
{
	return once_run(once, init, false);
}

/* pthread_once, call_once */
FTHR_HIDDEN int fthr_once_entry(pthread_once_t *once, void (*init)(void))
{
	return once_run(once, init, true);
}

FTHR_EXPORT(pthread_once, fthr_once_entry);
FTHR_EXPORT(__pthread_once, fthr_once_entry);
