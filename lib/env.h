/* lib/env.h: fthr's environment variables (FTHR_*), read once per
 * process from the environment it was started with (lib/env.c).
 *
 * Secure-execution mode: when the kernel marks the process AT_SECURE
 * (setuid/setgid, file capabilities, an LSM's transition), no variable is
 * read at all and every setting keeps its default, as glibc does with its
 * own tunables. A user who can run a privileged program must not be able
 * to steer its files or its output.
 *
 * Every value is checked in full: a value that is not one of a variable's
 * documented forms leaves that variable at its default (man/fthr.7,
 * ENVIRONMENT), whatever its length or bytes.
 */
#ifndef FTHR_ENV_H
#define FTHR_ENV_H

#include "fthr_impl.h"
#include "wait_tune.h"

/* FTHR_PROFILE_TOP's bounds (a number of 1 to 7 digits): more rows than
 * the profiler's table holds objects prints them all. */
#define FTHR_ENV_TOP_DEFAULT 10
#define FTHR_ENV_TOP_MAX 1000000
/* The longest FTHR_PROFILE file name kept (bytes, without the NUL); a
 * longer one is never cut down to a name the user did not give. */
#define FTHR_ENV_PATH_MAX 255
/* The longest FTHR_WAIT value taken (bytes): room for every name once. */
#define FTHR_ENV_WAIT_MAX 255

struct fthr_env {
	int modes;		/* FTHR_DIAG_* (diag.h) */
	int profile_top;	/* FTHR_PROFILE_TOP */
	bool profile_sigusr2;	/* FTHR_PROFILE_SIGUSR2=1 */
	/* FTHR_PROFILE's file, "" for standard error; path_rejected: the
	 * value named a file too long to keep (the profile goes to standard
	 * error, saying so) */
	bool path_rejected;
	char profile_path[FTHR_ENV_PATH_MAX + 1];
	bool secure;		/* secure-execution mode: nothing was read */
	struct fthr_wait_tune wait; /* FTHR_WAIT (wait_tune.h) */
};

/* The settings of this process: defaults, then (outside secure-execution
 * mode) every FTHR_* entry of /proc/self/environ. Raw system calls for the
 * file, no libc string function: it may run from another library's
 * constructor, before the sanitizer runtimes are set up. */
FTHR_HIDDEN void fthr_env_read(struct fthr_env *env);

/* Apply every FTHR_* entry of an environment block read from fd to
 * env: NUL-terminated "NAME=VALUE" entries, as /proc/PID/environ holds
 * them, of any length. */
FTHR_HIDDEN void fthr_env_scan(struct fthr_env *env, int fd);

/* The defaults. */
FTHR_HIDDEN void fthr_env_defaults(struct fthr_env *env);

/* Secure-execution mode: the process's AT_SECURE (getauxval(3)). */
FTHR_HIDDEN bool fthr_env_secure(void);

/* Apply one environment entry ("NAME=VALUE", NUL-terminated) to env.
 * whole is false when the reader had to cut the entry short (it was
 * longer than any value of fthr's variables can be): the variable it
 * names then keeps its default (FTHR_PROFILE: path_rejected). Entries of
 * other names, and names without '=', are ignored. */
FTHR_HIDDEN void fthr_env_entry(struct fthr_env *env, const char *entry, bool whole);

#endif
