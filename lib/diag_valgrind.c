/* lib/diag_valgrind.c: fthr's synchronization, told to Valgrind's thread
 * checkers, Helgrind and DRD.
 *
 * Both watch glibc's pthread calls with wrappers of the functions of
 * libc.so.6, chosen by soname; fthr's functions live in libfthr.so.0, so
 * without this file they saw no lock at all (every access under a mutex a
 * "possible data race"). Here are wrappers of the same kind for fthr's
 * exported functions: Valgrind's function wrapping (valgrind.h), a function
 * named _vgw00000ZU_libfthrZdsoZd0_<name> wraps <name> of the object whose
 * soname is libfthr.so.0 (any of its versions), applied by Valgrind as it
 * loads the library.
 *
 * They are a library of their own, libfthr-valgrind.so, which libfthr
 * loads only when Helgrind or DRD runs (valgrind_load.c): Valgrind applies
 * a wrapper under every tool wherever an object that defines it is loaded,
 * and so natively and under the other tools (memcheck, callgrind,
 * cachegrind) no wrapper runs, and a profile counts fthr's own
 * instructions alone.
 *
 * Under Valgrind each wrapper makes the requests the running tool's own
 * wrappers of glibc make, before and after the call, with its result:
 * Helgrind's from helgrind.h, DRD's from the tool-internal list of its
 * drd/drd_clientreq.h (stable in order since Valgrind 3.7; tests/tools.sh
 * holds DRD's verdicts on every object). The two tools give some request
 * numbers other meanings, so each goes to its own tool only. The wrappers
 * also stop both from checking fthr's own accesses: the object's bytes,
 * fthr's data and each thread's fthr TLS, which the library reads and
 * writes from several threads by design, ordered by its atomics (glibc's
 * own are left out by the tools' default suppressions, by object name).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <threads.h>
#include <valgrind/helgrind.h>
#include <valgrind/drd.h>
#include "fthr.h"

/* The wrappers are in the dynamic symbol table, where Valgrind finds them
 * in a stripped library too (lib/fthr.map exports their names). */
#pragma GCC visibility push(default)

/* the wrapper of exported function fn, and the original it calls */
#define W(fn) I_WRAP_SONAME_FNNAME_ZU(libfthrZdsoZd0, fn)
#define ORIG(fn_)                                                              \
	OrigFn fn_;                                                            \
	VALGRIND_GET_ORIG_FN(fn_)

/* Which tool runs: Helgrind and DRD share some request numbers with other
 * meanings (DRD's rwlock annotations are Helgrind's rwlock requests), so
 * each request goes to its own tool only; known by the tool's preloaded
 * object. */
enum { TOOL_UNKNOWN, TOOL_OTHER, TOOL_HELGRIND, TOOL_DRD };
static int tool_found;

static int find_tool(struct dl_phdr_info *i, size_t size, void *arg)
{
	(void)size;
	if (strstr(i->dlpi_name, "/vgpreload_helgrind-"))
		*(int *)arg = TOOL_HELGRIND;
	else if (strstr(i->dlpi_name, "/vgpreload_drd-"))
		*(int *)arg = TOOL_DRD;
	return *(int *)arg != TOOL_OTHER;
}

static int tool(void)
{
	int t = __atomic_load_n(&tool_found, __ATOMIC_RELAXED);

	if (t == TOOL_UNKNOWN) { /* every thread finds the same */
		t = TOOL_OTHER;
		dl_iterate_phdr(find_tool, &t);
		__atomic_store_n(&tool_found, t, __ATOMIC_RELAXED);
	}
	return t;
}

/* a request to Helgrind (its own arguments, the rest 0), and its answer */
static long hg4(unsigned req, const volatile void *a, long b, long c, long d)
{
	if (tool() != TOOL_HELGRIND)
		return 0;
	return (long)VALGRIND_DO_CLIENT_REQUEST_EXPR(0, req, a, b, c, d, 0);
}

static void hg(unsigned req, const volatile void *a, long b, long c)
{
	(void)hg4(req, a, b, c, 0);
}

static void drd4(unsigned req, const volatile void *a, long b, long c, long d)
{
	if (tool() == TOOL_DRD)
		VALGRIND_DO_CLIENT_REQUEST_STMT(req, a, b, c, d, 0);
}

static void drd(unsigned req, const volatile void *a, long b)
{
	drd4(req, a, b, 0, 0);
}

/* DRD's requests for the pthread objects (drd/drd_clientreq.h) */
enum {
	DRD_PRE_MUTEX_INIT = VG_USERREQ_TOOL_BASE('D', 'r') + 9,
	DRD_POST_MUTEX_INIT,
	DRD_PRE_MUTEX_DESTROY,
	DRD_POST_MUTEX_DESTROY,
	DRD_PRE_MUTEX_LOCK,
	DRD_POST_MUTEX_LOCK,
	DRD_PRE_MUTEX_UNLOCK,
	DRD_POST_MUTEX_UNLOCK,
	DRD_PRE_SPIN_INIT_OR_UNLOCK,
	DRD_POST_SPIN_INIT_OR_UNLOCK,
	DRD_PRE_COND_INIT,
	DRD_POST_COND_INIT,
	DRD_PRE_COND_DESTROY,
	DRD_POST_COND_DESTROY,
	DRD_PRE_COND_WAIT,
	DRD_POST_COND_WAIT,
	DRD_PRE_COND_SIGNAL,
	DRD_POST_COND_SIGNAL,
	DRD_PRE_COND_BROADCAST,
	DRD_POST_COND_BROADCAST,
	DRD_PRE_SEM_INIT,
	DRD_POST_SEM_INIT,
	DRD_PRE_SEM_DESTROY,
	DRD_POST_SEM_DESTROY,
	DRD_PRE_SEM_OPEN,
	DRD_POST_SEM_OPEN,
	DRD_PRE_SEM_CLOSE,
	DRD_POST_SEM_CLOSE,
	DRD_PRE_SEM_WAIT,
	DRD_POST_SEM_WAIT,
	DRD_PRE_SEM_POST,
	DRD_POST_SEM_POST,
	DRD_PRE_BARRIER_INIT,
	DRD_POST_BARRIER_INIT,
	DRD_PRE_BARRIER_DESTROY,
	DRD_POST_BARRIER_DESTROY,
	DRD_PRE_BARRIER_WAIT,
	DRD_POST_BARRIER_WAIT,
	DRD_PRE_RWLOCK_INIT,
	DRD_POST_RWLOCK_INIT,
	DRD_PRE_RWLOCK_DESTROY,
	DRD_POST_RWLOCK_DESTROY,
	DRD_PRE_RWLOCK_RDLOCK,
	DRD_POST_RWLOCK_RDLOCK,
	DRD_PRE_RWLOCK_WRLOCK,
	DRD_POST_RWLOCK_WRLOCK,
	DRD_PRE_RWLOCK_UNLOCK,
	DRD_POST_RWLOCK_UNLOCK,
};
/* its mutex kinds (MutexT) and the one barrier kind */
enum { DRD_RECURSIVE = 1, DRD_ERRORCHECK = 2, DRD_DEFAULT = 3, DRD_SPINLOCK = 4 };
enum { DRD_PTHREAD_BARRIER = 1 };

static long drd_kind(int type)
{
	return type == PTHREAD_MUTEX_RECURSIVE ? DRD_RECURSIVE
	       : type == PTHREAD_MUTEX_ERRORCHECK ? DRD_ERRORCHECK : DRD_DEFAULT;
}

/* a mutex's kind, from glibc's __kind bits (fthr keeps glibc's layout) */
static long drd_mutex_kind(const pthread_mutex_t *m)
{
	return m ? drd_kind(m->__data.__kind & 3) : DRD_DEFAULT;
}

/* ---- what the tools must not check: fthr's own state ---- */

static void unchecked(const void *p, size_t n)
{
	hg(_VG_USERREQ__HG_ARANGE_MAKE_UNTRACKED, p, (long)n, 0);
	drd(VG_USERREQ__DRD_START_SUPPRESSION, p, (long)n);
}

struct self {
	bool all;   /* fthr's writable segments too, not only this thread's TLS */
	Dl_info di; /* libfthr's load address (of fthr_version, its own export) */
};

static int self_data(struct dl_phdr_info *i, size_t size, void *arg)
{
	const struct self *me = arg;

	(void)size;
	if (i->dlpi_addr != (ElfW(Addr))me->di.dli_fbase)
		return 0;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *p = &i->dlpi_phdr[k];

		if (me->all && p->p_type == PT_LOAD && (p->p_flags & PF_W))
			unchecked((void *)(i->dlpi_addr + p->p_vaddr), p->p_memsz);
		if (p->p_type == PT_TLS && i->dlpi_tls_data)
			unchecked(i->dlpi_tls_data, p->p_memsz);
	}
	return 1;
}

/* fthr's writable data once, this thread's fthr TLS once per thread */
static void setup(void)
{
	static int data_done;
	static __thread bool thread_done;
	struct self me;

	if (thread_done)
		return;
	thread_done = true;
	me.all = !__atomic_exchange_n(&data_done, 1, __ATOMIC_RELAXED);
	if (dladdr((void *)fthr_version, &me.di))
		dl_iterate_phdr(self_data, &me);
}

/* an object's bytes: fthr's words, never the program's data */
static void obj(const void *p, size_t n)
{
	setup();
	if (p)
		unchecked(p, n);
}

static void api_error(const char *fn, long err)
{
	hg(_VG_USERREQ__HG_PTH_API_ERROR, (char *)fn, (long)(err), 0);
}

/* ---- mutexes ---- */

static void m_pre(pthread_mutex_t *m, long try)
{
	obj(m, sizeof *m);
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_LOCK_PRE, m, try, 0);
	drd4(DRD_PRE_MUTEX_LOCK, m, drd_mutex_kind(m), try, 0);
}

static void m_took(pthread_mutex_t *m, bool took)
{
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_LOCK_POST, m, took, 0);
	drd(DRD_POST_MUTEX_LOCK, m, took);
}

static int m_post(const char *fn, pthread_mutex_t *m, int r, bool try)
{
	bool took = r == 0 || r == EOWNERDEAD;

	m_took(m, took);
	if (!took && !(try && r == EBUSY) && r != ETIMEDOUT)
		api_error(fn, r);
	return r;
}

static void m_unlock_pre(pthread_mutex_t *m)
{
	obj(m, sizeof *m);
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_UNLOCK_PRE, m, 0, 0);
	drd(DRD_PRE_MUTEX_UNLOCK, m, drd_mutex_kind(m));
}

static void m_unlock_post(pthread_mutex_t *m)
{
	drd(DRD_POST_MUTEX_UNLOCK, m, 0);
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_UNLOCK_POST, m, 0, 0);
}

int W(pthread_mutex_init)(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	int r, type = PTHREAD_MUTEX_DEFAULT;
	ORIG(fn);

	obj(m, sizeof *m);
	if (a)
		pthread_mutexattr_gettype(a, &type);
	drd(DRD_PRE_MUTEX_INIT, m, drd_kind(type));
	CALL_FN_W_WW(r, fn, m, a);
	drd(DRD_POST_MUTEX_INIT, m, 0);
	if (r == 0)
		hg(_VG_USERREQ__HG_PTHREAD_MUTEX_INIT_POST, m, type == PTHREAD_MUTEX_RECURSIVE, 0);
	else
		api_error("pthread_mutex_init", r);
	return r;
}

int W(pthread_mutex_destroy)(pthread_mutex_t *m)
{
	static const pthread_mutex_t zero = PTHREAD_MUTEX_INITIALIZER;
	long kind;
	int r;
	ORIG(fn);

	obj(m, sizeof *m);
	kind = drd_mutex_kind(m);
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_DESTROY_PRE, m,
	   m && memcmp(m, &zero, sizeof zero) == 0, 0);
	drd(DRD_PRE_MUTEX_DESTROY, m, 0);
	CALL_FN_W_W(r, fn, m);
	drd(DRD_POST_MUTEX_DESTROY, m, kind);
	if (r != 0)
		api_error("pthread_mutex_destroy", r);
	return r;
}

int W(pthread_mutex_lock)(pthread_mutex_t *m)
{
	int r;
	ORIG(fn);

	m_pre(m, 0);
	CALL_FN_W_W(r, fn, m);
	return m_post("pthread_mutex_lock", m, r, false);
}

int W(pthread_mutex_trylock)(pthread_mutex_t *m)
{
	int r;
	ORIG(fn);

	m_pre(m, 1);
	CALL_FN_W_W(r, fn, m);
	return m_post("pthread_mutex_trylock", m, r, true);
}

int W(pthread_mutex_timedlock)(pthread_mutex_t *m, const struct timespec *t)
{
	int r;
	ORIG(fn);

	m_pre(m, 0);
	CALL_FN_W_WW(r, fn, m, t);
	return m_post("pthread_mutex_timedlock", m, r, false);
}

int W(pthread_mutex_clocklock)(pthread_mutex_t *m, clockid_t c, const struct timespec *t)
{
	int r;
	ORIG(fn);

	m_pre(m, 0);
	CALL_FN_W_WWW(r, fn, m, c, t);
	return m_post("pthread_mutex_clocklock", m, r, false);
}

int W(pthread_mutex_unlock)(pthread_mutex_t *m)
{
	int r;
	ORIG(fn);

	m_unlock_pre(m);
	CALL_FN_W_W(r, fn, m);
	m_unlock_post(m);
	if (r != 0)
		api_error("pthread_mutex_unlock", r);
	return r;
}

/* ---- condition variables ---- */

/* Helgrind checks the pair and answers whether it knows m as a mutex; if
 * so, it sees m given back, and taken again after the wait (the requests
 * its own wrapper of glibc's makes, in that order) */
static bool c_wait_pre(pthread_cond_t *c, pthread_mutex_t *m)
{
	bool valid;

	obj(c, sizeof *c);
	obj(m, sizeof *m);
	valid = hg4(_VG_USERREQ__HG_PTHREAD_COND_WAIT_PRE, c, (long)m, 0, 0) == 1;
	if (valid)
		hg(_VG_USERREQ__HG_PTHREAD_MUTEX_UNLOCK_PRE, m, 0, 0);
	drd4(DRD_PRE_COND_WAIT, c, (long)m, drd_mutex_kind(m), 0);
	return valid;
}

static int c_wait_post(const char *fn, pthread_cond_t *c, pthread_mutex_t *m, bool valid, int r)
{
	bool again = r == 0 || r == ETIMEDOUT || r == EOWNERDEAD; /* m is held */

	if (valid)
		hg(_VG_USERREQ__HG_PTHREAD_MUTEX_LOCK_POST, m, again, 0);
	hg4(_VG_USERREQ__HG_PTHREAD_COND_WAIT_POST, c, (long)m, r == ETIMEDOUT,
	    valid && (r == 0 || r == ETIMEDOUT));
	drd4(DRD_POST_COND_WAIT, c, (long)m, again, 0);
	if (r != 0 && r != ETIMEDOUT)
		api_error(fn, r);
	return r;
}

int W(pthread_cond_init)(pthread_cond_t *c, const pthread_condattr_t *a)
{
	int r;
	ORIG(fn);

	obj(c, sizeof *c);
	drd(DRD_PRE_COND_INIT, c, 0);
	CALL_FN_W_WW(r, fn, c, a);
	drd(DRD_POST_COND_INIT, c, 0);
	if (r == 0)
		hg(_VG_USERREQ__HG_PTHREAD_COND_INIT_POST, c, (long)a, 0);
	else
		api_error("pthread_cond_init", r);
	return r;
}

int W(pthread_cond_destroy)(pthread_cond_t *c)
{
	static const pthread_cond_t zero = PTHREAD_COND_INITIALIZER;
	int r;
	ORIG(fn);

	obj(c, sizeof *c);
	hg(_VG_USERREQ__HG_PTHREAD_COND_DESTROY_PRE, c,
	   c && memcmp(c, &zero, sizeof zero) == 0, 0);
	drd(DRD_PRE_COND_DESTROY, c, 0);
	CALL_FN_W_W(r, fn, c);
	drd(DRD_POST_COND_DESTROY, c, r == 0);
	if (r != 0)
		api_error("pthread_cond_destroy", r);
	return r;
}

int W(pthread_cond_wait)(pthread_cond_t *c, pthread_mutex_t *m)
{
	int r;
	ORIG(fn);

	bool valid = c_wait_pre(c, m);

	CALL_FN_W_WW(r, fn, c, m);
	return c_wait_post("pthread_cond_wait", c, m, valid, r);
}

int W(pthread_cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t)
{
	int r;
	ORIG(fn);

	bool valid = c_wait_pre(c, m);

	CALL_FN_W_WWW(r, fn, c, m, t);
	return c_wait_post("pthread_cond_timedwait", c, m, valid, r);
}

int W(pthread_cond_clockwait)(pthread_cond_t *c, pthread_mutex_t *m, clockid_t k,
			      const struct timespec *t)
{
	int r;
	ORIG(fn);

	bool valid = c_wait_pre(c, m);

	CALL_FN_W_WWWW(r, fn, c, m, k, t);
	return c_wait_post("pthread_cond_clockwait", c, m, valid, r);
}

static int c_wake(OrigFn fn, pthread_cond_t *c, bool all)
{
	int r;

	obj(c, sizeof *c);
	hg(all ? _VG_USERREQ__HG_PTHREAD_COND_BROADCAST_PRE : _VG_USERREQ__HG_PTHREAD_COND_SIGNAL_PRE,
	   c, 0, 0);
	drd(all ? DRD_PRE_COND_BROADCAST : DRD_PRE_COND_SIGNAL, c, 0);
	CALL_FN_W_W(r, fn, c);
	drd(all ? DRD_POST_COND_BROADCAST : DRD_POST_COND_SIGNAL, c, 0);
	hg(all ? _VG_USERREQ__HG_PTHREAD_COND_BROADCAST_POST
	       : _VG_USERREQ__HG_PTHREAD_COND_SIGNAL_POST, c, 0, 0);
	return r;
}

int W(pthread_cond_signal)(pthread_cond_t *c)
{
	ORIG(fn);

	return c_wake(fn, c, false);
}

int W(pthread_cond_broadcast)(pthread_cond_t *c)
{
	ORIG(fn);

	return c_wake(fn, c, true);
}

/* ---- rwlocks ---- */

static void rw_pre(pthread_rwlock_t *l, long w, long try)
{
	obj(l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_LOCK_PRE, l, w, try);
	drd(w ? DRD_PRE_RWLOCK_WRLOCK : DRD_PRE_RWLOCK_RDLOCK, l, 0);
}

static int rw_post(const char *fn, pthread_rwlock_t *l, long w, int r, bool quiet)
{
	drd(w ? DRD_POST_RWLOCK_WRLOCK : DRD_POST_RWLOCK_RDLOCK, l, r == 0);
	hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_LOCK_POST, l, w, r == 0);
	if (r != 0 && !quiet)
		api_error(fn, r);
	return r;
}

int W(pthread_rwlock_init)(pthread_rwlock_t *l, const pthread_rwlockattr_t *a)
{
	int r;
	ORIG(fn);

	obj(l, sizeof *l);
	drd(DRD_PRE_RWLOCK_INIT, l, 0);
	CALL_FN_W_WW(r, fn, l, a);
	drd(DRD_POST_RWLOCK_INIT, l, 0);
	if (r == 0)
		hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_INIT_POST, l, 0, 0);
	else
		api_error("pthread_rwlock_init", r);
	return r;
}

int W(pthread_rwlock_destroy)(pthread_rwlock_t *l)
{
	int r;
	ORIG(fn);

	obj(l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_DESTROY_PRE, l, 0, 0);
	drd(DRD_PRE_RWLOCK_DESTROY, l, 0);
	CALL_FN_W_W(r, fn, l);
	drd(DRD_POST_RWLOCK_DESTROY, l, 0);
	if (r != 0)
		api_error("pthread_rwlock_destroy", r);
	return r;
}

#define RW_LOCK(name, w, try, quiet_err)                                       \
	int W(name)(pthread_rwlock_t *l)                                       \
	{                                                                      \
		int r;                                                         \
		ORIG(fn);                                                      \
		rw_pre(l, w, try);                                             \
		CALL_FN_W_W(r, fn, l);                                         \
		return rw_post(#name, l, w, r, r == (quiet_err));              \
	}
RW_LOCK(pthread_rwlock_rdlock, 0, 0, 0)
RW_LOCK(pthread_rwlock_wrlock, 1, 0, 0)
RW_LOCK(pthread_rwlock_tryrdlock, 0, 1, EBUSY)
RW_LOCK(pthread_rwlock_trywrlock, 1, 1, EBUSY)

#define RW_TIMED(name, w)                                                      \
	int W(name)(pthread_rwlock_t *l, const struct timespec *t)             \
	{                                                                      \
		int r;                                                         \
		ORIG(fn);                                                      \
		rw_pre(l, w, 0);                                               \
		CALL_FN_W_WW(r, fn, l, t);                                     \
		return rw_post(#name, l, w, r, r == ETIMEDOUT);                \
	}
RW_TIMED(pthread_rwlock_timedrdlock, 0)
RW_TIMED(pthread_rwlock_timedwrlock, 1)

#define RW_CLOCK(name, w)                                                      \
	int W(name)(pthread_rwlock_t *l, clockid_t c, const struct timespec *t) \
	{                                                                      \
		int r;                                                         \
		ORIG(fn);                                                      \
		rw_pre(l, w, 0);                                               \
		CALL_FN_W_WWW(r, fn, l, c, t);                                 \
		return rw_post(#name, l, w, r, r == ETIMEDOUT);                \
	}
RW_CLOCK(pthread_rwlock_clockrdlock, 0)
RW_CLOCK(pthread_rwlock_clockwrlock, 1)

int W(pthread_rwlock_unlock)(pthread_rwlock_t *l)
{
	int r;
	ORIG(fn);

	obj(l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_UNLOCK_PRE, l, 0, 0);
	drd(DRD_PRE_RWLOCK_UNLOCK, l, 0);
	CALL_FN_W_W(r, fn, l);
	drd(DRD_POST_RWLOCK_UNLOCK, l, r == 0);
	hg(_VG_USERREQ__HG_PTHREAD_RWLOCK_UNLOCK_POST, l, 0, 0);
	if (r != 0)
		api_error("pthread_rwlock_unlock", r);
	return r;
}

/* ---- spin locks (DRD: a mutex of its spin-lock kind) ---- */

int W(pthread_spin_init)(pthread_spinlock_t *l, int pshared)
{
	int r;
	ORIG(fn);

	obj((void *)l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_INIT_OR_UNLOCK_PRE, l, 0, 0);
	drd(DRD_PRE_SPIN_INIT_OR_UNLOCK, l, 0);
	CALL_FN_W_WW(r, fn, l, pshared);
	drd(DRD_POST_SPIN_INIT_OR_UNLOCK, l, 0);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_INIT_OR_UNLOCK_POST, l, 0, 0);
	return r;
}

int W(pthread_spin_destroy)(pthread_spinlock_t *l)
{
	int r;
	ORIG(fn);

	obj((void *)l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_DESTROY_PRE, l, 0, 0);
	drd(DRD_PRE_MUTEX_DESTROY, l, 0);
	CALL_FN_W_W(r, fn, l);
	drd(DRD_POST_MUTEX_DESTROY, l, DRD_SPINLOCK);
	return r;
}

static int spin_take(OrigFn fn, pthread_spinlock_t *l, long try)
{
	int r;

	obj((void *)l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_LOCK_PRE, l, try, 0);
	drd4(DRD_PRE_MUTEX_LOCK, l, DRD_SPINLOCK, try, 0);
	CALL_FN_W_W(r, fn, l);
	drd(DRD_POST_MUTEX_LOCK, l, r == 0);
	if (r == 0)
		hg(_VG_USERREQ__HG_PTHREAD_SPIN_LOCK_POST, l, 0, 0);
	return r;
}

int W(pthread_spin_lock)(pthread_spinlock_t *l)
{
	ORIG(fn);

	return spin_take(fn, l, 0);
}

int W(pthread_spin_trylock)(pthread_spinlock_t *l)
{
	ORIG(fn);

	return spin_take(fn, l, 1);
}

int W(pthread_spin_unlock)(pthread_spinlock_t *l)
{
	int r;
	ORIG(fn);

	obj((void *)l, sizeof *l);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_INIT_OR_UNLOCK_PRE, l, 0, 0);
	drd(DRD_PRE_SPIN_INIT_OR_UNLOCK, l, DRD_SPINLOCK);
	CALL_FN_W_W(r, fn, l);
	drd(DRD_POST_SPIN_INIT_OR_UNLOCK, l, 0);
	hg(_VG_USERREQ__HG_PTHREAD_SPIN_INIT_OR_UNLOCK_POST, l, 0, 0);
	return r;
}

/* ---- semaphores ---- */

int W(sem_init)(sem_t *s, int pshared, unsigned v)
{
	int r;
	ORIG(fn);

	obj(s, sizeof *s);
	drd4(DRD_PRE_SEM_INIT, s, pshared, v, 0);
	CALL_FN_W_WWW(r, fn, s, pshared, v);
	drd(DRD_POST_SEM_INIT, s, 0);
	if (r == 0)
		hg(_VG_USERREQ__HG_POSIX_SEM_INIT_POST, s, v, 0);
	return r;
}

int W(sem_destroy)(sem_t *s)
{
	int r;
	ORIG(fn);

	obj(s, sizeof *s);
	hg(_VG_USERREQ__HG_POSIX_SEM_DESTROY_PRE, s, 0, 0);
	drd(DRD_PRE_SEM_DESTROY, s, 0);
	CALL_FN_W_W(r, fn, s);
	drd(DRD_POST_SEM_DESTROY, s, 0);
	return r;
}

sem_t *W(sem_open)(const char *name, int oflag, ...)
{
	sem_t *s;
	unsigned mode = 0, v = 0;
	va_list ap;
	ORIG(fn);

	if (oflag & O_CREAT) {
		va_start(ap, oflag);
		mode = va_arg(ap, unsigned);
		v = va_arg(ap, unsigned);
		va_end(ap);
	}
	setup();
	drd4(DRD_PRE_SEM_OPEN, name, oflag, mode, v);
	CALL_FN_W_WWWW(s, fn, name, oflag, mode, v);
	if (tool() == TOOL_DRD) /* (one more argument than drd4 takes) */
		VALGRIND_DO_CLIENT_REQUEST_STMT(DRD_POST_SEM_OPEN, s != SEM_FAILED ? s : NULL,
						name, oflag, mode, v);
	if (s != SEM_FAILED) {
		obj(s, sizeof *s);
		/* Helgrind: a new semaphore has the value it was created with;
		 * one opened again is known to it already */
		if (oflag & O_CREAT)
			hg(_VG_USERREQ__HG_POSIX_SEM_INIT_POST, s, v, 0);
	}
	return s;
}

int W(sem_close)(sem_t *s)
{
	int r;
	ORIG(fn);

	obj(s, sizeof *s);
	hg(_VG_USERREQ__HG_POSIX_SEM_DESTROY_PRE, s, 0, 0);
	drd(DRD_PRE_SEM_CLOSE, s, 0);
	CALL_FN_W_W(r, fn, s);
	drd(DRD_POST_SEM_CLOSE, s, 0);
	return r;
}

static void s_wait_pre(sem_t *s)
{
	obj(s, sizeof *s);
	hg(_VG_USERREQ__HG_POSIX_SEM_WAIT_PRE, s, 0, 0);
	drd(DRD_PRE_SEM_WAIT, s, 0);
}

static int s_wait_post(sem_t *s, int r)
{
	drd(DRD_POST_SEM_WAIT, s, r == 0);
	hg(_VG_USERREQ__HG_POSIX_SEM_WAIT_POST, s, r == 0, 0);
	return r;
}

int W(sem_wait)(sem_t *s)
{
	int r;
	ORIG(fn);

	s_wait_pre(s);
	CALL_FN_W_W(r, fn, s);
	return s_wait_post(s, r);
}

int W(sem_trywait)(sem_t *s)
{
	int r;
	ORIG(fn);

	s_wait_pre(s);
	CALL_FN_W_W(r, fn, s);
	return s_wait_post(s, r);
}

int W(sem_timedwait)(sem_t *s, const struct timespec *t)
{
	int r;
	ORIG(fn);

	s_wait_pre(s);
	CALL_FN_W_WW(r, fn, s, t);
	return s_wait_post(s, r);
}

int W(sem_clockwait)(sem_t *s, clockid_t c, const struct timespec *t)
{
	int r;
	ORIG(fn);

	s_wait_pre(s);
	CALL_FN_W_WWW(r, fn, s, c, t);
	return s_wait_post(s, r);
}

int W(sem_post)(sem_t *s)
{
	int r;
	ORIG(fn);

	obj(s, sizeof *s);
	hg(_VG_USERREQ__HG_POSIX_SEM_POST_PRE, s, 0, 0);
	drd(DRD_PRE_SEM_POST, s, 0);
	CALL_FN_W_W(r, fn, s);
	drd(DRD_POST_SEM_POST, s, r == 0);
	hg(_VG_USERREQ__HG_POSIX_SEM_POST_POST, s, 0, 0);
	return r;
}

/* ---- barriers ---- */

int W(pthread_barrier_init)(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	int r;
	ORIG(fn);

	obj(b, sizeof *b);
	hg(_VG_USERREQ__HG_PTHREAD_BARRIER_INIT_PRE, b, n, 0);
	drd4(DRD_PRE_BARRIER_INIT, b, DRD_PTHREAD_BARRIER, n, 0);
	CALL_FN_W_WWW(r, fn, b, a, n);
	drd(DRD_POST_BARRIER_INIT, b, DRD_PTHREAD_BARRIER);
	return r;
}

int W(pthread_barrier_wait)(pthread_barrier_t *b)
{
	int r;
	ORIG(fn);

	obj(b, sizeof *b);
	hg(_VG_USERREQ__HG_PTHREAD_BARRIER_WAIT_PRE, b, 0, 0);
	drd(DRD_PRE_BARRIER_WAIT, b, DRD_PTHREAD_BARRIER);
	CALL_FN_W_W(r, fn, b);
	drd4(DRD_POST_BARRIER_WAIT, b, DRD_PTHREAD_BARRIER,
	     r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, r == PTHREAD_BARRIER_SERIAL_THREAD);
	return r;
}

int W(pthread_barrier_destroy)(pthread_barrier_t *b)
{
	int r;
	ORIG(fn);

	obj(b, sizeof *b);
	hg(_VG_USERREQ__HG_PTHREAD_BARRIER_DESTROY_PRE, b, 0, 0);
	drd(DRD_PRE_BARRIER_DESTROY, b, DRD_PTHREAD_BARRIER);
	CALL_FN_W_W(r, fn, b);
	drd(DRD_POST_BARRIER_DESTROY, b, DRD_PTHREAD_BARRIER);
	return r;
}

/* ---- once: the init routine's end happens before every return ---- */

static __thread void (*once_routine)(void);
static __thread pthread_once_t *once_obj;

static void once_trampoline(void)
{
	void (*f)(void) = once_routine;
	pthread_once_t *o = once_obj;

	f();
	hg(_VG_USERREQ__HG_USERSO_SEND_PRE, o, 0, 0);
	drd(VG_USERREQ__DRD_ANNOTATE_HAPPENS_BEFORE, o, 0);
}

int W(pthread_once)(pthread_once_t *o, void (*init)(void))
{
	void (*saved_f)(void);
	pthread_once_t *saved_o;
	int r;
	ORIG(fn);

	saved_f = once_routine;
	saved_o = once_obj;
	obj(o, sizeof *o);
	once_routine = init;
	once_obj = o;
	CALL_FN_W_WW(r, fn, o, once_trampoline);
	once_routine = saved_f; /* (an init routine may call pthread_once) */
	once_obj = saved_o;
	hg(_VG_USERREQ__HG_USERSO_RECV_POST, o, 0, 0);
	drd(VG_USERREQ__DRD_ANNOTATE_HAPPENS_AFTER, o, 0);
	return r;
}

/* ---- C11 <threads.h>: the same objects (thr_c11.c), thrd_* results ---- */

#define MX(m) ((pthread_mutex_t *)(m))
#define CX(c) ((pthread_cond_t *)(c))

int W(mtx_init)(mtx_t *m, int type)
{
	bool rec = type & mtx_recursive;
	int r;
	ORIG(fn);

	obj(m, sizeof *m);
	drd(DRD_PRE_MUTEX_INIT, m, rec ? DRD_RECURSIVE : DRD_DEFAULT);
	CALL_FN_W_WW(r, fn, m, type);
	drd(DRD_POST_MUTEX_INIT, m, 0);
	if (r == thrd_success)
		hg(_VG_USERREQ__HG_PTHREAD_MUTEX_INIT_POST, m, rec, 0);
	return r;
}

void W(mtx_destroy)(mtx_t *m)
{
	long kind;
	ORIG(fn);

	obj(m, sizeof *m);
	kind = drd_mutex_kind(MX(m));
	hg(_VG_USERREQ__HG_PTHREAD_MUTEX_DESTROY_PRE, m, 0, 0);
	drd(DRD_PRE_MUTEX_DESTROY, m, 0);
	CALL_FN_v_W(fn, m);
	drd(DRD_POST_MUTEX_DESTROY, m, kind);
}

static int mtx_take(OrigFn fn, mtx_t *m, const struct timespec *t, long try)
{
	int r;

	m_pre(MX(m), try);
	if (t)
		CALL_FN_W_WW(r, fn, m, t);
	else
		CALL_FN_W_W(r, fn, m);
	m_took(MX(m), r == thrd_success);
	return r;
}

int W(mtx_lock)(mtx_t *m)
{
	ORIG(fn);

	return mtx_take(fn, m, NULL, 0);
}

int W(mtx_trylock)(mtx_t *m)
{
	ORIG(fn);

	return mtx_take(fn, m, NULL, 1);
}

int W(mtx_timedlock)(mtx_t *m, const struct timespec *t)
{
	ORIG(fn);

	return mtx_take(fn, m, t, 0);
}

int W(mtx_unlock)(mtx_t *m)
{
	int r;
	ORIG(fn);

	m_unlock_pre(MX(m));
	CALL_FN_W_W(r, fn, m);
	m_unlock_post(MX(m));
	return r;
}

int W(cnd_init)(cnd_t *c)
{
	int r;
	ORIG(fn);

	obj(c, sizeof *c);
	drd(DRD_PRE_COND_INIT, c, 0);
	CALL_FN_W_W(r, fn, c);
	drd(DRD_POST_COND_INIT, c, 0);
	if (r == thrd_success)
		hg(_VG_USERREQ__HG_PTHREAD_COND_INIT_POST, c, 0, 0);
	return r;
}

void W(cnd_destroy)(cnd_t *c)
{
	ORIG(fn);

	obj(c, sizeof *c);
	hg(_VG_USERREQ__HG_PTHREAD_COND_DESTROY_PRE, c, 0, 0);
	drd(DRD_PRE_COND_DESTROY, c, 0);
	CALL_FN_v_W(fn, c);
	drd(DRD_POST_COND_DESTROY, c, 1);
}

static int cnd_wait_call(OrigFn fn, cnd_t *c, mtx_t *m, const struct timespec *t)
{
	bool valid = c_wait_pre(CX(c), MX(m));
	int r;

	if (t)
		CALL_FN_W_WWW(r, fn, c, m, t);
	else
		CALL_FN_W_WW(r, fn, c, m);
	c_wait_post("cnd_wait", CX(c), MX(m), valid,
		    r == thrd_success ? 0 : r == thrd_timedout ? ETIMEDOUT : EINVAL);
	return r;
}

int W(cnd_wait)(cnd_t *c, mtx_t *m)
{
	ORIG(fn);

	return cnd_wait_call(fn, c, m, NULL);
}

int W(cnd_timedwait)(cnd_t *c, mtx_t *m, const struct timespec *t)
{
	ORIG(fn);

	return cnd_wait_call(fn, c, m, t);
}

/* cnd_signal, cnd_broadcast and call_once need no wrapper: they call
 * fthr_cond_signal, fthr_cond_broadcast and fthr_once_entry, the very
 * addresses of pthread_cond_signal, pthread_cond_broadcast and
 * pthread_once, whose wrappers Valgrind's redirection (by address) runs
 * then. (A wrapper of its own would nest in that one.) */

#pragma GCC visibility pop
