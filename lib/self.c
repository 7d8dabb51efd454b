/* lib/self.c: the per-thread record (see self.h) and fork bookkeeping. */
#include "config.h"
#include <unistd.h>
#include <sys/syscall.h>
#include "futex.h"
#include "host.h"
#include "objects.h"
#include "self.h"

__thread struct fthr_self fthr_self_rec __attribute__((tls_model("initial-exec")));
int fthr_fork_gen;

/* ---- thread exit (self.h): one key of the host's, its destructor runs
 * the steps ---- */
static void (*exit_fn[FTHR_EXIT_STEPS])(void);
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static bool exit_ok;

/* The host calls this once at thread exit (the key's destructor; again in
 * a later round if a step was armed meanwhile). Not instrumented by
 * sanitizers: a sanitizer runtime's own key destructor (they create keys
 * with pthread_key_create, which is ours) tears the thread's sanitizer
 * state down in the last round, and this frame runs on. */
FTHR_NO_SANITIZE static void thread_exit(void *unused)
{
	struct fthr_self *self = &fthr_self_rec;

	(void)unused;
	for (int i = 0; i < FTHR_EXIT_STEPS; i++)
		if (self->exit_steps & FTHR_EXIT_BIT(i))
			__atomic_load_n(&exit_fn[i], __ATOMIC_RELAXED)();
	self->exit_steps = 0;
}

static void exit_init(void)
{
	exit_ok = fthr_host_resolve() && fthr_host.key_create(&exit_key, thread_exit) == 0;
}

bool fthr_exit_arm(enum fthr_exit_step step, void (*fn)(void))
{
	struct fthr_self *self = &fthr_self_rec;

	if (self->exit_steps & FTHR_EXIT_BIT(step))
		return true;
	if (!self->exit_steps) {
		fthr_once(&exit_once, exit_init);
		if (!exit_ok || fthr_host.setspecific(exit_key, self) != 0)
			return false;
	}
	/* (the thread that runs a step is one that stored its fn) */
	__atomic_store_n(&exit_fn[step], fn, __ATOMIC_RELAXED);
	self->exit_steps |= FTHR_EXIT_BIT(step);
	return true;
}

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
