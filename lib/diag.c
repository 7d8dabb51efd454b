/* lib/diag.c: the contention profiler (FTHR_PROFILE) and the lock checker
 * (FTHR_CHECK). No futex protocol of its own: it watches the objects from
 * outside, around the plain functions (see diag.h for how it is switched in
 * at almost no cost when off).
 *
 * Objects: a table of records keyed by object address (open addressing,
 * CAS on the key, never removed; 32768 records, mapped on first use).
 * Counters are relaxed atomics; the lock-order graph (edges "B taken while
 * A held", each with the stack that first took it) changes under one
 * internal low-level lock, and a new edge A->B is a reported inversion when
 * B already reaches A. Each thread keeps the locks it holds (object, mode,
 * call site) in a small array hung off its TLS record.
 *
 * Profile times are CLOCK_MONOTONIC nanoseconds: wait = time blocked in a
 * lock that was not free at once; hold = first acquisition to last release
 * by the owner (mutexes, write-locked rwlocks); condvar and semaphore rows
 * count waits. Reports are integers only (no floating point anywhere in
 * the library), written with write(2).
 */
#include "config.h"
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>
#include "diag.h"
#include "lll.h"
#include "mutex.h"
#include "objects.h"
#include "self.h"

/* ---- the environment, read once by the first watched call ---- */

static int diag_mode = -1;
FTHR_HIDDEN signed char fthr_diag_on = -1;
static char profile_path[256];
static int profile_top = 10;
static bool profile_sigusr2;

FTHR_NO_SANITIZE static bool starts(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

/* (libc's string functions are not used here: the first call may come from
 * another library's constructor, before a sanitizer's interceptors are set
 * up) */
FTHR_NO_SANITIZE static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

FTHR_NO_SANITIZE static int parse_int(const char *s)
{
	int v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

FTHR_NO_SANITIZE static void env_entry(const char *e, int *mode)
{
	const char *v;

	if (starts(e, "FTHR_PROFILE=")) {
		v = e + 13;
		if (*v && !streq(v, "0")) {
			*mode |= FTHR_DIAG_PROFILE;
			for (int i = 0; !streq(v, "1") && v[i] &&
					i < (int)sizeof(profile_path) - 1; i++)
				profile_path[i] = v[i];
		}
	} else if (starts(e, "FTHR_PROFILE_TOP=")) {
		if (parse_int(e + 17) > 0)
			profile_top = parse_int(e + 17);
	} else if (starts(e, "FTHR_PROFILE_SIGUSR2=")) {
		profile_sigusr2 = e[21] == '1';
	} else if (starts(e, "FTHR_CHECK=")) {
		v = e + 11;
		if (streq(v, "abort"))
			*mode |= FTHR_DIAG_CHECK | FTHR_DIAG_ABORT;
		else if (*v && !streq(v, "0"))
			*mode |= FTHR_DIAG_CHECK;
	}
}

/* May run from another library's constructor, before this library's and
 * before the sanitizer runtimes are set up: raw system calls and static
 * memory only. The environment is the one the process was started with,
 * whatever the program has done to environ since. Returns the modes. */
FTHR_NO_SANITIZE static int env_read(void)
{
	char buf[1024], cur[300];
	int fd, len = 0, mode = 0;
	bool keep = true;
	long n;

	fd = (int)arch_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/environ",
				O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	while ((n = arch_syscall6(SYS_read, fd, (long)buf, sizeof(buf), 0, 0, 0)) > 0)
		for (long i = 0; i < n; i++) {
			if (keep && len < (int)sizeof(cur) - 1)
				cur[len++] = buf[i];
			if (len == 5 && keep && !starts(cur, "FTHR_"))
				keep = false;
			if (buf[i] == '\0') {
				if (keep)
					env_entry(cur, &mode);
				len = 0;
				keep = true;
			}
		}
	arch_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return mode;
}

/* The first call decides (two racing first calls read the same file and
 * decide the same); fthr_diag_on follows, so that from then on the
 * watched entry points call diag_* only while a mode is on. */
FTHR_NO_SANITIZE int fthr_diag_mode(void)
{
	int mode = __atomic_load_n(&diag_mode, __ATOMIC_ACQUIRE);

	if (mode < 0) {
		mode = env_read();
		__atomic_store_n(&diag_mode, mode, __ATOMIC_RELEASE);
		__atomic_store_n(&fthr_diag_on, (signed char)mode, __ATOMIC_RELAXED);
	}
	return mode;
}

static inline bool checking(void)
{
	return diag_mode & FTHR_DIAG_CHECK;
}

static inline bool profiling(void)
{
	return diag_mode & FTHR_DIAG_PROFILE;
}

/* ---- objects ---- */

enum { D_MUTEX, D_RWLOCK, D_COND, D_SEM };
static const char *const kind_name[] = { "mutex", "rwlock", "cond", "sem" };
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

static struct dobj *objs;
static volatile int objs_lost;
static pthread_once_t objs_once = PTHREAD_ONCE_INIT;
static volatile int graph_lock, report_lock;
static unsigned visit_stamp;
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

static void report_at_exit(void);
static void report_on_signal(int sig);

static void objs_init(void)
{
	Dl_info di;
	void *pc[2];

	objs = mmap(NULL, NOBJ * sizeof(struct dobj), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (objs == MAP_FAILED)
		objs = NULL;
	if (dladdr((void *)fthr_diag_mode, &di) && di.dli_fbase)
		dl_iterate_phdr(find_self, di.dli_fbase);
	backtrace(pc, 2); /* loads the unwinder now, not inside a lock */
	if (profiling()) {
		atexit(report_at_exit);
		if (profile_sigusr2)
			signal(SIGUSR2, report_on_signal);
	}
}

__attribute__((constructor)) static void diag_start(void)
{
	if (fthr_diag_mode())
		fthr_once(&objs_once, objs_init);
}

static struct dobj *obj_of(const void *addr, int kind)
{
	unsigned long key = (unsigned long)addr;
	unsigned long h = (key >> 3) * 0x9e3779b97f4a7c15ul;

	if (!objs)
		fthr_once(&objs_once, objs_init);
	if (!objs || !key)
		return NULL;
	for (unsigned i = 0, j = (unsigned)(h >> 49); i < 64; i++, j = (j + 1) % NOBJ) {
		struct dobj *o = &objs[j];
		unsigned long k = __atomic_load_n(&o->key, __ATOMIC_ACQUIRE), zero = 0;

		if (k == key)
			return o;
		if (k == 0 && __atomic_compare_exchange_n(&o->key, &zero, key, false,
							  __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE)) {
			o->kind = kind;
			return o;
		}
		if (zero == key)
			return o;
	}
	__atomic_fetch_add(&objs_lost, 1, __ATOMIC_RELAXED);
	return NULL;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

static void add_max(long *sum, long *max, long v)
{
	long m = __atomic_load_n(max, __ATOMIC_RELAXED);

	__atomic_fetch_add(sum, v, __ATOMIC_RELAXED);
	while (v > m && !__atomic_compare_exchange_n(max, &m, v, true, __ATOMIC_RELAXED,
						     __ATOMIC_RELAXED))
		;
}

static FTHR_NOINLINE void capture(struct dsite *s)
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

/* Guards against re-entry: the unwinder and libc may lock mutexes while
 * diag code runs; those calls go straight to the plain functions. */
static inline bool enter(void)
{
	/* (a call made before the environment was read comes here: with both
	 * modes off it goes straight on to the plain function) */
	if (unlikely(diag_mode <= 0) && fthr_diag_mode() == 0)
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

static struct dthread *me(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t) {
		t = calloc(1, sizeof(*t));
		fthr_self_rec.diag = t;
		/* frees it (fthr_diag_thread_exit) */
		fthr_exit_arm(FTHR_EXIT_DIAG, fthr_diag_thread_exit);
	}
	return t;
}

static struct dheld *held_entry(struct dthread *t, struct dobj *o)
{
	for (int i = t->n - 1; i >= 0; i--)
		if (t->h[i].o == o)
			return &t->h[i];
	return NULL;
}

/* ---- reports ---- */

static int report_fd = 2;

static void out(const char *fmt, ...)
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
		ssize_t w = write(report_fd, buf + off, (size_t)n);

		if (w <= 0)
			break;
		off += (int)w;
		n -= (int)w;
	}
}

static void out_pc(const char *indent, int i, void *pc)
{
	Dl_info di;

	if (dladdr(pc, &di) && di.dli_fname) {
		if (di.dli_sname)
			out("%s#%d %s+0x%lx (%s)\n", indent, i, di.dli_sname,
			    (unsigned long)pc - (unsigned long)di.dli_saddr, di.dli_fname);
		else
			out("%s#%d %s+0x%lx\n", indent, i, di.dli_fname,
			    (unsigned long)pc - (unsigned long)di.dli_fbase);
	} else {
		out("%s#%d %p\n", indent, i, pc);
	}
}

static void out_site(const struct dsite *s)
{
	for (int i = 0; i < s->n; i++)
		out_pc("    ", i, s->pc[i]);
	if (s->n == 0)
		out("    (no stack)\n");
}

static void out_obj(const struct dobj *o)
{
	out("%s %p", kind_name[o->kind], (void *)o->key);
}

static void check_begin(const char *what)
{
	fthr_lll_lock(&report_lock, false);
	out("fthr-check: %s (thread %d)\n", what, fthr_tid());
}

static void check_end(void)
{
	struct dsite now;

	out("  at:\n");
	capture(&now);
	out_site(&now);
	fthr_lll_unlock(&report_lock, false);
	if (diag_mode & FTHR_DIAG_ABORT)
		abort();
}

/* ---- the checks ---- */

static void check_use(struct dobj *o)
{
	if (!checking() || o->state != ST_DESTROYED)
		return;
	check_begin("use of a destroyed object");
	out("  ");
	out_obj(o);
	out(" was destroyed at:\n");
	out_site(&o->destroy_site);
	check_end();
}

static void check_invalid(struct dobj *o, int r)
{
	if (!checking() || r != EINVAL || o->state == ST_DESTROYED)
		return;
	check_begin("use of an object that was never initialized (invalid contents)");
	out("  ");
	out_obj(o);
	out("\n");
	check_end();
}

/* Is 'to' reachable from 'from'? Under graph_lock. */
static struct dedge *reaches(struct dobj *from, struct dobj *to)
{
	if (from == to)
		return (struct dedge *)1;
	if (from->visit == visit_stamp)
		return NULL;
	from->visit = visit_stamp;
	for (struct dedge *e = from->out; e; e = e->next)
		if (e->gen == e->to->gen && reaches(e->to, to))
			return e;
	return NULL;
}

static void add_edge(struct dobj *a, struct dobj *b, void *pc_a)
{
	struct dedge *e, *back;

	fthr_lll_lock(&graph_lock, false);
	for (e = a->out; e; e = e->next)
		if (e->to == b && e->gen == b->gen)
			break;
	if (e) {
		fthr_lll_unlock(&graph_lock, false);
		return;
	}
	visit_stamp++;
	back = reaches(b, a);
	e = calloc(1, sizeof(*e));
	if (e) {
		e->to = b;
		e->gen = b->gen;
		capture(&e->site);
		e->next = a->out;
		a->out = e;
	}
	if (back) {
		if (e)
			e->reported = true;
		check_begin("lock-order inversion (a deadlock waiting to happen)");
		out("  this thread takes ");
		out_obj(b);
		out(" while holding ");
		out_obj(a);
		out(", which it took at:\n");
		out_pc("    ", 0, pc_a);
		out("  but ");
		out_obj(b);
		out(" was taken before ");
		out_obj(a);
		out(" (directly or through other locks), first at:\n");
		if (back != (struct dedge *)1)
			out_site(&back->site);
		fthr_lll_unlock(&graph_lock, false);
		check_end();
		return;
	}
	fthr_lll_unlock(&graph_lock, false);
}

/* Before a blocking acquisition of o: a relock of one's own lock (unless
 * recursive_ok, or both holds are reads), and the lock-order edges from
 * every lock held. */
static void check_acquire(struct dobj *o, int how, bool recursive_ok)
{
	struct dthread *t;
	struct dheld *h;

	if (!checking() || !(t = me()))
		return;
	h = held_entry(t, o);
	if (h && !recursive_ok && (how == H_WRITE || h->how == H_WRITE)) {
		check_begin("relock of a lock this thread holds (self-deadlock)");
		out("  ");
		out_obj(o);
		out(" was taken at:\n");
		out_pc("    ", 0, h->pc);
		check_end();
	}
	for (int i = 0; i < t->n; i++)
		if (t->h[i].o != o)
			add_edge(t->h[i].o, o, t->h[i].pc);
}

/* One acquisition (or wait) that had to wait 'wait' ns. */
static void waited(struct dobj *o, long wait)
{
	__atomic_fetch_add(&o->acq, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&o->contended, 1, __ATOMIC_RELAXED);
	add_max(&o->wait_ns, &o->wait_max, wait);
	if (profiling() && o->site_kind == SITE_NONE) {
		capture(&o->site);
		o->site_kind = SITE_CONTENDED;
	}
}

static void took(struct dobj *o, int how, void *pc, bool contended, long wait)
{
	struct dthread *t = me();

	if (contended)
		waited(o, wait);
	else
		__atomic_fetch_add(&o->acq, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&o->holds, 1, __ATOMIC_RELAXED);
	if (!t)
		return;
	if (how == H_WRITE && !held_entry(t, o)) {
		o->owner = fthr_tid();
		if (profiling())
			o->t_acq = now_ns();
	}
	if (t->n < NHELD)
		t->h[t->n++] = (struct dheld){ o, how, pc };
}

/* Before a release: is it ours? Returns the entry (NULL if not held). */
static struct dheld *check_release(struct dobj *o)
{
	struct dthread *t = me();
	struct dheld *h = t ? held_entry(t, o) : NULL;

	if (checking() && !h && t && t->n < NHELD) {
		check_begin("unlock of a lock this thread does not hold");
		out("  ");
		out_obj(o);
		if (o->owner)
			out(" is held by thread %d\n", o->owner);
		else
			out(" (not held by any thread fthr saw lock it)\n");
		check_end();
	}
	return h;
}

static void released(struct dobj *o, struct dheld *h)
{
	struct dthread *t = fthr_self_rec.diag;
	int how;

	if (!h) {
		/* not this thread's hold (a misuse check_release reported):
		 * another thread's, or none at all */
		int n = __atomic_load_n(&o->holds, __ATOMIC_RELAXED);

		while (n > 0 && !__atomic_compare_exchange_n(&o->holds, &n, n - 1, true,
							     __ATOMIC_RELAXED,
							     __ATOMIC_RELAXED))
			;
		return;
	}
	__atomic_fetch_sub(&o->holds, 1, __ATOMIC_RELAXED);
	if (!t)
		return;
	how = h->how;
	*h = t->h[--t->n]; /* order does not matter: swap with the last */
	if (how == H_WRITE && !held_entry(t, o)) {
		if (profiling() && o->t_acq)
			add_max(&o->hold_ns, &o->hold_max, now_ns() - o->t_acq);
		o->owner = 0;
	}
}

static void check_destroy(struct dobj *o, const char *what)
{
	if (checking() && (o->holds > 0 || o->waiters > 0)) {
		check_begin(what);
		out("  ");
		out_obj(o);
		out(": %d holds, %d waiters\n", o->holds, o->waiters);
		check_end();
	}
}

FTHR_HIDDEN void fthr_diag_misuse(const char *what, const char *kind,
				  const volatile void *obj)
{
	if (!checking() || !enter())
		return;
	check_begin(what);
	out("  %s %p\n", kind, (const void *)obj);
	check_end();
	leave();
}

static void initialized(struct dobj *o)
{
	o->state = ST_INIT;
	o->gen++;
	o->owner = o->holds = o->waiters = 0;
	if (profiling()) {
		capture(&o->site);
		o->site_kind = SITE_CREATED;
	}
}

static void destroyed(struct dobj *o)
{
	o->state = ST_DESTROYED;
	fthr_lll_lock(&graph_lock, false);
	o->gen++;
	o->out = NULL; /* the edges stay allocated: others may be reading */
	fthr_lll_unlock(&graph_lock, false);
	if (checking())
		capture(&o->destroy_site);
}

FTHR_NO_SANITIZE void fthr_diag_thread_exit(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t)
		return;
	if (checking() && t->n > 0) {
		check_begin("thread exits holding locks");
		for (int i = 0; i < t->n; i++) {
			out("  ");
			out_obj(t->h[i].o);
			out(" (%s), taken at:\n", t->h[i].how == H_READ ? "read" : "held");
			out_pc("    ", 0, t->h[i].pc);
		}
		fthr_lll_unlock(&report_lock, false);
		if (diag_mode & FTHR_DIAG_ABORT)
			abort();
	}
	fthr_self_rec.diag = NULL;
	free(t);
}

/* ---- the profile report ---- */

static void out_ms(long ns)
{
	out(" %9ld.%03ld", ns / 1000000, (ns / 1000) % 1000);
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

	if (!objs || !(v = malloc(NOBJ * sizeof(*v))))
		return;
	for (int i = 0; i < NOBJ; i++)
		if (objs[i].key && objs[i].acq) {
			v[n++] = &objs[i];
			waits += objs[i].wait_ns;
			contended += objs[i].contended;
		}
	qsort(v, (size_t)n, sizeof(*v), by_wait);
	fthr_lll_lock(&report_lock, false);
	if (profile_path[0]) {
		char path[300];
		const char *p = strstr(profile_path, "%p");

		if (p)
			snprintf(path, sizeof(path), "%.*s%d%s", (int)(p - profile_path),
				 profile_path, (int)getpid(), p + 2);
		else
			snprintf(path, sizeof(path), "%s", profile_path);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			report_fd = fd;
	}
	out("fthr-profile: pid %d, %d objects used, %ld contended acquisitions, %ld.%03ld ms waited in all",
	    (int)getpid(), n, contended, waits / 1000000, (waits / 1000) % 1000);
	if (objs_lost)
		out(" (%d objects not tracked: table full)", objs_lost);
	out("\nfthr-profile: top %d by wait time (ms); cond and sem count waits\n",
	    n < profile_top ? n : profile_top);
	out("%-6s %-18s %10s %10s %13s %13s %13s %13s  %s\n", "kind", "object", "acquired",
	    "contended", "wait total", "wait max", "hold total", "hold max", "site");
	for (int i = 0; i < n && i < profile_top; i++) {
		struct dobj *o = v[i];

		out("%-6s %-18p %10ld %10ld", kind_name[o->kind], (void *)o->key, o->acq,
		    o->contended);
		out_ms(o->wait_ns);
		out_ms(o->wait_max);
		out_ms(o->hold_ns);
		out_ms(o->hold_max);
		out("  %s\n", o->site_kind == SITE_CREATED     ? "created at:"
			      : o->site_kind == SITE_CONTENDED ? "first contended at:"
							       : "(static, never contended)");
		if (o->site_kind != SITE_NONE)
			out_site(&o->site);
	}
	if (fd >= 0)
		close(fd);
	report_fd = 2;
	fthr_lll_unlock(&report_lock, false);
	free(v);
}

static void report_at_exit(void)
{
	fthr_self_rec.diag_busy = true; /* the report's own calls are not watched */
	profile_report();
}

static void report_on_signal(int sig)
{
	(void)sig;
	report_at_exit();
	fthr_self_rec.diag_busy = false;
}

/* ---- the watching variants ---- */

FTHR_HIDDEN __typeof(pthread_mutex_clocklock) fthr_mutex_clocklock;

enum { OP_LOCK, OP_TIMED, OP_CLOCK, OP_TRY };

static int mutex_call(pthread_mutex_t *m, int op, clockid_t clk,
		      const struct timespec *ts)
{
	switch (op) {
	case OP_LOCK: return fthr_mutex_lock(m);
	case OP_TIMED: return fthr_mutex_timedlock(m, ts);
	case OP_CLOCK: return fthr_mutex_clocklock(m, clk, ts);
	default: return fthr_mutex_trylock(m);
	}
}

static FTHR_NOINLINE int dmutex_lock(pthread_mutex_t *m, int op, clockid_t clk,
				     const struct timespec *ts, void *pc)
{
	struct dobj *o;
	long t0, wait = 0;
	bool contended = false;
	int r;

	if (!enter())
		return mutex_call(m, op, clk, ts);
	o = obj_of(m, D_MUTEX);
	if (!o || (op == OP_CLOCK && !fthr_futex_clock_ok(clk))) {
		leave();
		return mutex_call(m, op, clk, ts);
	}
	check_use(o);
	if (op != OP_TRY)
		check_acquire(o, H_WRITE, (m->__data.__kind & FTHR_MUTEX_KIND_MASK) ==
						 PTHREAD_MUTEX_RECURSIVE);
	r = fthr_mutex_trylock(m);
	if (r == EBUSY && op != OP_TRY) {
		contended = true;
		__atomic_fetch_add(&o->waiters, 1, __ATOMIC_RELAXED);
		t0 = now_ns();
		leave();
		r = mutex_call(m, op, clk, ts);
		enter();
		wait = now_ns() - t0;
		__atomic_fetch_sub(&o->waiters, 1, __ATOMIC_RELAXED);
	}
	if (r == 0 || r == EOWNERDEAD)
		took(o, H_WRITE, pc, contended, wait);
	check_invalid(o, r);
	leave();
	return r;
}

FTHR_HIDDEN int diag_fthr_mutex_lock(pthread_mutex_t *m)
{
	return dmutex_lock(m, OP_LOCK, 0, NULL, __builtin_return_address(0));
}

FTHR_HIDDEN int diag_fthr_mutex_trylock(pthread_mutex_t *m)
{
	return dmutex_lock(m, OP_TRY, 0, NULL, __builtin_return_address(0));
}

FTHR_HIDDEN int diag_fthr_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	return dmutex_lock(m, OP_TIMED, 0, ts, __builtin_return_address(0));
}

FTHR_HIDDEN int diag_fthr_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
					  const struct timespec *ts)
{
	return dmutex_lock(m, OP_CLOCK, clk, ts, __builtin_return_address(0));
}

FTHR_HIDDEN int diag_fthr_mutex_unlock(pthread_mutex_t *m)
{
	struct dobj *o;
	struct dheld *h;
	int r;

	if (!enter())
		return fthr_mutex_unlock(m);
	if (!(o = obj_of(m, D_MUTEX))) {
		leave();
		return fthr_mutex_unlock(m);
	}
	check_use(o);
	h = check_release(o);
	r = fthr_mutex_unlock(m);
	if (r == 0)
		released(o, h);
	check_invalid(o, r);
	leave();
	return r;
}

FTHR_HIDDEN int diag_fthr_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	int r = fthr_mutex_init(m, a);
	struct dobj *o;

	if (r == 0 && enter()) {
		if ((o = obj_of(m, D_MUTEX)))
			initialized(o);
		leave();
	}
	return r;
}

FTHR_HIDDEN int diag_fthr_mutex_destroy(pthread_mutex_t *m)
{
	struct dobj *o;
	int r;

	if (!enter())
		return fthr_mutex_destroy(m);
	if ((o = obj_of(m, D_MUTEX))) {
		check_use(o);
		check_destroy(o, "destroy of a locked or waited-on mutex");
	}
	r = fthr_mutex_destroy(m);
	if (r == 0 && o)
		destroyed(o);
	leave();
	return r;
}

/* rwlocks */
FTHR_HIDDEN __typeof(pthread_rwlock_rdlock) fthr_rwlock_rdlock, fthr_rwlock_wrlock,
	fthr_rwlock_tryrdlock, fthr_rwlock_trywrlock, fthr_rwlock_unlock, fthr_rwlock_destroy;
FTHR_HIDDEN __typeof(pthread_rwlock_timedrdlock) fthr_rwlock_timedrdlock, fthr_rwlock_timedwrlock;
FTHR_HIDDEN __typeof(pthread_rwlock_clockrdlock) fthr_rwlock_clockrdlock, fthr_rwlock_clockwrlock;
FTHR_HIDDEN __typeof(pthread_rwlock_init) fthr_rwlock_init;

static int rw_call(pthread_rwlock_t *l, int how, int op, clockid_t clk,
		   const struct timespec *ts)
{
	bool w = how == H_WRITE;

	switch (op) {
	case OP_LOCK: return w ? fthr_rwlock_wrlock(l) : fthr_rwlock_rdlock(l);
	case OP_TIMED: return w ? fthr_rwlock_timedwrlock(l, ts) : fthr_rwlock_timedrdlock(l, ts);
	case OP_CLOCK: return w ? fthr_rwlock_clockwrlock(l, clk, ts)
			       : fthr_rwlock_clockrdlock(l, clk, ts);
	default: return w ? fthr_rwlock_trywrlock(l) : fthr_rwlock_tryrdlock(l);
	}
}

static FTHR_NOINLINE int drw_lock(pthread_rwlock_t *l, int how, int op, clockid_t clk,
				  const struct timespec *ts, void *pc)
{
	struct dobj *o;
	long t0, wait = 0;
	bool contended = false;
	int r;

	if (!enter())
		return rw_call(l, how, op, clk, ts);
	o = obj_of(l, D_RWLOCK);
	if (!o || (op == OP_CLOCK && !fthr_futex_clock_ok(clk))) {
		leave();
		return rw_call(l, how, op, clk, ts);
	}
	check_use(o);
	if (op != OP_TRY)
		check_acquire(o, how, false);
	r = rw_call(l, how, OP_TRY, 0, NULL);
	if (r == EBUSY && op != OP_TRY) {
		contended = true;
		__atomic_fetch_add(&o->waiters, 1, __ATOMIC_RELAXED);
		t0 = now_ns();
		leave();
		r = rw_call(l, how, op, clk, ts);
		enter();
		wait = now_ns() - t0;
		__atomic_fetch_sub(&o->waiters, 1, __ATOMIC_RELAXED);
	}
	if (r == 0)
		took(o, how, pc, contended, wait);
	leave();
	return r;
}

#define RA __builtin_return_address(0)
FTHR_HIDDEN int diag_fthr_rwlock_rdlock(pthread_rwlock_t *l)
{ return drw_lock(l, H_READ, OP_LOCK, 0, NULL, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_wrlock(pthread_rwlock_t *l)
{ return drw_lock(l, H_WRITE, OP_LOCK, 0, NULL, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_tryrdlock(pthread_rwlock_t *l)
{ return drw_lock(l, H_READ, OP_TRY, 0, NULL, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_trywrlock(pthread_rwlock_t *l)
{ return drw_lock(l, H_WRITE, OP_TRY, 0, NULL, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{ return drw_lock(l, H_READ, OP_TIMED, 0, t, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{ return drw_lock(l, H_WRITE, OP_TIMED, 0, t, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_clockrdlock(pthread_rwlock_t *l, clockid_t c,
					     const struct timespec *t)
{ return drw_lock(l, H_READ, OP_CLOCK, c, t, RA); }
FTHR_HIDDEN int diag_fthr_rwlock_clockwrlock(pthread_rwlock_t *l, clockid_t c,
					     const struct timespec *t)
{ return drw_lock(l, H_WRITE, OP_CLOCK, c, t, RA); }

FTHR_HIDDEN int diag_fthr_rwlock_unlock(pthread_rwlock_t *l)
{
	struct dobj *o;
	struct dheld *h;
	int r;

	if (!enter())
		return fthr_rwlock_unlock(l);
	if (!(o = obj_of(l, D_RWLOCK))) {
		leave();
		return fthr_rwlock_unlock(l);
	}
	check_use(o);
	h = check_release(o);
	r = fthr_rwlock_unlock(l);
	/* (an unlock of another thread's write lock releases nothing) */
	if (r == 0 && (h || !o->owner))
		released(o, h);
	leave();
	return r;
}

FTHR_HIDDEN int diag_fthr_rwlock_init(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	int r = fthr_rwlock_init(l, a);
	struct dobj *o;

	if (r == 0 && enter()) {
		if ((o = obj_of(l, D_RWLOCK)))
			initialized(o);
		leave();
	}
	return r;
}

FTHR_HIDDEN int diag_fthr_rwlock_destroy(pthread_rwlock_t *l)
{
	struct dobj *o;
	int r;

	if (!enter())
		return fthr_rwlock_destroy(l);
	if ((o = obj_of(l, D_RWLOCK))) {
		check_use(o);
		check_destroy(o, "destroy of a locked or waited-on rwlock");
	}
	r = fthr_rwlock_destroy(l);
	if (r == 0 && o)
		destroyed(o);
	leave();
	return r;
}

/* condition variables */
FTHR_HIDDEN __typeof(pthread_cond_clockwait) fthr_cond_clockwait;

static FTHR_NOINLINE int dcond_wait(pthread_cond_t *c, pthread_mutex_t *m, int op,
				    clockid_t clk, const struct timespec *ts, void *pc)
{
	struct dobj *oc, *om;
	struct dthread *t;
	struct dheld *h;
	long t0;
	int r;

#define COND_CALL                                                              \
	(op == OP_LOCK	  ? fthr_cond_wait(c, m)                               \
	 : op == OP_TIMED ? fthr_cond_timedwait(c, m, ts)                      \
			  : fthr_cond_clockwait(c, m, clk, ts))
	if (!enter())
		return COND_CALL;
	oc = obj_of(c, D_COND);
	om = obj_of(m, D_MUTEX);
	if (!oc || !om) {
		leave();
		return COND_CALL;
	}
	check_use(oc);
	check_use(om);
	t = me();
	h = t ? held_entry(t, om) : NULL;
	if (checking() && t && !h) {
		check_begin("condition wait with a mutex this thread does not hold");
		out("  ");
		out_obj(oc);
		out(" with ");
		out_obj(om);
		out("\n");
		check_end();
	}
	if (checking() && oc->waiters > 0 && oc->cond_mutex != m) {
		check_begin("one condition variable waited on with two mutexes");
		out("  ");
		out_obj(oc);
		out(": now with mutex %p, other waiters with mutex %p\n", (void *)m,
		    oc->cond_mutex);
		check_end();
	}
	oc->cond_mutex = m;
	__atomic_fetch_add(&oc->waiters, 1, __ATOMIC_RELAXED);
	if (h)
		released(om, h);
	t0 = now_ns();
	leave();
	r = COND_CALL;
	enter();
	__atomic_fetch_sub(&oc->waiters, 1, __ATOMIC_RELAXED);
	waited(oc, now_ns() - t0);
	if (r == 0 || r == ETIMEDOUT || r == EOWNERDEAD)
		took(om, H_WRITE, pc, false, 0);
	leave();
	return r;
#undef COND_CALL
}

FTHR_HIDDEN int diag_fthr_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{ return dcond_wait(c, m, OP_LOCK, 0, NULL, RA); }
FTHR_HIDDEN int diag_fthr_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					 const struct timespec *t)
{ return dcond_wait(c, m, OP_TIMED, 0, t, RA); }
FTHR_HIDDEN int diag_fthr_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
					 clockid_t k, const struct timespec *t)
{ return dcond_wait(c, m, OP_CLOCK, k, t, RA); }

FTHR_HIDDEN int diag_fthr_cond_init(pthread_cond_t *c, const pthread_condattr_t *a)
{
	int r = fthr_cond_init(c, a);
	struct dobj *o;

	if (r == 0 && enter()) {
		if ((o = obj_of(c, D_COND)))
			initialized(o);
		leave();
	}
	return r;
}

FTHR_HIDDEN int diag_fthr_cond_destroy(pthread_cond_t *c)
{
	struct dobj *o;
	int r;

	if (!enter())
		return fthr_cond_destroy(c);
	if ((o = obj_of(c, D_COND))) {
		check_use(o);
		check_destroy(o, "destroy of a condition variable with waiters");
	}
	r = fthr_cond_destroy(c);
	if (r == 0 && o)
		destroyed(o);
	leave();
	return r;
}

/* semaphores */
FTHR_HIDDEN __typeof(sem_wait) fthr_sem_wait, fthr_sem_destroy;
FTHR_HIDDEN __typeof(sem_timedwait) fthr_sem_timedwait;
FTHR_HIDDEN __typeof(sem_clockwait) fthr_sem_clockwait;
FTHR_HIDDEN __typeof(sem_init) fthr_sem_init;
FTHR_HIDDEN __typeof(sem_getvalue) fthr_sem_getvalue;

static FTHR_NOINLINE int dsem_wait(sem_t *s, int op, clockid_t clk,
				   const struct timespec *ts)
{
	struct dobj *o;
	long t0;
	int r, v = 1, e;

#define SEM_CALL                                                               \
	(op == OP_LOCK	  ? fthr_sem_wait(s)                                   \
	 : op == OP_TIMED ? fthr_sem_timedwait(s, ts)                          \
			  : fthr_sem_clockwait(s, clk, ts))
	if (!enter())
		return SEM_CALL;
	if (!(o = obj_of(s, D_SEM))) {
		leave();
		return SEM_CALL;
	}
	check_use(o);
	e = errno;
	fthr_sem_getvalue(s, &v);
	errno = e;
	__atomic_fetch_add(&o->waiters, 1, __ATOMIC_RELAXED);
	t0 = now_ns();
	leave();
	r = SEM_CALL;
	e = errno;
	enter();
	__atomic_fetch_sub(&o->waiters, 1, __ATOMIC_RELAXED);
	if (v <= 0) /* it had to wait */
		waited(o, now_ns() - t0);
	else
		__atomic_fetch_add(&o->acq, 1, __ATOMIC_RELAXED);
	leave();
	errno = e;
	return r;
#undef SEM_CALL
}

FTHR_HIDDEN int diag_fthr_sem_wait(sem_t *s)
{ return dsem_wait(s, OP_LOCK, 0, NULL); }
FTHR_HIDDEN int diag_fthr_sem_timedwait(sem_t *s, const struct timespec *t)
{ return dsem_wait(s, OP_TIMED, 0, t); }
FTHR_HIDDEN int diag_fthr_sem_clockwait(sem_t *s, clockid_t k, const struct timespec *t)
{ return dsem_wait(s, OP_CLOCK, k, t); }

FTHR_HIDDEN int diag_fthr_sem_init(sem_t *s, int pshared, unsigned value)
{
	int r = fthr_sem_init(s, pshared, value), e = errno;
	struct dobj *o;

	if (r == 0 && enter()) {
		if ((o = obj_of(s, D_SEM)))
			initialized(o);
		leave();
	}
	errno = e;
	return r;
}

FTHR_HIDDEN int diag_fthr_sem_destroy(sem_t *s)
{
	struct dobj *o;
	int r, e;

	if (!enter())
		return fthr_sem_destroy(s);
	if ((o = obj_of(s, D_SEM))) {
		check_use(o);
		check_destroy(o, "destroy of a semaphore with waiters");
	}
	r = fthr_sem_destroy(s);
	e = errno;
	if (r == 0 && o)
		destroyed(o);
	leave();
	errno = e;
	return r;
}

/* C11: the same watching, mapped to thrd_* results */
FTHR_HIDDEN __typeof(mtx_lock) fthr_mtx_lock, fthr_mtx_trylock, fthr_mtx_unlock;
FTHR_HIDDEN __typeof(mtx_timedlock) fthr_mtx_timedlock;
FTHR_HIDDEN __typeof(mtx_init) fthr_mtx_init;
FTHR_HIDDEN __typeof(mtx_destroy) fthr_mtx_destroy;
FTHR_HIDDEN __typeof(cnd_wait) fthr_cnd_wait;
FTHR_HIDDEN __typeof(cnd_timedwait) fthr_cnd_timedwait;
FTHR_HIDDEN __typeof(cnd_init) fthr_cnd_init;
FTHR_HIDDEN __typeof(cnd_destroy) fthr_cnd_destroy;

#define MX(m) ((pthread_mutex_t *)(m))
#define CV(c) ((pthread_cond_t *)(c))
FTHR_HIDDEN int diag_fthr_mtx_lock(mtx_t *m)
{ return fthr_thrd_result(dmutex_lock(MX(m), OP_LOCK, 0, NULL, RA)); }
FTHR_HIDDEN int diag_fthr_mtx_trylock(mtx_t *m)
{ return fthr_thrd_result(dmutex_lock(MX(m), OP_TRY, 0, NULL, RA)); }
FTHR_HIDDEN int diag_fthr_mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict t)
{ return fthr_thrd_result(dmutex_lock(MX(m), OP_TIMED, 0, t, RA)); }
FTHR_HIDDEN int diag_fthr_mtx_unlock(mtx_t *m)
{ return fthr_thrd_result(diag_fthr_mutex_unlock(MX(m))); }
FTHR_HIDDEN int diag_fthr_mtx_init(mtx_t *m, int type)
{
	int r = fthr_mtx_init(m, type);
	struct dobj *o;

	if (r == thrd_success && enter()) {
		if ((o = obj_of(m, D_MUTEX)))
			initialized(o);
		leave();
	}
	return r;
}
FTHR_HIDDEN void diag_fthr_mtx_destroy(mtx_t *m)
{ diag_fthr_mutex_destroy(MX(m)); }
FTHR_HIDDEN int diag_fthr_cnd_wait(cnd_t *c, mtx_t *m)
{ return fthr_thrd_result(dcond_wait(CV(c), MX(m), OP_LOCK, 0, NULL, RA)); }
FTHR_HIDDEN int diag_fthr_cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
					const struct timespec *restrict t)
{ return fthr_thrd_result(dcond_wait(CV(c), MX(m), OP_TIMED, 0, t, RA)); }
FTHR_HIDDEN int diag_fthr_cnd_init(cnd_t *c)
{ return fthr_thrd_result(diag_fthr_cond_init(CV(c), NULL)); }
FTHR_HIDDEN void diag_fthr_cnd_destroy(cnd_t *c)
{ diag_fthr_cond_destroy(CV(c)); }
