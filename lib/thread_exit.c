/* lib/thread_exit.c: the thread-exit steps (self.h): one key of the
 * host's, its destructor runs the steps the thread armed. */
#include "config.h"
#include "host.h"
#include "objects.h"
#include "self.h"

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
