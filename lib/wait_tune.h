/* lib/wait_tune.h: the wait policy's constants (lib/wait.h), one table.
 *
 * Each row: name, default, least, greatest. The table makes the tuning
 * structure (wait.h), its defaults, and the names FTHR_WAIT accepts
 * (env.c, man/fthr.7 ENVIRONMENT); what each constant does is said where
 * the policy uses it (wait.h, wait.c). Counts of relax hints are cpu
 * pause instructions, times are microseconds, other counts are waits.
 */
#ifndef FTHR_WAIT_TUNE_H
#define FTHR_WAIT_TUNE_H

#define FTHR_WAIT_KNOBS(X)                                                     \
	/* a thread's spin budget, relax hints: least, greatest, first */      \
	X(spin_min, 8, 1, 1000000)                                             \
	X(spin_max, 1024, 1, 1000000)                                          \
	X(spin_start, 64, 1, 1000000)                                          \
	/* relax hints before the first look at a lock found taken */          \
	X(patience, 64, 0, 1000000)                                            \
	/* a yield that kept the thread off its cpu this long: crowded */      \
	X(yield_long_us, 100, 1, 999999)                                       \
	/* busy waits a crowded thread then makes without spinning */          \
	X(crowd_waits, 256, 0, 1000000)                                        \
	/* the machine's runnable count: a look at most this often, */         \
	X(crowd_period_us, 1000, 1, 999999)                                    \
	/* tried by a thread at every this-many-th busy wait */                \
	X(crowd_tick, 16, 1, 1000000)                                          \
	/* a mutex sleeper that waited this long is handed the lock (lll.h), */\
	/* and a lock is handed off at most this often; 0: never */            \
	X(fair_us, 1000, 0, 999999)                                            \
	/* an adaptive mutex's spin bound, relax hints (glibc's default) */    \
	X(adaptive_spins, 100, 0, 1000000)                                     \
	/* a condition waiter's batching: the probe's relax hints, */          \
	X(probe, 64, 0, 1000000)                                               \
	/* the successful spins between probes, least and greatest, */         \
	X(probe_gap_min, 16, 1, 1000000)                                       \
	X(probe_gap_max, 1024, 1, 1000000)                                     \
	/* the waits that then sleep at once, */                               \
	X(batch_waits, 64, 0, 1000000)                                         \
	/* the nap, and the chances to nap skipped after one stalled */        \
	X(nap_us, 20, 1, 999999)                                               \
	X(nap_gap_min, 16, 1, 1000000)                                         \
	X(nap_gap_max, 4096, 1, 1000000)                                       \
	/* a broadcast's herd: more sleepers than this many per cpu */         \
	X(herd, 2, 0, 1000000)                                                 \
	/* a condition woken fewer times than this is young */                 \
	X(young, 3, 0, 1000000)

struct fthr_wait_tune {
#define FTHR_WAIT_FIELD_(name, def, lo, hi) int name;
	FTHR_WAIT_KNOBS(FTHR_WAIT_FIELD_)
#undef FTHR_WAIT_FIELD_
};

/* The defaults, as an initializer. */
#define FTHR_WAIT_DEFAULT_(name, def, lo, hi) .name = def,
#define FTHR_WAIT_TUNE_DEFAULTS { FTHR_WAIT_KNOBS(FTHR_WAIT_DEFAULT_) }

/* The pairs that must be ordered: a set that breaks one is refused whole. */
static inline int fthr_wait_tune_ok(const struct fthr_wait_tune *t)
{
	return t->spin_min <= t->spin_start && t->spin_start <= t->spin_max &&
	       t->probe_gap_min <= t->probe_gap_max && t->nap_gap_min <= t->nap_gap_max;
}

#endif
