/* lib/lll.c: the sleeping half of the low-level lock (protocol in lll.h). */
#include "config.h"
#include "lll.h"

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
