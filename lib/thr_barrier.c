/* lib/thr_barrier.c: barriers on one 64-bit word: a round number and the
 * arrivals, so that one atomic add tells a thread both.
 *
 * Words (overlaid on the 32-byte, 8-aligned pthread_barrier_t; on 32-bit
 * arches the 20-byte, 4-aligned one, where state takes whichever 8 of the
 * first 12 bytes are 8-aligned and count, with shared in its top bit, the
 * word left over):
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
#include "wait.h"

#if __SIZEOF_LONG__ == 8
/* 64-bit arches: a 32-byte, 8-aligned object. */
struct barrier {
	volatile uint64_t state;
	unsigned count;
	int host;	/* offset 12, glibc's 'shared': 0 in fthr's barriers */
	volatile int inside;
	int shared;
};
_Static_assert(_Alignof(pthread_barrier_t) >= 8, "state is 8-aligned");

static inline volatile uint64_t *state_of(struct barrier *b)
{
	return &b->state;
}

static inline unsigned count_of(const struct barrier *b)
{
	return b->count;
}

static inline bool shared_of(const struct barrier *b)
{
	return b->shared;
}

static inline void barrier_setup(struct barrier *b, unsigned count, bool shared)
{
	*b = (struct barrier){ .count = count, .shared = shared };
}

static inline uint64_t state_add(struct barrier *b, uint64_t d, int mo)
{
	return __atomic_add_fetch(&b->state, d, mo);
}
#else
/* 32-bit arches: glibc's object is 20 bytes and only 4-aligned. The state
 * takes whichever 8 bytes of the first 12 are 8-aligned (the object's
 * address decides, and objects do not move), the word left over holds the
 * count, with the process-shared mark in its top bit (count < INT_MAX). */
struct barrier {
	unsigned w[3];	/* state (8 bytes) and count | BARRIER_SHARED */
	int host;	/* offset 12, glibc's 'shared': 0 in fthr's barriers */
	volatile int inside;
};
#define BARRIER_SHARED 0x80000000u

static inline volatile uint64_t *state_of(struct barrier *b)
{
	return (volatile uint64_t *)(((uintptr_t)b->w + 7) & ~(uintptr_t)7);
}

static inline unsigned *count_word(struct barrier *b)
{
	return (uintptr_t)state_of(b) == (uintptr_t)b->w ? &b->w[2] : &b->w[0];
}

static inline unsigned count_of(const struct barrier *b)
{
	return *count_word((struct barrier *)b) & ~BARRIER_SHARED;
}

static inline bool shared_of(const struct barrier *b)
{
	return *count_word((struct barrier *)b) & BARRIER_SHARED;
}

static inline void barrier_setup(struct barrier *b, unsigned count, bool shared)
{
	*b = (struct barrier){ 0 };
	*count_word(b) = count | (shared ? BARRIER_SHARED : 0);
}

/* No 64-bit add without libatomic calls here: a compare-and-swap loop
 * (arch_cas64 where the compiler has none of its own), sequentially
 * consistent, so at least as strong as the caller's order. */
static inline uint64_t state_add(struct barrier *b, uint64_t d, int mo)
{
	volatile uint64_t *p = state_of(b);
	volatile unsigned *h = (volatile unsigned *)p;
	uint64_t v;

	(void)mo;
	/* a torn first read only fails the first exchange */
	v = (uint64_t)h[0] | (uint64_t)h[1] << 32;
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		v = (uint64_t)h[1] | (uint64_t)h[0] << 32;
#ifdef ARCH_CAS64
	while (!arch_cas64(p, &v, v + d))
		;
#else
	while (!__atomic_compare_exchange_n(p, &v, v + d, true, __ATOMIC_SEQ_CST,
					    __ATOMIC_RELAXED))
		;
#endif
	return v + d;
}
#endif
_Static_assert(sizeof(struct barrier) <= sizeof(pthread_barrier_t), "barrier fits");
_Static_assert(__builtin_offsetof(struct barrier, host) == FTHR_GLIBC_BARRIER_SHARED_AT,
	       "host is glibc's 'shared' int (glibc.h, 5)");

/* The state's halves as ints: the round (the futex word) and the arrivals. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ROUND_HALF 1
#else
#define ROUND_HALF 0
#endif
#define ROUND_ONE (UINT64_C(1) << 32)

static inline volatile int *half_of(struct barrier *b, int i)
{
	return (volatile int *)state_of(b) + i;
}

static inline struct barrier *B(pthread_barrier_t *b)
{
	return (struct barrier *)b;
}

/* ---- process-shared: the host's barrier (host.h) ---- */

/* Made by the host's init with the process-shared attribute (glibc.h, 5):
 * fthr's own barriers keep 0 in 'host', glibc's 'shared' int. */
static inline bool host_barrier(const struct barrier *b)
{
	return unlikely(fthr_glibc_barrier_shared((const pthread_barrier_t *)(const void *)b));
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
	return a_load_acquire(half_of(b, ROUND_HALF));
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
	barrier_setup(b, count, shared);
	return 0;
}

FTHR_HIDDEN int fthr_barrier_wait(pthread_barrier_t *bar)
{
	struct barrier *b = B(bar);
	volatile int *rw;
	bool shared;
	uint64_t v;
	unsigned a, count;
	int mine, r, ret = 0;

	if (host_barrier(b))
		return host_barrier_call(bar, HB_WAIT);
	rw = half_of(b, ROUND_HALF);
	shared = shared_of(b);
	count = count_of(b);
	fthr_drain_enter(&b->inside);
	v = state_add(b, 1, __ATOMIC_ACQ_REL);
	a = (unsigned)v;
	FTHR_ASSERT(a >= 1);
	mine = (int)((unsigned)(v >> 32) + (a - 1) / count);
	if ((a - 1) % count + 1 == count) {
		while (past(mine, r = round_of(b))) /* a later round's last */
			fthr_futex_wait(rw, r, shared, CLOCK_MONOTONIC, NULL);
		state_add(b, ROUND_ONE - count, __ATOMIC_RELEASE);
		fthr_futex_wake(rw, INT_MAX, shared);
		ret = PTHREAD_BARRIER_SERIAL_THREAD;
	} else if (!FTHR_WAIT_EVENT(past(round_of(b), mine))) {
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
	if (a_load_acquire(half_of(b, 1 - ROUND_HALF)) != 0) /* arrivals */
		return EBUSY;
	fthr_drain_wait(&b->inside, shared_of(b));
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
