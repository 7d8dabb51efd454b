/* lib/diag_state.c: the state the profiler (FTHR_PROFILE) and the checker
 * (FTHR_CHECK) share (declared in diag_impl.h).
 *
 * The modes, read once from the environment the process started with (the
 * first watched call or diag_start.c's constructor). The table of objects
 * (diag_start.c maps it and finds the records). Call stacks, this
 * library's own innermost frames left out. And each thread's locks
 * (object, mode, call site), a small array hung off its TLS record, freed
 * when the thread exits, with a report if it still holds some.
 */
#include "config.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "diag_impl.h"
#include "lll.h"
#include "wait.h"

/* ---- the environment, read once by the first watched call ---- */

FTHR_HIDDEN int fthr_diag_modes = -1;
FTHR_HIDDEN signed char fthr_diag_on = -1;
FTHR_HIDDEN struct fthr_env fthr_diag_env;

/* The first call reads the environment into fthr_diag_env and publishes
 * the modes; fthr_diag_on follows, so that from then on the watched entry
 * points call diag_* only while a mode is on. A call that races it waits
 * for the modes; one that cannot see them published after a while (a
 * signal handler that interrupted the first call on its own thread) runs
 * unwatched. */
FTHR_NO_SANITIZE int fthr_diag_mode(void)
{
	static int claimed;
	int mode = __atomic_load_n(&fthr_diag_modes, __ATOMIC_ACQUIRE);

	if (mode >= 0)
		return mode;
	if (!__atomic_exchange_n(&claimed, 1, __ATOMIC_ACQUIRE)) {
		fthr_env_read(&fthr_diag_env);
		fthr_wait_configure(&fthr_diag_env.wait);
		mode = fthr_diag_env.modes;
		__atomic_store_n(&fthr_diag_modes, mode, __ATOMIC_RELEASE);
		__atomic_store_n(&fthr_diag_on, (signed char)mode, __ATOMIC_RELAXED);
		return mode;
	}
	for (int i = 0; i < 10000; i++) {
		mode = __atomic_load_n(&fthr_diag_modes, __ATOMIC_ACQUIRE);
		if (mode >= 0)
			return mode;
		sched_yield();
	}
	return 0;
}

/* ---- objects (diag_start.c maps the table and finds the records) ---- */

FTHR_HIDDEN struct dobj *fthr_diag_objs;
FTHR_HIDDEN volatile int fthr_diag_objs_lost;

/* ---- call stacks ---- */

static unsigned long lib_lo, lib_hi; /* our own text, skipped in stacks */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long base = (unsigned long)arg;

	(void)size;
	if (info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			lib_lo = base + p->p_vaddr;
			lib_hi = lib_lo + p->p_memsz;
		}
	}
	return 1;
}

FTHR_HIDDEN void fthr_diag_stacks_init(void)
{
	Dl_info di;
	void *pc[2];

	if (dladdr((void *)fthr_diag_mode, &di) && di.dli_fbase)
		dl_iterate_phdr(find_self, di.dli_fbase);
	backtrace(pc, 2); /* loads the unwinder now, not inside a lock */
}

FTHR_HIDDEN FTHR_NOINLINE void fthr_diag_capture(struct dsite *s)
{
	void *pc[DEPTH + 8];
	int n = backtrace(pc, DEPTH + 8), k = 0;

	for (int i = 0; i < n && k < DEPTH; i++) {
		unsigned long a = (unsigned long)pc[i];

		if (k == 0 && a >= lib_lo && a < lib_hi)
			continue; /* our own frames */
		s->pc[k++] = pc[i];
	}
	s->n = k;
}

/* ---- per thread ---- */

/* The thread exits (step FTHR_EXIT_DIAG, self.h): locks it still holds
 * are reported, its record freed. */
FTHR_NO_SANITIZE static void diag_thread_exit(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t)
		return;
	if (checking() && t->n > 0) {
		fthr_diag_check_begin("thread exits holding locks");
		for (int i = 0; i < t->n; i++) {
			fthr_diag_out("  ");
			fthr_diag_out_obj(t->h[i].o);
			fthr_diag_out(" (%s), taken at:\n", t->h[i].how == H_READ ? "read" : "held");
			fthr_diag_out_pc("    ", 0, t->h[i].pc);
		}
		fthr_lll_unlock(&fthr_diag_report_lock, false);
		if (fthr_diag_modes & FTHR_DIAG_ABORT)
			abort();
	}
	fthr_self_rec.diag = NULL;
	free(t);
}

FTHR_HIDDEN struct dthread *fthr_diag_me(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t) {
		t = calloc(1, sizeof(*t));
		fthr_self_rec.diag = t;
		fthr_exit_arm(FTHR_EXIT_DIAG, diag_thread_exit); /* frees it */
	}
	return t;
}

FTHR_HIDDEN struct dheld *fthr_diag_held_entry(struct dthread *t, struct dobj *o)
{
	for (int i = t->n - 1; i >= 0; i--)
		if (t->h[i].o == o)
			return &t->h[i];
	return NULL;
}
