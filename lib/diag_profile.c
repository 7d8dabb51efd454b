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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diag_impl.h"
#include "lll.h"

/* ---- the counters ---- */

FTHR_HIDDEN void fthr_diag_add_max(long *sum, long *max, long v)
{
	long m = __atomic_load_n(max, __ATOMIC_RELAXED);

	__atomic_fetch_add(sum, v, __ATOMIC_RELAXED);
	while (v > m && !__atomic_compare_exchange_n(max, &m, v, true, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
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
	if (fthr_diag_profile_path[0]) {
		char path[300];
		const char *p = strstr(fthr_diag_profile_path, "%p");

		if (p)
			snprintf(path, sizeof(path), "%.*s%d%s",
				 (int)(p - fthr_diag_profile_path), fthr_diag_profile_path,
				 (int)getpid(), p + 2);
		else
			snprintf(path, sizeof(path), "%s", fthr_diag_profile_path);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			fthr_diag_report_fd = fd;
	}
	fthr_diag_out("fthr-profile: pid %d, %d objects used, %ld contended acquisitions, "
		      "%ld.%03ld ms waited in all",
		      (int)getpid(), n, contended, waits / 1000000, (waits / 1000) % 1000);
	if (fthr_diag_objs_lost)
		fthr_diag_out(" (%d objects not tracked: table full)", fthr_diag_objs_lost);
	fthr_diag_out("\nfthr-profile: top %d by wait time (ms); cond and sem count waits\n",
		      n < fthr_diag_profile_top ? n : fthr_diag_profile_top);
	fthr_diag_out("%-6s %-18s %10s %10s %13s %13s %13s %13s  %s\n", "kind", "object",
		      "acquired", "contended", "wait total", "wait max", "hold total", "hold max",
		      "site");
	for (int i = 0; i < n && i < fthr_diag_profile_top; i++) {
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
