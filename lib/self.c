/* lib/self.c: the per-thread record (see self.h) and fork bookkeeping. */
#include "config.h"
#include <unistd.h>
#include <sys/syscall.h>
#include "self.h"

__thread struct fthr_self fthr_self_rec __attribute__((tls_model("initial-exec")));
int fthr_fork_gen;

FTHR_COLD int fthr_self_fill(void)
{
	int tid = (int)arch_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);

	fthr_self_rec.tid = tid;
	return tid;
}

#ifdef FTHR_INVARIANTS
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
void fthr_invariant_failed(const char *what, const char *file, int line)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "fthr: invariant broken at %s:%d: %s\n",
			 file, line, what);

	if (write(2, buf, n > 0 && n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
		abort();
	abort();
}
#endif

/* Runs in the child of fork(), in the only thread there. */
static void fthr_atfork_child(void)
{
	fthr_self_rec.tid = 0;
	fthr_self_rec.robust = NULL; /* found (or registered) again on use */
	__atomic_store_n(&fthr_fork_gen,
			 (int)((unsigned)fthr_fork_gen + FTHR_FORK_GEN_STEP),
			 __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void fthr_self_init(void)
{
	pthread_atfork(NULL, NULL, fthr_atfork_child);
}
