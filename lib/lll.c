/* lib/lll.c: the sleeping half of the low-level lock and its hand-off
 * (protocol in lll.h). */
#include "config.h"
#include "lll.h"

/* The fair word's fields (lll.h); its count's mask, FTHR_FAIR_COUNT, is
 * layout.h's, where the tests read it. */
#define FAIR_GEN_SHIFT 8
#define FAIR_TICK_SHIFT 16

/* The process's fork generation (self.h), modulo 256. */
static inline unsigned fair_gen(void)
{
	return ((unsigned)a_load_relaxed(&fthr_fork_gen) / FTHR_FORK_GEN_STEP) & 0xffu;
}

/* The starving sleepers fair word f counts: 0 if another generation
 * counted them. */
static inline unsigned fair_count(unsigned f)
{
	return ((f >> FAIR_GEN_SHIFT) & 0xffu) == fair_gen() ? f & FTHR_FAIR_COUNT : 0;
}

/* Count the caller in; false if the count is full. */
static bool fair_mark(volatile int *fair)
{
	int f = a_load_relaxed(fair);
	unsigned n, g = fair_gen();

	do {
		if ((n = fair_count((unsigned)f)) == FTHR_FAIR_COUNT)
			return false;
	} while (!a_cas_relaxed(fair, &f,
				(int)(((unsigned)f & ~0xffffu) | g << FAIR_GEN_SHIFT | (n + 1))));
	return true;
}

int fthr_lll_wait(volatile int *w, bool shared, clockid_t clk,
		  const struct timespec *abstime, volatile int *fair)
{
	unsigned bits = fair ? FTHR_LLL_PLAIN : ~0u;
	bool may_starve = fair && !abstime, starving = false;
	unsigned long long since = may_starve ? fthr_wait_now_us() : 0;
	int v = a_load_relaxed(w);

	for (;;) {
		/* 2: marked already, sleep before writing the contended line
		 * again; 3: handed to a starving sleeper */
		if (v != 2 && (v != 3 || starving)) {
			v = a_swap_acquire(w, 2);
			if (v == 0 || v == 3)
				break;
			v = 2;
		}
		if (fthr_futex_wait_bits(w, v, shared, clk, abstime, bits) == ETIMEDOUT)
			return ETIMEDOUT;
		if (may_starve && !starving && fthr_wait_fair_due(since) && fair_mark(fair)) {
			starving = true;
			bits = FTHR_LLL_STARVING;
		}
		v = a_load_relaxed(w);
	}
	if (starving)
		__atomic_fetch_sub(fair, 1, __ATOMIC_RELAXED);
	return 0;
}

bool fthr_lll_hand_off(volatile int *w, volatile int *fair)
{
	int f = a_load_relaxed(fair), zero = 0;
	unsigned tick;

	if (!fair_count((unsigned)f))
		return false;
	tick = fthr_wait_fair_tick() & 0xffffu;
	if ((unsigned)f >> FAIR_TICK_SHIFT == tick)
		return false;
	/* release: the critical section before it is the taker's */
	if (!a_cas_acq_rel(w, &zero, 3))
		return false;
	/* The count read above may be stale: since the SWAP(0), its sleeper
	 * may have taken the lock, counted itself out and let go (this CAS
	 * read its release). Read it again: a count now has a sleeper inside
	 * fthr_lll_wait that leaves only with the lock, which is 3. None:
	 * take the 3 back (a waiter whose SWAP(2) took it first holds the
	 * lock, and its unlock wakes the next: no wake is owed). */
	f = a_load_relaxed(fair);
	if (!fair_count((unsigned)f))
		return !a_cas_release(w, 3, 0);
	while (!a_cas_relaxed(fair, &f, (int)(((unsigned)f & 0xffffu) | tick << FAIR_TICK_SHIFT)))
		;
	FTHR_COUNT(handoffs, 1);
	fthr_futex_wake_bits(w, 1, false, FTHR_LLL_STARVING);
	return true;
}
