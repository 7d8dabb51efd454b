/* lib/diag_watch.c: the watching variants diag_<impl> that the watched
 * entry points (FTHR_EXPORT_WATCHED, diag.h) call while a mode is on:
 * mutexes, rwlocks, condition variables, semaphores and their C11 forms.
 * Each hands the call to the plain function, and around it runs the checks
 * (diag_check.c), times a wait that blocks, and records what the call did:
 * an acquisition, a hold taken or given back (the object's owner, this
 * thread's held locks), an init, a destroy.
 */
#include "config.h"
#include <errno.h>
#include <semaphore.h>
#include <threads.h>
#include <time.h>
#include "diag_impl.h"
#include "futex.h"
#include "mutex.h"
#include "objects.h"

/* ---- what a call records ---- */

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

static void took(struct dobj *o, int how, void *pc, bool contended, long wait)
{
	struct dthread *t = fthr_diag_me();

	if (contended)
		fthr_diag_waited(o, wait);
	else
		__atomic_fetch_add(&o->acq, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&o->holds, 1, __ATOMIC_RELAXED);
	if (!t)
		return;
	if (how == H_WRITE && !fthr_diag_held_entry(t, o)) {
		o->owner = fthr_tid();
		if (profiling())
			o->t_acq = now_ns();
	}
	if (t->n < NHELD)
		t->h[t->n++] = (struct dheld){ o, how, pc };
}

static void released(struct dobj *o, struct dheld *h)
{
	struct dthread *t = fthr_self_rec.diag;
	int how;

	if (!h) {
		/* not this thread's hold (a misuse fthr_diag_check_release reported):
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
	if (how == H_WRITE && !fthr_diag_held_entry(t, o)) {
		if (profiling() && o->t_acq)
			fthr_diag_add_max(&o->hold_ns, &o->hold_max, now_ns() - o->t_acq);
		o->owner = 0;
	}
}

static void initialized(struct dobj *o)
{
	o->state = ST_INIT;
	o->gen++;
	o->owner = o->holds = o->waiters = 0;
	if (profiling()) {
		fthr_diag_capture(&o->site);
		o->site_kind = SITE_CREATED;
	}
}

/* After an init that succeeded (ok): the object's life starts. */
static void after_init(void *obj, int kind, bool ok)
{
	struct dobj *o;

	if (ok && enter()) {
		if ((o = fthr_diag_obj_of(obj, kind)))
			initialized(o);
		leave();
	}
}

/* Before a destroy, inside enter(): the object (or NULL), its misuse
 * checked ('what' names a destroy while in use). */
static struct dobj *before_destroy(void *obj, int kind, const char *what)
{
	struct dobj *o = fthr_diag_obj_of(obj, kind);

	if (o) {
		fthr_diag_check_use(o);
		fthr_diag_check_destroy(o, what);
	}
	return o;
}

/* After the destroy (r its result): the object's life ends; leave(). */
static int after_destroy(struct dobj *o, int r)
{
	if (r == 0 && o)
		fthr_diag_destroyed(o);
	leave();
	return r;
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
	o = fthr_diag_obj_of(m, D_MUTEX);
	if (!o || (op == OP_CLOCK && !fthr_futex_clock_ok(clk))) {
		leave();
		return mutex_call(m, op, clk, ts);
	}
	fthr_diag_check_use(o);
	if (op != OP_TRY)
		fthr_diag_check_acquire(o, H_WRITE, (m->__data.__kind & FTHR_MUTEX_KIND_MASK) ==
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
	fthr_diag_check_invalid(o, r);
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
	if (!(o = fthr_diag_obj_of(m, D_MUTEX))) {
		leave();
		return fthr_mutex_unlock(m);
	}
	fthr_diag_check_use(o);
	h = fthr_diag_check_release(o);
	r = fthr_mutex_unlock(m);
	if (r == 0)
		released(o, h);
	fthr_diag_check_invalid(o, r);
	leave();
	return r;
}

FTHR_HIDDEN int diag_fthr_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a)
{
	int r = fthr_mutex_init(m, a);

	after_init(m, D_MUTEX, r == 0);
	return r;
}

FTHR_HIDDEN int diag_fthr_mutex_destroy(pthread_mutex_t *m)
{
	struct dobj *o;

	if (!enter())
		return fthr_mutex_destroy(m);
	o = before_destroy(m, D_MUTEX, "destroy of a locked or waited-on mutex");
	return after_destroy(o, fthr_mutex_destroy(m));
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
	o = fthr_diag_obj_of(l, D_RWLOCK);
	if (!o || (op == OP_CLOCK && !fthr_futex_clock_ok(clk))) {
		leave();
		return rw_call(l, how, op, clk, ts);
	}
	fthr_diag_check_use(o);
	if (op != OP_TRY)
		fthr_diag_check_acquire(o, how, false);
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
	if (!(o = fthr_diag_obj_of(l, D_RWLOCK))) {
		leave();
		return fthr_rwlock_unlock(l);
	}
	fthr_diag_check_use(o);
	h = fthr_diag_check_release(o);
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

	after_init(l, D_RWLOCK, r == 0);
	return r;
}

FTHR_HIDDEN int diag_fthr_rwlock_destroy(pthread_rwlock_t *l)
{
	struct dobj *o;

	if (!enter())
		return fthr_rwlock_destroy(l);
	o = before_destroy(l, D_RWLOCK, "destroy of a locked or waited-on rwlock");
	return after_destroy(o, fthr_rwlock_destroy(l));
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
	oc = fthr_diag_obj_of(c, D_COND);
	om = fthr_diag_obj_of(m, D_MUTEX);
	if (!oc || !om) {
		leave();
		return COND_CALL;
	}
	fthr_diag_check_use(oc);
	fthr_diag_check_use(om);
	t = fthr_diag_me();
	h = t ? fthr_diag_held_entry(t, om) : NULL;
	fthr_diag_check_wait(oc, om, m, t && !h);
	oc->cond_mutex = m;
	__atomic_fetch_add(&oc->waiters, 1, __ATOMIC_RELAXED);
	if (h)
		released(om, h);
	t0 = now_ns();
	leave();
	r = COND_CALL;
	enter();
	__atomic_fetch_sub(&oc->waiters, 1, __ATOMIC_RELAXED);
	fthr_diag_waited(oc, now_ns() - t0);
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

	after_init(c, D_COND, r == 0);
	return r;
}

FTHR_HIDDEN int diag_fthr_cond_destroy(pthread_cond_t *c)
{
	struct dobj *o;

	if (!enter())
		return fthr_cond_destroy(c);
	o = before_destroy(c, D_COND, "destroy of a condition variable with waiters");
	return after_destroy(o, fthr_cond_destroy(c));
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
	if (!(o = fthr_diag_obj_of(s, D_SEM))) {
		leave();
		return SEM_CALL;
	}
	fthr_diag_check_use(o);
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
		fthr_diag_waited(o, now_ns() - t0);
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

	after_init(s, D_SEM, r == 0);
	errno = e;
	return r;
}

FTHR_HIDDEN int diag_fthr_sem_destroy(sem_t *s)
{
	struct dobj *o;
	int r, e;

	if (!enter())
		return fthr_sem_destroy(s);
	o = before_destroy(s, D_SEM, "destroy of a semaphore with waiters");
	r = fthr_sem_destroy(s);
	e = errno;
	after_destroy(o, r);
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

	after_init(m, D_MUTEX, r == thrd_success);
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
