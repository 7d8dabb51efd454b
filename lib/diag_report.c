/* lib/diag_report.c: writing the reports of the profiler and the checker.
 * Integers only (no floating point anywhere in the library), formatted into
 * a buffer on the stack and written with write(2), to stderr or to the
 * profile's file; a call site as symbol+offset (file) where dladdr knows
 * it; and the first line of a checker report: one report at a time, the
 * thread (diag_check.c writes the rest).
 */
#include "config.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "diag_impl.h"
#include "lll.h"

FTHR_HIDDEN int fthr_diag_report_fd = 2;
FTHR_HIDDEN volatile int fthr_diag_report_lock;
FTHR_HIDDEN const char *const fthr_diag_kind_name[] = { "mutex", "rwlock", "cond", "sem" };

FTHR_HIDDEN void fthr_diag_out(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	for (int off = 0; n > 0;) {
		ssize_t w = write(fthr_diag_report_fd, buf + off, (size_t)n);

		if (w <= 0)
			break;
		off += (int)w;
		n -= (int)w;
	}
}

FTHR_HIDDEN void fthr_diag_out_pc(const char *indent, int i, void *pc)
{
	Dl_info di;

	if (dladdr(pc, &di) && di.dli_fname) {
		if (di.dli_sname)
			fthr_diag_out("%s#%d %s+0x%lx (%s)\n", indent, i, di.dli_sname,
				      (unsigned long)pc - (unsigned long)di.dli_saddr,
				      di.dli_fname);
		else
			fthr_diag_out("%s#%d %s+0x%lx\n", indent, i, di.dli_fname,
				      (unsigned long)pc - (unsigned long)di.dli_fbase);
	} else {
		fthr_diag_out("%s#%d %p\n", indent, i, pc);
	}
}

FTHR_HIDDEN void fthr_diag_out_site(const struct dsite *s)
{
	for (int i = 0; i < s->n; i++)
		fthr_diag_out_pc("    ", i, s->pc[i]);
	if (s->n == 0)
		fthr_diag_out("    (no stack)\n");
}

FTHR_HIDDEN void fthr_diag_out_obj(const struct dobj *o)
{
	fthr_diag_out("%s %p", fthr_diag_kind_name[o->kind], (void *)o->key);
}

FTHR_HIDDEN void fthr_diag_check_begin(const char *what)
{
	fthr_lll_lock(&fthr_diag_report_lock, false);
	fthr_diag_out("fthr-check: %s (thread %d)\n", what, fthr_tid());
}
