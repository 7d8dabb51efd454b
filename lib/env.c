/* lib/env.c: fthr's environment variables (env.h): secure-execution mode,
 * the reading of /proc/self/environ, and the one parser of every value.
 *
 * Read once per process (diag_state.c: the first watched call or
 * diag_start.c's constructor), possibly from another library's
 * constructor before the sanitizer runtimes are set up: raw system calls
 * for the file, static and stack memory, no libc string function.
 */
#include "config.h"
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include "diag.h"
#include "env.h"

FTHR_NO_SANITIZE static long sys_open_ro(const char *path)
{
	return arch_syscall6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
}

FTHR_NO_SANITIZE static long sys_read(long fd, void *buf, unsigned long n)
{
	return arch_syscall6(SYS_read, fd, (long)buf, (long)n, 0, 0, 0);
}

FTHR_NO_SANITIZE static void sys_close(long fd)
{
	arch_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
}

/* AT_SECURE from the auxiliary vector the kernel gave the process, as the
 * dynamic linker keeps it (no system call; getauxval is not intercepted by
 * the sanitizers, and reads no state a constructor order could leave
 * unset). */
FTHR_NO_SANITIZE bool fthr_env_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

FTHR_NO_SANITIZE static bool starts(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

FTHR_NO_SANITIZE static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* A decimal number of 1 to 7 digits, from 1 to max; -1 for anything
 * else (empty, a sign, spaces, other bytes, 0, more than max). */
FTHR_NO_SANITIZE static long parse_count(const char *s, long max)
{
	long v = 0;
	int i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i == 7)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 0 && v <= max ? v : -1;
}

FTHR_NO_SANITIZE void fthr_env_defaults(struct fthr_env *env)
{
	/* (field by field: a zeroing loop may become a call to memset) */
	env->modes = 0;
	env->profile_top = FTHR_ENV_TOP_DEFAULT;
	env->profile_sigusr2 = false;
	env->path_rejected = false;
	env->profile_path[0] = '\0';
	env->secure = false;
#define DEFAULT_(name, def, lo, hi) env->wait.name = def;
	FTHR_WAIT_KNOBS(DEFAULT_)
#undef DEFAULT_
}

/* FTHR_PROFILE: "" or "0" off; "1" standard error; else a file name, kept
 * only whole. */
FTHR_NO_SANITIZE static void profile_value(struct fthr_env *env, const char *v, bool whole)
{
	int i;

	env->profile_path[0] = '\0';
	env->path_rejected = false;
	if (whole && (!*v || streq(v, "0"))) {
		env->modes &= ~FTHR_DIAG_PROFILE;
		return;
	}
	env->modes |= FTHR_DIAG_PROFILE;
	if (whole && streq(v, "1"))
		return;
	for (i = 0; whole && v[i] && i < FTHR_ENV_PATH_MAX; i++)
		env->profile_path[i] = v[i];
	if (!whole || v[i]) {
		env->profile_path[0] = '\0';
		env->path_rejected = true;
	} else {
		env->profile_path[i] = '\0';
	}
}

/* One "name=N" of FTHR_WAIT, the name spanning [p, eq): set it in t if
 * the name is a knob's and N (1 to 7 digits) lies in its range. */
FTHR_NO_SANITIZE static bool wait_knob(struct fthr_wait_tune *t, const char *p,
				       const char *eq, long n)
{
#define KNOB_(name, def, lo, hi)                                               \
	if (eq - p == (long)sizeof(#name) - 1 && starts(p, #name)) {           \
		if (n < lo || n > hi)                                          \
			return false;                                          \
		t->name = (int)n;                                              \
		return true;                                                   \
	}
	FTHR_WAIT_KNOBS(KNOB_)
#undef KNOB_
	return false;
}

/* FTHR_WAIT: "name=N[,name=N]..." (man/fthr.7), at most FTHR_ENV_WAIT_MAX
 * bytes, into t (which holds the defaults); "" is the defaults. false for
 * anything else, and for a set whose ordered pairs are not (wait_tune.h). */
FTHR_NO_SANITIZE static bool wait_parse(struct fthr_wait_tune *t, const char *v, bool whole)
{
	const char *p = v, *eq;
	long n;
	int i;

	for (i = 0; whole && v[i]; i++)
		if (i == FTHR_ENV_WAIT_MAX)
			return false;
	if (!whole)
		return false;
	while (*p) {
		for (eq = p; *eq && *eq != '=' && *eq != ','; eq++)
			;
		if (*eq != '=')
			return false;
		for (n = 0, i = 0; eq[1 + i] >= '0' && eq[1 + i] <= '9'; i++) {
			if (i == 7)
				return false;
			n = n * 10 + (eq[1 + i] - '0');
		}
		if (i == 0 || !wait_knob(t, p, eq, n))
			return false;
		p = eq + 1 + i;
		if (*p == ',') {
			if (!*++p)
				return false; /* a trailing comma */
		} else if (*p) {
			return false;
		}
	}
	return fthr_wait_tune_ok(t);
}

/* A value wait_parse refuses leaves every knob at its default. */
FTHR_NO_SANITIZE static void wait_value(struct fthr_env *env, const char *v, bool whole)
{
	struct fthr_env t;

	fthr_env_defaults(&t);
	if (!wait_parse(&t.wait, v, whole))
		fthr_env_defaults(&t);
#define COPY_(name, def, lo, hi) env->wait.name = t.wait.name;
	FTHR_WAIT_KNOBS(COPY_)
#undef COPY_
}

FTHR_NO_SANITIZE void fthr_env_entry(struct fthr_env *env, const char *e, bool whole)
{
	const char *v;
	long n;

	if (!starts(e, "FTHR_"))
		return;
	if (starts(e, "FTHR_PROFILE=")) {
		profile_value(env, e + 13, whole);
	} else if (starts(e, "FTHR_PROFILE_TOP=")) {
		n = whole ? parse_count(e + 17, FTHR_ENV_TOP_MAX) : -1;
		env->profile_top = n > 0 ? (int)n : FTHR_ENV_TOP_DEFAULT;
	} else if (starts(e, "FTHR_PROFILE_SIGUSR2=")) {
		env->profile_sigusr2 = whole && streq(e + 21, "1");
	} else if (starts(e, "FTHR_WAIT=")) {
		wait_value(env, e + 10, whole);
	} else if (starts(e, "FTHR_CHECK=")) {
		v = e + 11;
		env->modes &= ~(FTHR_DIAG_CHECK | FTHR_DIAG_ABORT);
		if (whole && streq(v, "abort"))
			env->modes |= FTHR_DIAG_CHECK | FTHR_DIAG_ABORT;
		else if (whole && streq(v, "1"))
			env->modes |= FTHR_DIAG_CHECK;
	}
}

/* The entries are streamed through a buffer: an entry is kept up to
 * sizeof(cur) - 1 bytes (more than any valid "NAME=VALUE" of fthr's), and
 * one longer than that is passed on marked cut. Entries that do not start
 * with FTHR_ are skipped unread. */
FTHR_NO_SANITIZE void fthr_env_scan(struct fthr_env *env, int fd)
{
	char buf[1024], cur[FTHR_ENV_PATH_MAX + 64];
	size_t len = 0;
	bool keep = true, whole = true;
	long n;

	while ((n = sys_read(fd, buf, sizeof(buf))) > 0)
		for (long i = 0; i < n; i++) {
			if (buf[i] == '\0') {
				if (keep && len >= 5) {
					cur[len] = '\0';
					fthr_env_entry(env, cur, whole);
				}
				len = 0;
				keep = whole = true;
				continue;
			}
			if (!keep)
				continue;
			if (len < sizeof(cur) - 1)
				cur[len++] = buf[i];
			else
				whole = false;
			if (len == 5 && !starts(cur, "FTHR_"))
				keep = false;
		}
}

FTHR_NO_SANITIZE void fthr_env_read(struct fthr_env *env)
{
	long fd;

	fthr_env_defaults(env);
	env->secure = fthr_env_secure();
	if (env->secure)
		return;
	fd = sys_open_ro("/proc/self/environ");
	if (fd < 0)
		return;
	fthr_env_scan(env, (int)fd);
	sys_close(fd);
}
