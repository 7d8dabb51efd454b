/* lib/diag_impl.h: what the files of the contention profiler (FTHR_PROFILE)
 * and the lock checker (FTHR_CHECK) share. No futex protocol of their own:
 * they watch the objects from outside, around the plain functions (diag.h,
 * the interface the objects use, says how they are switched in at almost no
 * cost when off).
 *
 *   diag_report.c   writing reports: lines, call sites, a check's first
 *                   line
 *   diag_state.c    the modes, read from the environment; the table of
 *                   objects; call stacks; each thread's record of the
 *                   locks it holds
 *   diag_check.c    the checker: the misuse checks and the lock-order graph
 *   diag_profile.c  the profiler: the counters of waits, and its report
 *   diag_start.c    the start: the table mapped, the profile's report
 *                   registered; the record of an object
 *   diag_watch.c    the watching variants diag_<impl> of the watched entry
 *                   points, and what each call records
 * each file calling only the ones above it in this list.
 */
#ifndef FTHR_DIAG_IMPL_H
#define FTHR_DIAG_IMPL_H

#include "diag.h"
#include "env.h"
#include "self.h"

/* ---- objects ---- */

enum { D_MUTEX, D_RWLOCK, D_COND, D_SEM };
enum { ST_SEEN, ST_INIT, ST_DESTROYED };
enum { SITE_NONE, SITE_CREATED, SITE_CONTENDED };
enum { H_READ = 1, H_WRITE = 2 };

#define DEPTH 8
#define NOBJ 32768
#define NHELD 32

struct dsite {
	int n;
	void *pc[DEPTH];
};

struct dobj;
struct dedge {
	struct dedge *next;
	struct dobj *to;
	unsigned gen;		/* 'to' in this life only */
	bool reported;
	struct dsite site;	/* where the edge was first taken */
};

struct dobj {
	volatile unsigned long key;
	int kind;
	volatile int state;
	unsigned gen;		/* bumped at init and destroy */
	volatile int owner;	/* tid: mutex, write-locked rwlock */
	volatile int holds;	/* holds by all threads */
	volatile int waiters;	/* threads blocked on it */
	void *volatile cond_mutex;
	unsigned visit;		/* graph search stamp */
	long acq, contended, wait_ns, wait_max, hold_ns, hold_max, t_acq;
	int site_kind;
	struct dsite site, destroy_site;
	struct dedge *out;
};

struct dheld {
	struct dobj *o;
	int how;
	void *pc;
};

struct dthread {
	int n;
	struct dheld h[NHELD];
};

/* ---- diag_state.c: the modes, the objects, stacks, the threads ---- */

/* The modes: -1 until the environment is read, then the FTHR_DIAG_* bits
 * (fthr_diag_on follows). */
FTHR_HIDDEN extern int fthr_diag_modes;
/* The settings read with the modes (env.h): FTHR_PROFILE's file ("" =
 * stderr; %p = the pid), FTHR_PROFILE_TOP, FTHR_PROFILE_SIGUSR2. */
FTHR_HIDDEN extern struct fthr_env fthr_diag_env;

/* The table of objects (NOBJ records, NULL until mapped: diag_start.c)
 * and how many objects found no record. */
FTHR_HIDDEN extern struct dobj *fthr_diag_objs;
FTHR_HIDDEN extern volatile int fthr_diag_objs_lost;

/* Find this library's own text, which stacks leave out, and load the
 * unwinder (at the start, not inside a lock). */
FTHR_HIDDEN void fthr_diag_stacks_init(void);
/* The calling stack, this library's own innermost frames left out. */
FTHR_HIDDEN void fthr_diag_capture(struct dsite *s);
/* The calling thread's held locks (allocated on first use), or NULL. */
FTHR_HIDDEN struct dthread *fthr_diag_me(void);
/* t's entry for o, the last taken, or NULL. */
FTHR_HIDDEN struct dheld *fthr_diag_held_entry(struct dthread *t, struct dobj *o);

static inline bool checking(void)
{
	return fthr_diag_modes & FTHR_DIAG_CHECK;
}

static inline bool profiling(void)
{
	return fthr_diag_modes & FTHR_DIAG_PROFILE;
}

/* Guards against re-entry: the unwinder and libc may lock mutexes while
 * diag code runs; those calls go straight to the plain functions. */
static inline bool enter(void)
{
	/* (a call made before the environment was read comes here: with both
	 * modes off it goes straight on to the plain function) */
	if (unlikely(fthr_diag_modes <= 0) && fthr_diag_mode() == 0)
		return false;
	if (fthr_self_rec.diag_busy)
		return false;
	fthr_self_rec.diag_busy = true;
	return true;
}

static inline void leave(void)
{
	fthr_self_rec.diag_busy = false;
}

/* ---- diag_check.c: the checks, before or after the plain function ---- */

/* A checker report's last lines, after fthr_diag_check_begin's first: the
 * stack of the call; then the report lock is given back (and abort with
 * FTHR_CHECK=abort). */
FTHR_HIDDEN void fthr_diag_check_end(void);
FTHR_HIDDEN void fthr_diag_check_use(struct dobj *o);
FTHR_HIDDEN void fthr_diag_check_invalid(struct dobj *o, int r);
FTHR_HIDDEN void fthr_diag_check_acquire(struct dobj *o, int how, bool recursive_ok);
FTHR_HIDDEN struct dheld *fthr_diag_check_release(struct dobj *o);
FTHR_HIDDEN void fthr_diag_check_wait(struct dobj *oc, struct dobj *om, void *m,
				      bool not_held);
FTHR_HIDDEN void fthr_diag_check_destroy(struct dobj *o, const char *what);
/* o was destroyed: its lock-order edges are forgotten. */
FTHR_HIDDEN void fthr_diag_destroyed(struct dobj *o);

/* ---- diag_profile.c: the counters, the report ---- */

/* *sum += v, and *max raised to v. */
FTHR_HIDDEN void fthr_diag_add_max(long *sum, long *max, long v);
FTHR_HIDDEN void fthr_diag_waited(struct dobj *o, long wait);
FTHR_HIDDEN void fthr_diag_report_at_exit(void);
FTHR_HIDDEN void fthr_diag_report_on_signal(int sig);

/* ---- diag_start.c: the start, the records ---- */

/* The record of the object at addr (kind, if new), or NULL. */
FTHR_HIDDEN struct dobj *fthr_diag_obj_of(const void *addr, int kind);

/* ---- diag_report.c: writing reports ---- */

/* Reports go to fthr_diag_report_fd (2, or the profile's file while it is
 * written), one at a time: under fthr_diag_report_lock. */
FTHR_HIDDEN extern int fthr_diag_report_fd;
FTHR_HIDDEN extern volatile int fthr_diag_report_lock;
FTHR_HIDDEN extern const char *const fthr_diag_kind_name[];

FTHR_HIDDEN void fthr_diag_out(const char *fmt, ...);
FTHR_HIDDEN void fthr_diag_out_pc(const char *indent, int i, void *pc);
FTHR_HIDDEN void fthr_diag_out_site(const struct dsite *s);
FTHR_HIDDEN void fthr_diag_out_obj(const struct dobj *o);
/* A checker report's first line (takes fthr_diag_report_lock; its last:
 * fthr_diag_check_end, diag_check.c). */
FTHR_HIDDEN void fthr_diag_check_begin(const char *what);

#endif
