/* lib/lll.c: the sleeping half of the low-level lock (protocol in lll.h). */
#include "config.h"
#include "lll.h"
#include "self.h"

bool fthr_lll_spin(volatile int *w, int patience)
{
	int budget = fthr_spin_budget(), spent, v = 1;

	/* Held, nobody asleep: the holder is likely running and about to let
	 * go; watch the word (reads only) a while, the first read after
	 * 'patience' relax hints (self.h). A 2 means others sleep already:
	 * stop, queue behind them. The patience is not taken from the
	 * budget: a thread whose spins failed (budget down to FTHR_SPIN_MIN)
	 * must still look a few times, or it would sleep at nearly every
	 * contended lock while threads with large budgets take the lock
	 * (measured: one thread in 64 got 1/1000 of a fair share). But a
	 * word that reads 2 before the patience has sleepers queued already:
	 * the holder is often off its cpu (sysbench "threads": it yields
	 * holding the lock), and the patience alone, 64 relax hints, cost
	 * more than the look it waits for can win; queue at once (and leave
	 * the budget alone: no spin was tried). */
	if (fthr_crowded()) { /* one look, no spin (self.h) */
		if (a_load_relaxed(w) == 0 && fthr_lll_trylock(w))
			return true;
		fthr_crowd_count();
		return false;
	}
	if (a_load_relaxed(w) == 2)
		return false;
	fthr_be_patient(patience);
	for (spent = 0; spent < budget && (v = a_load_relaxed(w)) == 1; spent++)
		arch_cpu_relax();
	/* let a holder on this cpu run first, unless a third thread would
	 * take it (self.h) */
	if (v == 1 && !fthr_machine_crowded_now()) {
		fthr_spin_yield_timed();
		v = a_load_relaxed(w);
	}
	if (v == 0 && fthr_lll_trylock(w)) {
		fthr_spin_learn(budget, true);
		return true;
	}
	fthr_spin_learn(budget, false);
	return false;
}

int fthr_lll_wait(volatile int *w, bool shared, clockid_t clk,
		  const struct timespec *abstime)
{
	/* Already marked: sleep before writing the contended line again. */
	if (a_load_relaxed(w) == 2)
		goto sleep;
	while (a_swap_acquire(w, 2) != 0) {
	sleep:
		if (fthr_futex_wait(w, 2, shared, clk, abstime) == ETIMEDOUT)
			return ETIMEDOUT;
	}
	return 0;
}
