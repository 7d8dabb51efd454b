/* lib/diag_profile.c: the contention profiler (FTHR_PROFILE). The counters
 * of an object's acquisitions and waits, relaxed atomics in its record
 * (counted by diag_watch.c), and the report: at exit, and on SIGUSR2 with
 * FTHR_PROFILE_SIGUSR2=1; the top FTHR_PROFILE_TOP objects by wait time,
 * to stderr or to the file FTHR_PROFILE names.
 *
 * Profile times are CLOCK_MONOTONIC nanoseconds: wait = time blocked in a
 * lock that was not free at once; hold = first acquisition to last release
 * by the owner (mutexes, write-locked rwlocks); condvar and semaphore rows
 * count waits.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "diag_impl.h"
#include "lll.h"

/* ---- the counters ---- */

FTHR_HIDDEN void fthr_diag_add_max(long *sum, long *max, long v)
{
	__atomic_fetch_add(sum, v, __ATOMIC_RELAXED);
	a_max_relaxed(max, v);
}

/* One acquisition (or wait) that had to wait 'wait' ns. */
FTHR_HIDDEN void fthr_diag_waited(struct dobj *o, long wait)
{
	__atomic_fetch_add(&o->acq, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&o->contended, 1, __ATOMIC_RELAXED);
	fthr_diag_add_max(&o->wait_ns, &o->wait_max, wait);
	if (profiling() && o->site_kind == SITE_NONE) {
		fthr_diag_capture(&o->site);
		o->site_kind = SITE_CONTENDED;
	}
}

/* ---- the profile report ---- */

static void out_ms(long ns)
{
	fthr_diag_out(" %9ld.%03ld", ns / 1000000, (ns / 1000) % 1000);
}

static int by_wait(const void *a, const void *b)
{
	const struct dobj *x = *(struct dobj *const *)a, *y = *(struct dobj *const *)b;

	return x->wait_ns < y->wait_ns ? 1 : x->wait_ns > y->wait_ns ? -1
	       : x->acq < y->acq ? 1 : x->acq > y->acq ? -1 : 0;
}

/* The file FTHR_PROFILE names ('%p' becomes the pid), opened to be
 * written, or -1 with a line on standard error saying why the report goes
 * there instead. The rules (man/fthr.7, "Security"): a symbolic link as
 * the last component is not followed; a FIFO without a reader is not
 * waited for; a regular file is truncated and written only if it belongs
 * to the process's real user and has no other hard link, and is left as
 * it is otherwise; a terminal, FIFO or device is written as it is; a new
 * file gets mode 0644 less the umask. fstat on the open descriptor
 * decides, so nothing can swap the file between the check and the write. */
static int profile_open(void)
{
	const char *tmpl = fthr_diag_env.profile_path, *p = strstr(tmpl, "%p");
	const char *why = "the name is longer than 255 bytes";
	char path[FTHR_ENV_PATH_MAX + 16];
	struct stat st;
	int fd = -1, e = 0;

	if (p)
		snprintf(path, sizeof(path), "%.*s%d%s", (int)(p - tmpl), tmpl, (int)getpid(), p + 2);
	else
		snprintf(path, sizeof(path), "%s", tmpl);
	if (!fthr_diag_env.path_rejected) {
		fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
			  0644);
		e = errno;
		if (fd >= 0 && fstat(fd, &st) != 0) {
			e = errno;
			close(fd);
			fd = -1;
		}
		why = fd >= 0 ? NULL : e == ELOOP ? "a symbolic link, not followed"
		      : e == ENXIO ? "a FIFO with no reader" : strerror(e);
	}
	if (fd >= 0 && S_ISREG(st.st_mode)) {
		if (st.st_uid != getuid() || st.st_nlink != 1) {
			why = "a regular file of another user, or with another hard link";
			close(fd);
			fd = -1;
		} else if (ftruncate(fd, 0) != 0) {
			why = strerror(errno);
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	fthr_diag_out("fthr-profile: not written to %s: %s; the report follows here\n",
		      fthr_diag_env.path_rejected ? "the file FTHR_PROFILE names" : path, why);
	return -1;
}

/* The wait policy's settings the run had, when FTHR_WAIT changed any
 * (wait_tune.h): a figure read from the report is one of that policy. */
static void profile_wait_settings(void)
{
	static const struct fthr_wait_tune def = FTHR_WAIT_TUNE_DEFAULTS;
	const char *sep = "fthr-profile: FTHR_WAIT=";

#define SHOW_(name, d, lo, hi)                                                 \
	if (fthr_wait_tune.name != def.name) {                                 \
		fthr_diag_out("%s%s=%d", sep, #name, fthr_wait_tune.name);     \
		sep = ",";                                                     \
	}
	FTHR_WAIT_KNOBS(SHOW_)
#undef SHOW_
	if (sep[0] == ',')
		fthr_diag_out("\n");
}

static void profile_report(void)
{
	struct dobj **v;
	int n = 0, fd = -1;
	long waits = 0, contended = 0;

	if (!fthr_diag_objs || !(v = malloc(NOBJ * sizeof(*v))))
		return;
	for (int i = 0; i < NOBJ; i++)
		if (fthr_diag_objs[i].key && fthr_diag_objs[i].acq) {
			v[n++] = &fthr_diag_objs[i];
			waits += fthr_diag_objs[i].wait_ns;
			contended += fthr_diag_objs[i].contended;
		}
	qsort(v, (size_t)n, sizeof(*v), by_wait);
	fthr_lll_lock(&fthr_diag_report_lock, false);
	if (fthr_diag_env.profile_path[0] || fthr_diag_env.path_rejected)
		fd = profile_open();
	if (fd >= 0)
		fthr_diag_report_fd = fd;
	fthr_diag_out("fthr-profile: pid %d, %d objects used, %ld contended acquisitions, "
		      "%ld.%03ld ms waited in all",
		      (int)getpid(), n, contended, waits / 1000000, (waits / 1000) % 1000);
	if (fthr_diag_objs_lost)
		fthr_diag_out(" (%d objects not tracked: table full)", fthr_diag_objs_lost);
	fthr_diag_out("\n");
	profile_wait_settings();
#ifdef FTHR_INVARIANTS
	fthr_diag_out("fthr-profile: counts: futex_waits=%ld futex_wakes=%ld woken=%ld "
		      "spins=%ld spinners_most=%ld handoffs=%ld\n",
		      fthr_counts.futex_waits, fthr_counts.futex_wakes, fthr_counts.woken,
		      fthr_counts.spins, fthr_counts.spinners_most, fthr_counts.handoffs);
#endif
	fthr_diag_out("fthr-profile: top %d by wait time (ms); cond and sem count waits\n",
		      n < fthr_diag_env.profile_top ? n : fthr_diag_env.profile_top);
	fthr_diag_out("%-6s %-18s %10s %10s %13s %13s %13s %13s  %s\n", "kind", "object",
		      "acquired", "contended", "wait total", "wait max", "hold total", "hold max",
		      "site");
	for (int i = 0; i < n && i < fthr_diag_env.profile_top; i++) {
		struct dobj *o = v[i];

		fthr_diag_out("%-6s %-18p %10ld %10ld", fthr_diag_kind_name[o->kind],
			      (void *)o->key, o->acq, o->contended);
		out_ms(o->wait_ns);
		out_ms(o->wait_max);
		out_ms(o->hold_ns);
		out_ms(o->hold_max);
		fthr_diag_out("  %s\n",
			      o->site_kind == SITE_CREATED     ? "created at:"
			      : o->site_kind == SITE_CONTENDED ? "first contended at:"
							       : "(static, never contended)");
		if (o->site_kind != SITE_NONE)
			fthr_diag_out_site(&o->site);
	}
	if (fd >= 0)
		close(fd);
	fthr_diag_report_fd = 2;
	fthr_lll_unlock(&fthr_diag_report_lock, false);
	free(v);
}

FTHR_HIDDEN void fthr_diag_report_at_exit(void)
{
	fthr_self_rec.diag_busy = true; /* the report's own calls are not watched */
	profile_report();
}

FTHR_HIDDEN void fthr_diag_report_on_signal(int sig)
{
	(void)sig;
	fthr_diag_report_at_exit();
	fthr_self_rec.diag_busy = false;
}
