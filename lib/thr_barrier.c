/* lib/thr_barrier.c: barriers on one 64-bit word: a round number and the
 * arrivals, so that one atomic add tells a thread both.
 *
 * Words (overlaid on the 32-byte, 8-aligned pthread_barrier_t):
 *   state     round << 32 | arrived; its round half is the futex word
 *   count     threads per round (from init)
 *   host      0 (glibc's word of the process-shared mark, below)
 *   inside    a drain count (drain.h): threads between entering wait and
 *             leaving the object's memory; destroy waits them out
 *   shared    process-shared
 *
 *   wait     v = state += 1 (one atomic add): r = round, a = arrived (with
 *            this thread). Its round is mine = r + (a - 1) / count: a
 *            thread that arrives while a full round has not left yet (more
 *            threads use the barrier than its count, as glibc allows)
 *            belongs to a later round. Its place is (a - 1) % count + 1.
 *            place == count: the serial thread. Wait until round == mine
 *            (only a later round's last has to), then state += (1 << 32) -
 *            count (release: round + 1, the round's arrivals gone, later
 *            ones kept), futex_wake(round, all); PTHREAD_BARRIER_SERIAL_THREAD.
 *            else: spin a while (self.h), then futex_wait(round, seen)
 *            while round has not passed mine; return 0.
 * Every sleeper sleeps only while round is its own or earlier, and each
 * round's last moves round before it wakes all: no wake-up is lost. The old
 * protocol read round and added to arrived apart; verify/barrier.pml showed
 * a thread leaving a round alone and a lost arrival when more threads than
 * count used it.
 * destroy: EBUSY while some thread is waiting in an unfinished round;
 * otherwise it waits for released threads to leave, then returns 0.
 * Process-shared barriers are the host library's (host.h): init with the
 * attribute calls the host's, whose 'shared' word at offset 12 (fthr's
 * host, 0 in fthr's own barriers) then holds its shared-futex flag, and
 * wait and destroy on such a barrier go to the host's functions; members
 * may be split between fthr and plain-glibc processes. The shared flag
 * above serves only on a host without them.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include "drain.h"
#include "host.h"
#include "self.h"

struct barrier {
	union {
		volatile uint64_t state;
		volatile int half[2];
	};
	unsigned count;
	int host;	/* offset 12, glibc's 'shared': 0 in fthr's barriers */
	volatile int inside;
	int shared;
};
_Static_assert(sizeof(struct barrier) <= sizeof(pthread_barrier_t), "barrier fits");
_Static_assert(__builtin_offsetof(struct barrier, host) == 12, "glibc's shared word");
_Static_assert(_Alignof(pthread_barrier_t) >= 8, "state is 8-aligned");

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROUND_HALF 1
#else
#define ROUND_HALF 0
#endif
#define ROUND_ONE (UINT64_C(1) << 32)

static inline struct barrier *B(pthread_barrier_t *b)
{
	return (struct barrier *)b;
}

/* ---- process-shared: the host's barrier (host.h) ---- */

/* Made by the host's init with the process-shared attribute: glibc's
 * 'shared' word holds its futex flag for shared futexes (128, FUTEX_PRIVATE_FLAG's
 * value), never 0; fthr's own barriers keep 0 there. */
static inline bool host_barrier(const struct barrier *b)
{
	return unlikely(a_load_relaxed(&b->host) != 0);
}

enum host_barrier_op { HB_WAIT, HB_DESTROY };

static FTHR_COLD int host_barrier_call(pthread_barrier_t *bar, enum host_barrier_op op)
{
	const struct fthr_host_shared *h = fthr_hs();

	if (!h->ok_barrier) /* a glibc object on a host without glibc's calls */
		return EINVAL;
	return op == HB_WAIT ? h->barrier_wait(bar) : h->barrier_destroy(bar);
}

static inline int round_of(struct barrier *b)
{
	return a_load_acquire(&b->half[ROUND_HALF]);
}

/* Has round moved past 'mine' (mod 2^32)? */
static inline bool past(int round, int mine)
{
	return (int)((unsigned)round - (unsigned)mine) > 0;
}

FTHR_HIDDEN int fthr_barrier_init(pthread_barrier_t *bar,
				  const pthread_barrierattr_t *a, unsigned count)
{
	struct barrier *b = B(bar);
	bool shared = a && a->__align == PTHREAD_PROCESS_SHARED;

	if (count == 0 || count >= INT_MAX) /* glibc's bound: UINT_MAX / 2 */
		return EINVAL;
	if (shared && fthr_hs()->ok_barrier)
		return fthr_hs()->barrier_init(bar, a, count); /* same attribute layout */
	*bar = (pthread_barrier_t){ 0 };
	*b = (struct barrier){ .count = count, .shared = shared };
	return 0;
}

FTHR_HIDDEN int fthr_barrier_wait(pthread_barrier_t *bar)
{
	struct barrier *b = B(bar);
	volatile int *rw = &b->half[ROUND_HALF];
	bool shared = b->shared;
	uint64_t v;
	unsigned a;
	int mine, r, ret = 0;

	if (host_barrier(b))
		return host_barrier_call(bar, HB_WAIT);
	fthr_drain_enter(&b->inside);
	v = __atomic_add_fetch(&b->state, 1, __ATOMIC_ACQ_REL);
	a = (unsigned)v;
	FTHR_ASSERT(a >= 1);
	mine = (int)((unsigned)(v >> 32) + (a - 1) / b->count);
	if ((a - 1) % b->count + 1 == b->count) {
		while (past(mine, r = round_of(b))) /* a later round's last */
			fthr_futex_wait(rw, r, shared, CLOCK_MONOTONIC, NULL);
		__atomic_add_fetch(&b->state, ROUND_ONE - b->count, __ATOMIC_RELEASE);
		fthr_futex_wake(rw, INT_MAX, shared);
		ret = PTHREAD_BARRIER_SERIAL_THREAD;
	} else if (!FTHR_SPIN_UNTIL(past(round_of(b), mine))) {
		while (!past(r = round_of(b), mine))
			fthr_futex_wait(rw, r, shared, CLOCK_MONOTONIC, NULL);
	}
	fthr_drain_leave(&b->inside, shared);
	return ret;
}

FTHR_HIDDEN int fthr_barrier_destroy(pthread_barrier_t *bar)
{
	struct barrier *b = B(bar);

	if (host_barrier(b))
		return host_barrier_call(bar, HB_DESTROY);
	if ((uint32_t)__atomic_load_n(&b->state, __ATOMIC_ACQUIRE) != 0)
		return EBUSY;
	fthr_drain_wait(&b->inside, b->shared);
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_init(pthread_barrierattr_t *a)
{
	a->__align = PTHREAD_PROCESS_PRIVATE;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_destroy(pthread_barrierattr_t *a)
{
	(void)a;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_setpshared(pthread_barrierattr_t *a, int pshared)
{
	if (pshared != PTHREAD_PROCESS_PRIVATE && pshared != PTHREAD_PROCESS_SHARED)
		return EINVAL;
	a->__align = pshared;
	return 0;
}

FTHR_HIDDEN int fthr_barrierattr_getpshared(const pthread_barrierattr_t *a,
					    int *pshared)
{
	*pshared = a->__align;
	return 0;
}

FTHR_EXPORT(pthread_barrier_init, fthr_barrier_init);
FTHR_EXPORT(pthread_barrier_destroy, fthr_barrier_destroy);
FTHR_EXPORT(pthread_barrier_wait, fthr_barrier_wait);
FTHR_EXPORT(pthread_barrierattr_init, fthr_barrierattr_init);
FTHR_EXPORT(pthread_barrierattr_destroy, fthr_barrierattr_destroy);
FTHR_EXPORT(pthread_barrierattr_setpshared, fthr_barrierattr_setpshared);
FTHR_EXPORT(pthread_barrierattr_getpshared, fthr_barrierattr_getpshared);
