/* tests/difftest.c: differential testing against glibc (#17).
 *
 * One program, compiled against the system headers, in three runs:
 * tests/difftest_plain on plain glibc, the same binary with libfthr
 * preloaded, and tests/difftest linked with -lfthr. For a seed it generates
 * a sequence of calls over a small pool of objects of every kind fthr
 * implements (attributes with valid and invalid values, every lock, wait,
 * post and destroy call, deadlines past, zero, malformed, near and far on
 * every clock id, keys and destructors, once, named semaphores and their
 * files under /dev/shm, the C11 calls) and prints one line per call: what
 * was called and what came back (return value, errno where the call sets
 * it, getter values, the identity of pointers). Even seeds make no thread;
 * on odd seeds a helper thread takes and
 * releases objects at scripted points (the harness hands it each step and
 * waits for it: no timing), and scripted short-lived threads die holding
 * mutexes, wait on condition variables and barriers, and run key
 * destructors, so contended results (EBUSY, ETIMEDOUT, EDEADLK, EPERM,
 * EOWNERDEAD, ENOTRECOVERABLE) are compared too.
 *
 * Calls that would block for ever on glibc (a relock of a normal mutex, a
 * wait on an empty semaphore) are not made: the executor keeps its own
 * account of every object, from the results it has seen, and turns such a
 * call into its try or near-deadline form (the line says so). Before the
 * first difference both runs have seen the same results, so they make the
 * same choices. An object misused in a way after which glibc's own state
 * is corrupt (man/fthr.7, "Results where POSIX leaves them undefined") is
 * only initialized again before further use.
 *
 *   difftest run FIRST COUNT [LEN]     the transcripts of seeds FIRST..
 *   difftest one SEED LEN KEEP         one seed, only the calls whose
 *                                      indices KEEP lists ("0,3,7")
 *   difftest_plain drive COUNT [FIRST] [LEN]
 *                                      run the three and compare; on a
 *                                      difference shrink the sequence to the
 *                                      shortest one that still shows it and
 *                                      print both transcripts; check that
 *                                      every function was called; exit 1 on
 *                                      any difference
 * The driver's environment: FTHR_LIB the library, DIFFTEST_LINKED the
 * linked binary, DIFFTEST_ONLY=preload|linked one of the two fthr runs,
 * DIFFTEST_PLANT a library preloaded in front of fthr in its runs (the
 * planted difference of tests/difftest.sh); for another arch under an
 * emulator (scripts/aarch64-check): DIFFTEST_QEMU the emulator,
 * DIFFTEST_BIN the plain binary, DIFFTEST_LINKED_ENV one VAR=value for the
 * linked run, and DIFFTEST_NO_ROBUST_DEATH (the runs' too) when the
 * emulator has no robust lists.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- output */

static char line[512];
static size_t linelen;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(line + linelen, sizeof line - linelen, fmt, ap);
	va_end(ap);
	if (n > 0)
		linelen += (size_t)n < sizeof line - linelen ? (size_t)n : sizeof line - linelen - 1;
}

/* each line goes out with write(2) at once: a run that hangs or crashes
 * still shows the call it was in */
static void endline(void)
{
	if (linelen < sizeof line - 1)
		line[linelen++] = '\n';
	ssize_t w = write(1, line, linelen);
	(void)w;
	linelen = 0;
}

static const char *ename(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EAGAIN: return "EAGAIN";
	case EDEADLK: return "EDEADLK";
	case EPERM: return "EPERM";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case ENOTSUP: return "ENOTSUP";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EACCES: return "EACCES";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOMEM: return "ENOMEM";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	}
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}

/* a call that returns an error number */
static int rc(int r) { out(" = %s", ename(r)); return r; }
/* a call that returns -1 and sets errno: errno is shown only then (the
 * caller reads errno after the call, never in the same argument list) */
static int rce(int r, int e) { if (r == 0) out(" = 0"); else out(" = %d errno %s", r, ename(e)); return r; }
static const char *c11(int r)
{
	switch (r) {
	case thrd_success: return "thrd_success";
	case thrd_busy: return "thrd_busy";
	case thrd_error: return "thrd_error";
	case thrd_nomem: return "thrd_nomem";
	case thrd_timedout: return "thrd_timedout";
	}
	return "thrd_?";
}

/* ---------------------------------------------------------------- random */

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 33) % n;
}

/* ---------------------------------------------------------------- time */

/* deadline variants: 0 past, 1 zero, 2 tv_nsec -1, 3 tv_nsec 1e9, 4 near
 * (now + 300 us), 5 far (now + 1000 s), 6 negative tv_sec */
enum { DL_PAST, DL_ZERO, DL_NEG_NSEC, DL_BIG_NSEC, DL_NEAR, DL_FAR, DL_NEG_SEC, DL_N };
static const char *dl_name[] = { "past", "zero", "nsec=-1", "nsec=1e9", "near", "far", "sec<0" };
/* clock variants */
static const clockid_t clk[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, (clockid_t)99 };
static const char *clk_name[] = { "REALTIME", "MONOTONIC", "CPUTIME", "99" };

static struct timespec deadline(int v, clockid_t c)
{
	struct timespec t;

	if (c != CLOCK_REALTIME && c != CLOCK_MONOTONIC)
		c = CLOCK_REALTIME;
	clock_gettime(c, &t);
	switch (v) {
	case DL_PAST: t.tv_sec -= 1; break;
	case DL_ZERO: t.tv_sec = 0; t.tv_nsec = 0; break;
	case DL_NEG_NSEC: t.tv_nsec = -1; break;
	case DL_BIG_NSEC: t.tv_nsec = 1000000000; break;
	case DL_NEAR:
		t.tv_nsec += 300000;
		if (t.tv_nsec >= 1000000000) { t.tv_sec++; t.tv_nsec -= 1000000000; }
		break;
	case DL_FAR: t.tv_sec += 1000; break;
	case DL_NEG_SEC: t.tv_sec = -5; t.tv_nsec = 0; break;
	}
	return t;
}

/* a deadline that must not block for ever: far becomes near */
static int safe_dl(int v, int may_block) { return (v == DL_FAR && may_block) ? DL_NEAR : v; }

/* ---------------------------------------------------------------- old names */

/* The _np calls <pthread.h> does not declare (the mutex kind) or declares as
 * the new name (the robust ones): the symbols themselves, bound by the
 * dynamic linker at glibc's versions, as a binary built against older
 * headers binds them (a dlvsym lookup would skip fthr's unversioned
 * definitions: #18) */
#if defined(__x86_64__)
#define V_KIND "GLIBC_2.2.5"
#define V_ROBUST "GLIBC_2.4"
#elif defined(__aarch64__) || (defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define V_KIND "GLIBC_2.17"
#define V_ROBUST "GLIBC_2.17"
#elif defined(__s390x__)
#define V_KIND "GLIBC_2.2"
#define V_ROBUST "GLIBC_2.4"
#endif
#ifdef V_KIND
int old_setkind_np(pthread_mutexattr_t *, int);
int old_getkind_np(const pthread_mutexattr_t *, int *);
int old_setrobust_np(pthread_mutexattr_t *, int);
int old_getrobust_np(const pthread_mutexattr_t *, int *);
int old_consistent_np(pthread_mutex_t *);
__asm__(".symver old_setkind_np, pthread_mutexattr_setkind_np@" V_KIND);
__asm__(".symver old_getkind_np, pthread_mutexattr_getkind_np@" V_KIND);
__asm__(".symver old_setrobust_np, pthread_mutexattr_setrobust_np@" V_ROBUST);
__asm__(".symver old_getrobust_np, pthread_mutexattr_getrobust_np@" V_ROBUST);
__asm__(".symver old_consistent_np, pthread_mutex_consistent_np@" V_ROBUST);
#define p_setkind_np old_setkind_np
#define p_getkind_np old_getkind_np
#define p_setrobust_np old_setrobust_np
#define p_getrobust_np old_getrobust_np
#define p_consistent_np old_consistent_np
#else
#define p_setkind_np pthread_mutexattr_settype
#define p_getkind_np pthread_mutexattr_gettype
#define p_setrobust_np pthread_mutexattr_setrobust
#define p_getrobust_np pthread_mutexattr_getrobust
#define p_consistent_np pthread_mutex_consistent
#endif

/* ---------------------------------------------------------------- the pool */

enum { OWN_NONE, OWN_MAIN, OWN_HELPER, OWN_DEAD };
enum { T_NORMAL, T_RECURSIVE, T_ERRORCHECK, T_ADAPTIVE };
#define NM 3	/* mutexes */
#define NC 2	/* condition variables */
#define NR 2	/* rwlocks */
#define NSP 2	/* spin locks */
#define NB 2	/* barriers */
#define NS 2	/* unnamed semaphores */
#define NH 3	/* named-semaphore handles */
#define NNAME 6	/* names for them */
#define NK 3	/* keys */
#define NTS 2	/* C11 tss */
#define NO 2	/* once controls (and C11 once flags) */
#define NX 2	/* C11 mutexes */

static struct { int live, type, robust, proto, pshared, ceil; } mattr;
static pthread_mutexattr_t ma;
static struct { int live, clock; } cattr;
static pthread_condattr_t ca;
static struct { int live; } rattr, battr;
static pthread_rwlockattr_t ra;
static pthread_barrierattr_t ba;

static pthread_mutex_t mx[NM];
static struct mxs {
	int live, taint, type, robust, proto;
	int owner, depth, incons, notrec;
} ms[NM];
static pthread_cond_t cv[NC];
static struct { int live, clock; } cs[NC];	/* clock: an index of clk[] */
static pthread_rwlock_t rw[NR];
/* rd, wr: the main thread's; hrd, hwr: the helper's; xrd, xwr: threads' that
 * exited holding them */
static struct rws { int live, taint, rd, wr, hrd, hwr, xrd, xwr; } rs[NR];
static pthread_spinlock_t sp[NSP];
static struct { int live, owner; } sps[NSP];
static pthread_barrier_t br[NB];
static struct { int live; unsigned count; } bs[NB];
static sem_t sm[NS];
static struct { int live; unsigned val; } ss[NS];
static sem_t *nh[NH];
static struct { int open; unsigned val; int name; } nhs[NH];
static char names[NNAME][300];
static pthread_key_t key[NK];
static struct { int live, dtor; } ks[NK];
static pthread_key_t stale_key;
static int stale_ok;
static tss_t tss[NTS];
static struct { int live, dtor; } ts[NTS];
static pthread_once_t once[NO];
static once_flag c11once[NO];
static int once_runs[NO], c11once_runs[NO];
static mtx_t xm[NX];
static struct { int live, taint, rec, owner, depth; } xs[NX];
static cnd_t xc;
static int xc_live;
static int vals[8];	/* the values keys and tss hold: &vals[i] */
static atomic_int dtor_calls[NK + NTS];
static int dtor_kind[NK + NTS];
static int main_pp_failed, helper_pp_failed;
static int one_thread;	/* this sequence makes no thread */
/* DIFFTEST_NO_ROBUST_DEATH: no thread dies holding a robust mutex (qemu-user
 * has no robust lists: the kernel would never mark the mutex) */
static int no_robust_death;

static void once_fn0(void) { once_runs[0]++; }
static void once_fn1(void) { once_runs[1]++; }
static void c11once_fn0(void) { c11once_runs[0]++; }
static void c11once_fn1(void) { c11once_runs[1]++; }
static void (*const once_fn[NO])(void) = { once_fn0, once_fn1 };
static void (*const c11once_fn[NO])(void) = { c11once_fn0, c11once_fn1 };

/* destructor kinds: 0 none, 1 count, 2 count and set the value again twice,
 * 3 count and set it again always (glibc gives up after
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds) */
static void dtor(void *v)
{
	int slot = (int)((int *)v - vals);

	if (slot < 0 || slot >= NK + NTS)
		return;
	int n = atomic_fetch_add(&dtor_calls[slot], 1) + 1;
	if (dtor_kind[slot] == 3 || (dtor_kind[slot] == 2 && n < 3)) {
		if (slot < NK)
			pthread_setspecific(key[slot], v);
		else
			tss_set(tss[slot - NK], v);
	}
}

static void show_ptr(const void *p)
{
	if (p == NULL)
		out(" -> NULL");
	else if ((const int *)p >= vals && (const int *)p < vals + 8)
		out(" -> v%d", (int)((const int *)p - vals));
	else
		out(" -> other");
}

/* could a lock of mutex i by the thread `who' block for ever? */
static int m_blocks(int i, int who)
{
	struct mxs *s = &ms[i];

	if (s->notrec || s->owner == OWN_NONE)
		return 0;
	if (s->owner == OWN_DEAD)
		return !s->robust;	/* robust: EOWNERDEAD at once */
	if (s->owner == who)
		return !(s->type == T_RECURSIVE || s->type == T_ERRORCHECK);
	return 1;
}

static void m_locked(int i, int who, int r)
{
	struct mxs *s = &ms[i];

	if (r == 0) {
		if (s->owner == who)
			s->depth++;
		else
			s->owner = who, s->depth = 1;
	} else if (r == EOWNERDEAD) {
		s->owner = who, s->depth = 1, s->incons = 1;
	} else if (r == EINVAL && s->proto == 2) {
		if (who == OWN_MAIN) main_pp_failed = 1; else helper_pp_failed = 1;
	}
}

/* A trylock: as a lock, but glibc's trylock that answers ENOTRECOVERABLE
 * leaves the mutex locked by the caller (it never gives the word back:
 * later locks block, or get EDEADLK, or 0 for a recursive one; fthr keeps
 * answering ENOTRECOVERABLE, as POSIX says: fthr(7)): only re-initialized
 * after that. */
static void m_tried(int i, int who, int r)
{
	m_locked(i, who, r);
	if (r == ENOTRECOVERABLE)
		ms[i].taint = 1;
}

static void m_unlocked(int i, int who, int r)
{
	struct mxs *s = &ms[i];

	if (r != 0)
		return;
	if (s->owner == who) {
		if (--s->depth == 0) {
			s->owner = OWN_NONE;
			if (s->incons)
				s->notrec = 1, s->incons = 0;
		}
	} else {
		s->taint = 1;	/* glibc's count of users is now off */
	}
}

/* The unlock of a normal or adaptive priority-protect mutex the thread
 * does not hold: glibc returns 0 but its count of the thread's ceilings is
 * off for good after it (fthr(7)): not made. */
static int pp_stray_unlock(int i, int who)
{
	return ms[i].proto == 2 && ms[i].owner != who &&
	       (ms[i].type == T_NORMAL || ms[i].type == T_ADAPTIVE);
}

/* a mutex a call may be made on: live, not tainted; for a priority-protect
 * one, not by a thread whose earlier PP lock failed (glibc counts the
 * failed ceiling: fthr(7)) */
static int m_usable(int i, int who)
{
	if (!ms[i].live || ms[i].taint)
		return 0;
	if (ms[i].proto == 2 && (who == OWN_MAIN ? main_pp_failed : helper_pp_failed))
		return 0;
	return 1;
}

static int r_rd_blocks(int i, int who)
{
	return rs[i].xwr || (who == OWN_MAIN ? rs[i].hwr : rs[i].wr);
}

static int r_wr_blocks(int i, int who)
{
	struct rws *s = &rs[i];

	if (who == OWN_MAIN)
		return !s->wr && (s->rd || s->hrd || s->hwr || s->xrd || s->xwr);
	return !s->hwr && (s->rd || s->hrd || s->wr || s->xrd || s->xwr);
}

/* ---------------------------------------------------------------- threads */

/* the helper: one thread that runs one call at a time for the executor,
 * handed over through h_cmd (1: a call waits, 2: done); it never blocks
 * for ever, since the executor picks the try form where the call could */
enum { HC_MLOCK, HC_MTRYLOCK, HC_MUNLOCK, HC_RDLOCK, HC_TRYRDLOCK, HC_WRLOCK, HC_TRYWRLOCK,
       HC_RWUNLOCK, HC_SPINLOCK, HC_SPINTRYLOCK, HC_SPINUNLOCK, HC_EXIT };
static pthread_t helper;
static int helper_up;
static atomic_int h_cmd;
static int h_op, h_obj, h_ret;

static void *helper_main(void *arg)
{
	(void)arg;
	for (;;) {
		while (atomic_load(&h_cmd) != 1)
			sched_yield();
		int i = h_obj, r = 0;
		switch (h_op) {
		case HC_MLOCK: r = pthread_mutex_lock(&mx[i]); break;
		case HC_MTRYLOCK: r = pthread_mutex_trylock(&mx[i]); break;
		case HC_MUNLOCK: r = pthread_mutex_unlock(&mx[i]); break;
		case HC_RDLOCK: r = pthread_rwlock_rdlock(&rw[i]); break;
		case HC_TRYRDLOCK: r = pthread_rwlock_tryrdlock(&rw[i]); break;
		case HC_WRLOCK: r = pthread_rwlock_wrlock(&rw[i]); break;
		case HC_TRYWRLOCK: r = pthread_rwlock_trywrlock(&rw[i]); break;
		case HC_RWUNLOCK: r = pthread_rwlock_unlock(&rw[i]); break;
		case HC_SPINLOCK: r = pthread_spin_lock(&sp[i]); break;
		case HC_SPINTRYLOCK: r = pthread_spin_trylock(&sp[i]); break;
		case HC_SPINUNLOCK: r = pthread_spin_unlock(&sp[i]); break;
		case HC_EXIT:
			atomic_store(&h_cmd, 2);
			return NULL;	/* holding what it holds */
		}
		h_ret = r;
		atomic_store(&h_cmd, 2);
	}
}

static int helper_call(int op, int obj)
{
	if (!helper_up) {
		helper_pp_failed = 0;
		if (pthread_create(&helper, NULL, helper_main, NULL) != 0) {
			out(" helper: pthread_create failed");
			return -1;
		}
		helper_up = 1;
	}
	h_op = op, h_obj = obj;
	atomic_store(&h_cmd, 1);
	while (atomic_load(&h_cmd) != 2)
		sched_yield();
	atomic_store(&h_cmd, 0);
	if (op == HC_EXIT) {
		pthread_join(helper, NULL);
		helper_up = 0;
		for (int i = 0; i < NM; i++)
			if (ms[i].owner == OWN_HELPER)
				ms[i].owner = OWN_DEAD, ms[i].incons = 0;
		for (int i = 0; i < NR; i++) {
			rs[i].xrd += rs[i].hrd, rs[i].xwr |= rs[i].hwr;
			rs[i].hrd = rs[i].hwr = 0;
		}
		for (int i = 0; i < NSP; i++)
			if (sps[i].owner == OWN_HELPER)
				sps[i].owner = OWN_DEAD;
		return 0;
	}
	return h_ret;
}

/* short-lived threads for one step each */
static atomic_int ready;
static int t_obj, t_obj2, t_var, t_ret, t_ret2;

static void *die_holding(void *arg)
{
	(void)arg;
	t_ret = pthread_mutex_lock(&mx[t_obj]);
	return NULL;	/* exits holding it */
}

/* a condition waiter: var 0 pthread_cond_wait, 1 timedwait far,
 * 2 clockwait far on CLOCK_MONOTONIC */
static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_t *m = &mx[t_obj2];
	int r = pthread_mutex_lock(m);

	if (r != 0 && r != EOWNERDEAD) {
		t_ret = r;
		atomic_store(&ready, -1);
		return NULL;
	}
	atomic_store(&ready, 1);
	if (t_var == 0) {
		t_ret = pthread_cond_wait(&cv[t_obj], m);
	} else {
		struct timespec d = deadline(DL_FAR, t_var == 1 ? clk[cs[t_obj].clock] : CLOCK_MONOTONIC);
		t_ret = t_var == 1 ? pthread_cond_timedwait(&cv[t_obj], m, &d)
				   : pthread_cond_clockwait(&cv[t_obj], m, CLOCK_MONOTONIC, &d);
	}
	t_ret2 = pthread_mutex_unlock(m);
	return NULL;
}

static void unlock_cleanup(void *m) { pthread_mutex_unlock(m); }
static void *cancelled_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_t *m = &mx[t_obj2];

	if (pthread_mutex_lock(m) != 0) {
		atomic_store(&ready, -1);
		return NULL;
	}
	pthread_cleanup_push(unlock_cleanup, m);
	atomic_store(&ready, 1);
	for (;;)
		pthread_cond_wait(&cv[t_obj], m);
	pthread_cleanup_pop(1);
	return NULL;
}

static void *barrier_waiter(void *arg)
{
	(void)arg;
	t_ret = pthread_barrier_wait(&br[t_obj]);
	return NULL;
}

/* var 0 sem_wait, 1 sem_timedwait far, 2 sem_clockwait far */
static void *sem_waiter(void *arg)
{
	(void)arg;
	struct timespec d = deadline(DL_FAR, t_var == 2 ? CLOCK_MONOTONIC : CLOCK_REALTIME);
	int r;

	atomic_store(&ready, 1);
	if (t_var == 0)
		r = sem_wait(&sm[t_obj]);
	else if (t_var == 1)
		r = sem_timedwait(&sm[t_obj], &d);
	else
		r = sem_clockwait(&sm[t_obj], CLOCK_MONOTONIC, &d);
	t_ret = r == 0 ? 0 : errno;
	return NULL;
}

static void *c11_waiter(void *arg)
{
	(void)arg;
	int r = mtx_lock(&xm[t_obj2]);

	if (r != thrd_success) {
		t_ret = r;
		atomic_store(&ready, -1);
		return NULL;
	}
	atomic_store(&ready, 1);
	t_ret = cnd_wait(&xc, &xm[t_obj2]);
	t_ret2 = mtx_unlock(&xm[t_obj2]);
	return NULL;
}

/* sets every live key and tss to its slot's value, then exits: the
 * destructors run */
static void *key_setter(void *arg)
{
	(void)arg;
	for (int i = 0; i < NK; i++)
		if (ks[i].live)
			pthread_setspecific(key[i], &vals[i]);
	for (int i = 0; i < NTS; i++)
		if (ts[i].live)
			tss_set(tss[i], &vals[NK + i]);
	return NULL;
}

static int run_thread(void *(*fn)(void *), pthread_t *t)
{
	atomic_store(&ready, 0);
	t_ret = t_ret2 = -1;
	return pthread_create(t, NULL, fn, NULL);
}

static int wait_ready(void)
{
	int r;

	while ((r = atomic_load(&ready)) == 0)
		sched_yield();
	return r;
}

/* ---------------------------------------------------------------- calls */

enum op {
	/* mutex attributes */
	MA_INIT, MA_DESTROY, MA_SETTYPE, MA_GETTYPE, MA_SETKIND_NP, MA_GETKIND_NP,
	MA_SETPSHARED, MA_GETPSHARED, MA_SETPROTOCOL, MA_GETPROTOCOL, MA_SETCEIL,
	MA_GETCEIL, MA_SETROBUST, MA_GETROBUST, MA_SETROBUST_NP, MA_GETROBUST_NP,
	MA_ROBUST_ON,
	/* mutexes */
	M_INIT, M_INIT_A, M_INIT_ROBUST, M_DESTROY, M_LOCK, M_LOCK2, M_TRYLOCK, M_TIMEDLOCK, M_CLOCKLOCK,
	M_UNLOCK, M_UNLOCK2, M_CONSISTENT, M_CONSISTENT_NP, M_GETCEIL, M_SETCEIL,
	/* condition variables */
	CA_INIT, CA_DESTROY, CA_SETPSHARED, CA_GETPSHARED, CA_SETCLOCK, CA_GETCLOCK,
	C_INIT, C_DESTROY, C_SIGNAL, C_BROADCAST, C_TIMEDWAIT, C_CLOCKWAIT, C_PAIR,
	C_CANCEL,
	/* rwlocks */
	RA_INIT, RA_DESTROY, RA_SETPSHARED, RA_GETPSHARED, RA_SETKIND, RA_GETKIND,
	R_INIT, R_DESTROY, R_RDLOCK, R_TRYRDLOCK, R_TIMEDRDLOCK, R_CLOCKRDLOCK,
	R_WRLOCK, R_TRYWRLOCK, R_TIMEDWRLOCK, R_CLOCKWRLOCK, R_UNLOCK,
	/* spin locks, barriers */
	S_INIT, S_DESTROY, S_LOCK, S_TRYLOCK, S_UNLOCK,
	BA_INIT, BA_DESTROY, BA_SETPSHARED, BA_GETPSHARED, B_INIT, B_DESTROY, B_WAIT,
	/* semaphores */
	SE_INIT, SE_DESTROY, SE_WAIT, SE_TRYWAIT, SE_TIMEDWAIT, SE_CLOCKWAIT,
	SE_POST, SE_GETVALUE, SE_PAIR,
	N_OPEN, N_CLOSE, N_UNLINK, N_POST, N_TRYWAIT, N_GETVALUE, N_LS,
	/* keys, once */
	K_CREATE, K_DELETE, K_GET, K_SET, K_THREAD, O_ONCE, O_REINIT,
	/* C11 */
	X_MTX_INIT, X_MTX_LOCK, X_MTX_TRYLOCK, X_MTX_TIMEDLOCK, X_MTX_UNLOCK,
	X_MTX_DESTROY, X_CND_INIT, X_CND_SIGNAL, X_CND_BROADCAST, X_CND_TIMEDWAIT,
	X_CND_PAIR, X_CND_DESTROY, X_TSS_CREATE, X_TSS_GET, X_TSS_SET,
	X_TSS_DELETE, X_CALL_ONCE, X_ONCE_REINIT,
	/* the helper thread and threads that die */
	H_MLOCK, H_MUNLOCK, H_RDLOCK, H_WRLOCK, H_RWUNLOCK, H_SPINLOCK,
	H_SPINUNLOCK, H_EXIT, T_DIE_HOLDING,
	N_OPS
};

static const int mtype[] = { PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_RECURSIVE,
			     PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_ADAPTIVE_NP, 7 };
static const int pshared_v[] = { PTHREAD_PROCESS_PRIVATE, PTHREAD_PROCESS_SHARED, 5 };
static const int proto_v[] = { PTHREAD_PRIO_NONE, PTHREAD_PRIO_INHERIT, PTHREAD_PRIO_PROTECT, 9 };
static const int ceil_v[] = { 0, 1, 50, 99, 100 };
static const int robust_v[] = { PTHREAD_MUTEX_STALLED, PTHREAD_MUTEX_ROBUST, 4 };
static const int rwkind_v[] = { PTHREAD_RWLOCK_PREFER_READER_NP, PTHREAD_RWLOCK_PREFER_WRITER_NP,
				PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, 3, 9 };
static const unsigned bcount_v[] = { 0, 1, 2, INT_MAX, (unsigned)INT_MAX + 1 };
static const unsigned semval_v[] = { 0, 1, 2, SEM_VALUE_MAX, (unsigned)SEM_VALUE_MAX + 1 };
static const int c11type_v[] = { mtx_plain, mtx_timed, mtx_plain | mtx_recursive,
				 mtx_timed | mtx_recursive, 98 };
static const pthread_mutex_t mstatic[4] = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
	PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP, PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
};

static const pthread_cond_t cstatic = PTHREAD_COND_INITIALIZER;

static void m_from_attr(int i, int with_attr, int type)
{
	struct mxs *s = &ms[i];

	memset(s, 0, sizeof *s);
	s->live = 1;
	s->type = type;
	if (with_attr) {
		s->type = mattr.type;
		s->robust = mattr.robust;
		s->proto = mattr.proto;
	}
}

static void show_int(int r, int v) { rc(r); if (r == 0) out(" value %d", v); }

/* one call: op, object, variant (obj and var are reduced per op) */
static void step(int idx, int op, unsigned obj, unsigned var)
{
	int r, v = 0, m, i;
	struct timespec d;
	pthread_t t;
	void *res;

#define SAY(...) (out("%d ", idx), out(__VA_ARGS__))
	switch (op) {
	/* -------- mutex attributes */
	case MA_INIT:
		SAY("pthread_mutexattr_init");
		if (rc(pthread_mutexattr_init(&ma)) == 0)
			memset(&mattr, 0, sizeof mattr), mattr.live = 1;
		break;
	case MA_DESTROY:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_destroy");
		if (rc(pthread_mutexattr_destroy(&ma)) == 0) mattr.live = 0;
		break;
	case MA_SETTYPE: case MA_SETKIND_NP:
		if (!mattr.live) return;
		i = var % 5;
		if (op == MA_SETTYPE) {
			SAY("pthread_mutexattr_settype %d", mtype[i]);
			r = rc(pthread_mutexattr_settype(&ma, mtype[i]));
		} else {
			SAY("pthread_mutexattr_setkind_np %d", mtype[i]);
			r = rc(p_setkind_np(&ma, mtype[i]));
		}
		if (r == 0) mattr.type = i;
		break;
	case MA_GETTYPE:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_gettype");
		r = pthread_mutexattr_gettype(&ma, &v); show_int(r, v);
		break;
	case MA_GETKIND_NP:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getkind_np");
		r = p_getkind_np(&ma, &v); show_int(r, v);
		break;
	case MA_SETPSHARED:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_setpshared %d", pshared_v[var % 3]);
		rc(pthread_mutexattr_setpshared(&ma, pshared_v[var % 3]));
		break;
	case MA_GETPSHARED:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getpshared");
		r = pthread_mutexattr_getpshared(&ma, &v); show_int(r, v);
		break;
	case MA_SETPROTOCOL:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_setprotocol %d", proto_v[var % 4]);
		if (rc(pthread_mutexattr_setprotocol(&ma, proto_v[var % 4])) == 0)
			mattr.proto = (int)(var % 4);
		break;
	case MA_GETPROTOCOL:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getprotocol");
		r = pthread_mutexattr_getprotocol(&ma, &v); show_int(r, v);
		break;
	case MA_SETCEIL:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_setprioceiling %d", ceil_v[var % 5]);
		rc(pthread_mutexattr_setprioceiling(&ma, ceil_v[var % 5]));
		break;
	case MA_GETCEIL:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getprioceiling");
		r = pthread_mutexattr_getprioceiling(&ma, &v); show_int(r, v);
		break;
	case MA_SETROBUST: case MA_SETROBUST_NP: case MA_ROBUST_ON:
		if (!mattr.live) return;
		if (op == MA_ROBUST_ON)
			var = 1;	/* PTHREAD_MUTEX_ROBUST */
		if (op != MA_SETROBUST_NP) {
			SAY("pthread_mutexattr_setrobust %d", robust_v[var % 3]);
			r = rc(pthread_mutexattr_setrobust(&ma, robust_v[var % 3]));
		} else {
			SAY("pthread_mutexattr_setrobust_np %d", robust_v[var % 3]);
			r = rc(p_setrobust_np(&ma, robust_v[var % 3]));
		}
		if (r == 0) mattr.robust = (int)(var % 3 == 1);
		break;
	case MA_GETROBUST:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getrobust");
		r = pthread_mutexattr_getrobust(&ma, &v); show_int(r, v);
		break;
	case MA_GETROBUST_NP:
		if (!mattr.live) return;
		SAY("pthread_mutexattr_getrobust_np");
		r = p_getrobust_np(&ma, &v); show_int(r, v);
		break;

	/* -------- mutexes */
	case M_INIT: case M_INIT_A:
		m = obj % NM;
		if (ms[m].live && (ms[m].owner == OWN_MAIN || ms[m].owner == OWN_HELPER))
			return;	/* re-init of a held mutex: undefined */
		i = op == M_INIT_A ? 1 : (int)(var % 6);
		if (i >= 2) {
			SAY("static %s m%d", i == 2 ? "PTHREAD_MUTEX_INITIALIZER" :
			    i == 3 ? "PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP" :
			    i == 4 ? "PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP" :
			    "PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP", m);
			memcpy(&mx[m], &mstatic[i - 2], sizeof mx[m]);
			m_from_attr(m, 0, i - 2);
			break;
		}
		if (i == 1 && !mattr.live)
			i = 0;
		SAY("pthread_mutex_init m%d %s", m, i ? "attr" : "NULL");
		if (rc(pthread_mutex_init(&mx[m], i ? &ma : NULL)) == 0)
			m_from_attr(m, i, T_NORMAL);
		break;
	case M_INIT_ROBUST:
		/* the attribute calls and the init in one step: a robust
		 * mutex of type var % 4 */
		m = obj % NM;
		if (ms[m].live && (ms[m].owner == OWN_MAIN || ms[m].owner == OWN_HELPER))
			return;
		SAY("pthread_mutexattr_init, settype %d, setrobust 1, pthread_mutex_init m%d",
		    mtype[var % 4], m);
		r = pthread_mutexattr_init(&ma);
		out(" = %s", ename(r));
		if (r != 0)
			break;
		memset(&mattr, 0, sizeof mattr), mattr.live = 1;
		if ((r = pthread_mutexattr_settype(&ma, mtype[var % 4])) == 0)
			mattr.type = (int)(var % 4);
		out(" %s", ename(r));
		if ((r = pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST)) == 0)
			mattr.robust = 1;
		out(" %s", ename(r));
		r = pthread_mutex_init(&mx[m], &ma);
		out(" %s", ename(r));
		if (r == 0)
			m_from_attr(m, 1, T_NORMAL);
		break;
	case M_DESTROY:
		m = obj % NM;
		if (!ms[m].live || ms[m].taint)
			return;
		/* a robust mutex a live thread holds is on that thread's
		 * robust list: destroying and reusing it would corrupt it */
		if (ms[m].robust && (ms[m].owner == OWN_MAIN || ms[m].owner == OWN_HELPER))
			return;
		SAY("pthread_mutex_destroy m%d", m);
		if (rc(pthread_mutex_destroy(&mx[m])) == 0)
			ms[m].live = 0, ms[m].owner = OWN_NONE;
		break;
	case M_LOCK: case M_LOCK2:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		if (m_blocks(m, OWN_MAIN)) {
			SAY("pthread_mutex_trylock m%d (for lock)", m);
			m_tried(m, OWN_MAIN, rc(pthread_mutex_trylock(&mx[m])));
		} else {
			SAY("pthread_mutex_lock m%d", m);
			m_locked(m, OWN_MAIN, rc(pthread_mutex_lock(&mx[m])));
		}
		break;
	case M_TRYLOCK:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		SAY("pthread_mutex_trylock m%d", m);
		m_tried(m, OWN_MAIN, rc(pthread_mutex_trylock(&mx[m])));
		break;
	case M_TIMEDLOCK: case M_CLOCKLOCK:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		i = safe_dl((int)(var % DL_N), m_blocks(m, OWN_MAIN));
		if (op == M_TIMEDLOCK) {
			d = deadline(i, CLOCK_REALTIME);
			SAY("pthread_mutex_timedlock m%d %s", m, dl_name[i]);
			r = rc(pthread_mutex_timedlock(&mx[m], &d));
		} else {
			int c = (int)(var / DL_N % 4);
			d = deadline(i, clk[c]);
			SAY("pthread_mutex_clocklock m%d %s %s", m, clk_name[c], dl_name[i]);
			r = rc(pthread_mutex_clocklock(&mx[m], clk[c], &d));
		}
		m_locked(m, OWN_MAIN, r);
		break;
	case M_UNLOCK: case M_UNLOCK2:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN) || pp_stray_unlock(m, OWN_MAIN)) return;
		SAY("pthread_mutex_unlock m%d", m);
		m_unlocked(m, OWN_MAIN, rc(pthread_mutex_unlock(&mx[m])));
		break;
	case M_CONSISTENT: case M_CONSISTENT_NP:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		/* by a thread that does not hold it: glibc makes the caller the
		 * owner of record (whose unlock then frees another's lock) */
		if ((ms[m].incons && ms[m].owner != OWN_MAIN) ||
		    (ms[m].robust && ms[m].owner == OWN_DEAD))
			return;
		if (op == M_CONSISTENT) {
			SAY("pthread_mutex_consistent m%d", m);
			r = rc(pthread_mutex_consistent(&mx[m]));
		} else {
			SAY("pthread_mutex_consistent_np m%d", m);
			r = rc(p_consistent_np(&mx[m]));
		}
		if (r == 0) ms[m].incons = 0;
		break;
	case M_GETCEIL:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		SAY("pthread_mutex_getprioceiling m%d", m);
		r = pthread_mutex_getprioceiling(&mx[m], &v); show_int(r, v);
		break;
	case M_SETCEIL:
		m = obj % NM;
		if (!m_usable(m, OWN_MAIN)) return;
		/* glibc takes a priority-protect mutex to change its ceiling,
		 * unless the caller holds a recursive or error-checking one */
		if (ms[m].proto == 2 && ms[m].owner != OWN_NONE &&
		    !(ms[m].owner == OWN_MAIN && (ms[m].type == T_RECURSIVE || ms[m].type == T_ERRORCHECK)))
			return;
		SAY("pthread_mutex_setprioceiling m%d %d", m, ceil_v[var % 5]);
		v = -7;
		r = pthread_mutex_setprioceiling(&mx[m], ceil_v[var % 5], &v); show_int(r, v);
		break;

	/* -------- condition variables */
	case CA_INIT:
		SAY("pthread_condattr_init");
		if (rc(pthread_condattr_init(&ca)) == 0) cattr.live = 1, cattr.clock = 0;
		break;
	case CA_DESTROY:
		if (!cattr.live) return;
		SAY("pthread_condattr_destroy");
		if (rc(pthread_condattr_destroy(&ca)) == 0) cattr.live = 0;
		break;
	case CA_SETPSHARED:
		if (!cattr.live) return;
		SAY("pthread_condattr_setpshared %d", pshared_v[var % 3]);
		rc(pthread_condattr_setpshared(&ca, pshared_v[var % 3]));
		break;
	case CA_GETPSHARED:
		if (!cattr.live) return;
		SAY("pthread_condattr_getpshared");
		r = pthread_condattr_getpshared(&ca, &v); show_int(r, v);
		break;
	case CA_SETCLOCK:
		if (!cattr.live) return;
		SAY("pthread_condattr_setclock %s", clk_name[var % 4]);
		if (rc(pthread_condattr_setclock(&ca, clk[var % 4])) == 0)
			cattr.clock = (int)(var % 4);
		break;
	case CA_GETCLOCK: {
		clockid_t c = (clockid_t)-7;
		if (!cattr.live) return;
		SAY("pthread_condattr_getclock");
		r = pthread_condattr_getclock(&ca, &c); show_int(r, (int)c);
		break;
	}
	case C_INIT:
		i = (int)(obj % NC);
		v = (int)(var % 3);
		if (v == 1 && !cattr.live)
			v = 0;
		if (v == 2) {
			SAY("static PTHREAD_COND_INITIALIZER c%d", i);
			memcpy(&cv[i], &cstatic, sizeof cv[i]);
			cs[i].live = 1, cs[i].clock = 0;
			break;
		}
		SAY("pthread_cond_init c%d %s", i, v ? "attr" : "NULL");
		if (rc(pthread_cond_init(&cv[i], v ? &ca : NULL)) == 0)
			cs[i].live = 1, cs[i].clock = v ? cattr.clock : 0;
		break;
	case C_DESTROY:
		i = (int)(obj % NC);
		if (!cs[i].live) return;
		SAY("pthread_cond_destroy c%d", i);
		if (rc(pthread_cond_destroy(&cv[i])) == 0) cs[i].live = 0;
		break;
	case C_SIGNAL: case C_BROADCAST:
		i = (int)(obj % NC);
		if (!cs[i].live) return;
		SAY(op == C_SIGNAL ? "pthread_cond_signal c%d" : "pthread_cond_broadcast c%d", i);
		rc(op == C_SIGNAL ? pthread_cond_signal(&cv[i]) : pthread_cond_broadcast(&cv[i]));
		break;
	case C_TIMEDWAIT: case C_CLOCKWAIT:
		i = (int)(obj % NC);
		m = (int)(var / 32 % NM);
		if (!cs[i].live || !m_usable(m, OWN_MAIN) || ms[m].owner != OWN_MAIN ||
		    ms[m].depth != 1 || ms[m].incons)
			return;
		v = safe_dl((int)(var % DL_N), 1);
		if (op == C_TIMEDWAIT) {
			/* on the clock the condition variable was made with */
			d = deadline(v, clk[cs[i].clock]);
			SAY("pthread_cond_timedwait c%d m%d %s", i, m, dl_name[v]);
			r = rc(pthread_cond_timedwait(&cv[i], &mx[m], &d));
		} else {
			int c = (int)(var / DL_N % 4);
			d = deadline(v, clk[c]);
			SAY("pthread_cond_clockwait c%d m%d %s %s", i, m, clk_name[c], dl_name[v]);
			r = rc(pthread_cond_clockwait(&cv[i], &mx[m], clk[c], &d));
		}
		if (r == EOWNERDEAD) ms[m].incons = 1;
		break;
	case C_PAIR: case C_CANCEL:
		i = (int)(obj % NC);
		m = (int)(var / 8 % NM);
		if (!cs[i].live || !ms[m].live || ms[m].taint || ms[m].owner != OWN_NONE ||
		    ms[m].notrec || ms[m].proto == 2 || main_pp_failed)
			return;
		t_obj = i, t_obj2 = m, t_var = (int)(var % 3);
		/* var / 6 % 2: the condition variable is destroyed right after
		 * the wake-up, before the mutex is given back (POSIX: safe once
		 * no thread is blocked on it; the waiter still has to re-take
		 * the mutex) */
		if (op == C_PAIR)
			SAY("pthread_cond_%s c%d m%d; pthread_cond_%s%s", t_var == 0 ? "wait" :
			    t_var == 1 ? "timedwait far" : "clockwait far", i, m,
			    var / 3 % 2 ? "broadcast" : "signal",
			    var / 6 % 2 ? "; pthread_cond_destroy" : "");
		else
			SAY("pthread_cancel of a thread in pthread_cond_wait c%d m%d", i, m);
		if (run_thread(op == C_PAIR ? cond_waiter : cancelled_waiter, &t) != 0) {
			out(" = create failed");
			break;
		}
		if (wait_ready() < 0) {
			pthread_join(t, NULL);
			out(" = the waiter's lock failed %s", ename(t_ret));
			break;
		}
		r = pthread_mutex_lock(&mx[m]);	/* returns once the waiter waits */
		out(" = lock %s", ename(r));
		if (op == C_PAIR)
			r = var / 3 % 2 ? pthread_cond_broadcast(&cv[i]) : pthread_cond_signal(&cv[i]);
		else
			r = pthread_cancel(t);
		out(" %s", ename(r));
		if (op == C_PAIR && var / 6 % 2) {
			r = pthread_cond_destroy(&cv[i]);
			out(" destroy %s", ename(r));
			if (r == 0)
				cs[i].live = 0;
		}
		out(" unlock %s", ename(pthread_mutex_unlock(&mx[m])));
		pthread_join(t, &res);
		if (op == C_PAIR) {
			out(" waiter %s, its unlock %s", ename(t_ret), ename(t_ret2));
		} else {
			out(" joined %s", res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "other");
			r = pthread_mutex_trylock(&mx[m]);
			out(" trylock %s", ename(r));
			if (r == 0)
				pthread_mutex_unlock(&mx[m]);
		}
		break;

	/* -------- rwlocks */
	case RA_INIT:
		SAY("pthread_rwlockattr_init");
		if (rc(pthread_rwlockattr_init(&ra)) == 0) rattr.live = 1;
		break;
	case RA_DESTROY:
		if (!rattr.live) return;
		SAY("pthread_rwlockattr_destroy");
		if (rc(pthread_rwlockattr_destroy(&ra)) == 0) rattr.live = 0;
		break;
	case RA_SETPSHARED:
		if (!rattr.live) return;
		SAY("pthread_rwlockattr_setpshared %d", pshared_v[var % 3]);
		rc(pthread_rwlockattr_setpshared(&ra, pshared_v[var % 3]));
		break;
	case RA_GETPSHARED:
		if (!rattr.live) return;
		SAY("pthread_rwlockattr_getpshared");
		r = pthread_rwlockattr_getpshared(&ra, &v); show_int(r, v);
		break;
	case RA_SETKIND:
		if (!rattr.live) return;
		SAY("pthread_rwlockattr_setkind_np %d", rwkind_v[var % 5]);
		rc(pthread_rwlockattr_setkind_np(&ra, rwkind_v[var % 5]));
		break;
	case RA_GETKIND:
		if (!rattr.live) return;
		SAY("pthread_rwlockattr_getkind_np");
		r = pthread_rwlockattr_getkind_np(&ra, &v); show_int(r, v);
		break;
	case R_INIT:
		i = (int)(obj % NR);
		if (rs[i].live && !rs[i].taint && (rs[i].rd || rs[i].wr || rs[i].hrd || rs[i].hwr))
			return;
		v = (int)(var % 4);
		if (v == 1 && !rattr.live)
			v = 0;
		/* a static initializer is not a call: over a lock some thread
		 * may still hold (misused, or held by a thread that exited) the
		 * call re-initializes it instead */
		if (v >= 2 && (rs[i].taint || rs[i].xrd || rs[i].xwr))
			v = 0;
		if (v >= 2) {
			static const pthread_rwlock_t st[2] = { PTHREAD_RWLOCK_INITIALIZER,
				PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP };
			SAY("static %s r%d", v == 2 ? "PTHREAD_RWLOCK_INITIALIZER" :
			    "PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP", i);
			memcpy(&rw[i], &st[v - 2], sizeof rw[i]);
			memset(&rs[i], 0, sizeof rs[i]), rs[i].live = 1;
			break;
		}
		SAY("pthread_rwlock_init r%d %s", i, v ? "attr" : "NULL");
		if (rc(pthread_rwlock_init(&rw[i], v ? &ra : NULL)) == 0)
			memset(&rs[i], 0, sizeof rs[i]), rs[i].live = 1;
		break;
	case R_DESTROY:
		i = (int)(obj % NR);
		if (!rs[i].live || rs[i].taint) return;
		SAY("pthread_rwlock_destroy r%d", i);
		if (rc(pthread_rwlock_destroy(&rw[i])) == 0)
			memset(&rs[i], 0, sizeof rs[i]);
		break;
	case R_RDLOCK: case R_TRYRDLOCK: case R_TIMEDRDLOCK: case R_CLOCKRDLOCK:
	case R_WRLOCK: case R_TRYWRLOCK: case R_TIMEDWRLOCK: case R_CLOCKWRLOCK: {
		int wr = op >= R_WRLOCK, base = wr ? R_WRLOCK : R_RDLOCK, b;
		const char *k = wr ? "wr" : "rd";

		i = (int)(obj % NR);
		if (!rs[i].live || rs[i].taint) return;
		b = wr ? r_wr_blocks(i, OWN_MAIN) : r_rd_blocks(i, OWN_MAIN);
		if (op == base) {
			if (b) {
				SAY("pthread_rwlock_try%slock r%d (for %slock)", k, i, k);
				r = rc(wr ? pthread_rwlock_trywrlock(&rw[i]) : pthread_rwlock_tryrdlock(&rw[i]));
			} else {
				SAY("pthread_rwlock_%slock r%d", k, i);
				r = rc(wr ? pthread_rwlock_wrlock(&rw[i]) : pthread_rwlock_rdlock(&rw[i]));
			}
		} else if (op == base + 1) {
			SAY("pthread_rwlock_try%slock r%d", k, i);
			r = rc(wr ? pthread_rwlock_trywrlock(&rw[i]) : pthread_rwlock_tryrdlock(&rw[i]));
		} else if (op == base + 2) {
			v = safe_dl((int)(var % DL_N), b);
			d = deadline(v, CLOCK_REALTIME);
			SAY("pthread_rwlock_timed%slock r%d %s", k, i, dl_name[v]);
			r = rc(wr ? pthread_rwlock_timedwrlock(&rw[i], &d) : pthread_rwlock_timedrdlock(&rw[i], &d));
		} else {
			int c = (int)(var / DL_N % 4);
			v = safe_dl((int)(var % DL_N), b);
			d = deadline(v, clk[c]);
			SAY("pthread_rwlock_clock%slock r%d %s %s", k, i, clk_name[c], dl_name[v]);
			r = rc(wr ? pthread_rwlock_clockwrlock(&rw[i], clk[c], &d)
				  : pthread_rwlock_clockrdlock(&rw[i], clk[c], &d));
		}
		if (r == 0) {
			if (wr) rs[i].wr = 1; else rs[i].rd++;
		}
		break;
	}
	case R_UNLOCK:
		i = (int)(obj % NR);
		if (!rs[i].live || rs[i].taint) return;
		SAY("pthread_rwlock_unlock r%d", i);
		r = rc(pthread_rwlock_unlock(&rw[i]));
		if (rs[i].wr)
			rs[i].wr = 0;
		else if (rs[i].rd)
			rs[i].rd--;
		else if (r == 0)
			memset(&rs[i], 0, sizeof rs[i]), rs[i].live = rs[i].taint = 1;
		break;

	/* -------- spin locks */
	case S_INIT:
		i = (int)(obj % NSP);
		SAY("pthread_spin_init s%d %d", i, pshared_v[var % 3]);
		if (rc(pthread_spin_init(&sp[i], pshared_v[var % 3])) == 0)
			sps[i].live = 1, sps[i].owner = OWN_NONE;
		break;
	case S_DESTROY:
		i = (int)(obj % NSP);
		if (!sps[i].live) return;
		SAY("pthread_spin_destroy s%d", i);
		if (rc(pthread_spin_destroy(&sp[i])) == 0) sps[i].live = 0;
		break;
	case S_LOCK: case S_TRYLOCK:
		i = (int)(obj % NSP);
		if (!sps[i].live) return;
		if (op == S_TRYLOCK || sps[i].owner != OWN_NONE) {
			SAY("pthread_spin_trylock s%d%s", i, op == S_LOCK ? " (for lock)" : "");
			r = rc(pthread_spin_trylock(&sp[i]));
		} else {
			SAY("pthread_spin_lock s%d", i);
			r = rc(pthread_spin_lock(&sp[i]));
		}
		if (r == 0) sps[i].owner = OWN_MAIN;
		break;
	case S_UNLOCK:
		i = (int)(obj % NSP);
		if (!sps[i].live) return;
		SAY("pthread_spin_unlock s%d", i);
		if (rc(pthread_spin_unlock(&sp[i])) == 0) sps[i].owner = OWN_NONE;
		break;

	/* -------- barriers */
	case BA_INIT:
		SAY("pthread_barrierattr_init");
		if (rc(pthread_barrierattr_init(&ba)) == 0) battr.live = 1;
		break;
	case BA_DESTROY:
		if (!battr.live) return;
		SAY("pthread_barrierattr_destroy");
		if (rc(pthread_barrierattr_destroy(&ba)) == 0) battr.live = 0;
		break;
	case BA_SETPSHARED:
		if (!battr.live) return;
		SAY("pthread_barrierattr_setpshared %d", pshared_v[var % 3]);
		rc(pthread_barrierattr_setpshared(&ba, pshared_v[var % 3]));
		break;
	case BA_GETPSHARED:
		if (!battr.live) return;
		SAY("pthread_barrierattr_getpshared");
		r = pthread_barrierattr_getpshared(&ba, &v); show_int(r, v);
		break;
	case B_INIT:
		i = (int)(obj % NB);
		v = (int)(var / 5 % 2) && battr.live;
		SAY("pthread_barrier_init b%d %s %u", i, v ? "attr" : "NULL", bcount_v[var % 5]);
		if (rc(pthread_barrier_init(&br[i], v ? &ba : NULL, bcount_v[var % 5])) == 0)
			bs[i].live = 1, bs[i].count = bcount_v[var % 5];
		break;
	case B_DESTROY:
		i = (int)(obj % NB);
		if (!bs[i].live) return;
		SAY("pthread_barrier_destroy b%d", i);
		if (rc(pthread_barrier_destroy(&br[i])) == 0) bs[i].live = 0;
		break;
	case B_WAIT:
		i = (int)(obj % NB);
		if (!bs[i].live || bs[i].count > 2 || (bs[i].count == 2 && one_thread)) return;
		SAY("pthread_barrier_wait b%d (count %u)", i, bs[i].count);
		if (bs[i].count == 2) {
			t_obj = i;
			if (run_thread(barrier_waiter, &t) != 0) { out(" = create failed"); break; }
		}
		r = pthread_barrier_wait(&br[i]);
		if (bs[i].count == 2) {
			pthread_join(t, NULL);
			/* which of the two is the serial one is not defined */
			int serial = (r == PTHREAD_BARRIER_SERIAL_THREAD) + (t_ret == PTHREAD_BARRIER_SERIAL_THREAD);
			int zero = (r == 0) + (t_ret == 0);
			out(" = %d serial, %d zero", serial, zero);
		} else {
			out(" = %s", r == PTHREAD_BARRIER_SERIAL_THREAD ? "SERIAL" : ename(r));
		}
		break;

	/* -------- semaphores */
	case SE_INIT:
		i = (int)(obj % NS);
		v = (int)(var / 5 % 2);
		SAY("sem_init n%d pshared %d value %u", i, v, semval_v[var % 5]);
		r = sem_init(&sm[i], v, semval_v[var % 5]);
		if (rce(r, errno) == 0) ss[i].live = 1, ss[i].val = semval_v[var % 5];
		break;
	case SE_DESTROY:
		i = (int)(obj % NS);
		if (!ss[i].live) return;
		SAY("sem_destroy n%d", i);
		r = sem_destroy(&sm[i]);
		if (rce(r, errno) == 0) ss[i].live = 0;
		break;
	case SE_WAIT: case SE_TRYWAIT:
		i = (int)(obj % NS);
		if (!ss[i].live) return;
		if (op == SE_TRYWAIT || ss[i].val == 0) {
			SAY("sem_trywait n%d%s", i, op == SE_WAIT ? " (for wait)" : "");
			r = sem_trywait(&sm[i]);
		} else {
			SAY("sem_wait n%d", i);
			r = sem_wait(&sm[i]);
		}
		if (rce(r, errno) == 0) ss[i].val--;
		break;
	case SE_TIMEDWAIT: case SE_CLOCKWAIT:
		i = (int)(obj % NS);
		if (!ss[i].live) return;
		v = safe_dl((int)(var % DL_N), ss[i].val == 0);
		if (op == SE_TIMEDWAIT) {
			d = deadline(v, CLOCK_REALTIME);
			SAY("sem_timedwait n%d %s", i, dl_name[v]);
			r = sem_timedwait(&sm[i], &d);
		} else {
			int c = (int)(var / DL_N % 4);
			d = deadline(v, clk[c]);
			SAY("sem_clockwait n%d %s %s", i, clk_name[c], dl_name[v]);
			r = sem_clockwait(&sm[i], clk[c], &d);
		}
		if (rce(r, errno) == 0) ss[i].val--;
		break;
	case SE_POST:
		i = (int)(obj % NS);
		if (!ss[i].live) return;
		SAY("sem_post n%d", i);
		r = sem_post(&sm[i]);
		if (rce(r, errno) == 0) ss[i].val++;
		break;
	case SE_GETVALUE:
		i = (int)(obj % NS);
		if (!ss[i].live) return;
		SAY("sem_getvalue n%d", i);
		v = -7;
		r = sem_getvalue(&sm[i], &v);
		if (rce(r, errno) == 0) out(" value %d", v);
		break;
	case SE_PAIR:
		i = (int)(obj % NS);
		if (!ss[i].live || ss[i].val != 0) return;
		t_obj = i, t_var = (int)(var % 3);
		SAY("%s n%d in a thread; sem_post", t_var == 0 ? "sem_wait" :
		    t_var == 1 ? "sem_timedwait far" : "sem_clockwait far", i);
		if (run_thread(sem_waiter, &t) != 0) { out(" = create failed"); break; }
		wait_ready();
		r = sem_post(&sm[i]);
		out(" = post %s", r == 0 ? "0" : ename(errno));
		pthread_join(t, NULL);
		out(" waiter %s", ename(t_ret));
		v = -7;
		sem_getvalue(&sm[i], &v);
		out(" value %d", v);
		break;

	/* -------- named semaphores */
	case N_OPEN: {
		static const int flags[] = { 0, O_CREAT, O_CREAT | O_EXCL, O_EXCL };
		static const char *fname[] = { "0", "O_CREAT", "O_CREAT|O_EXCL", "O_EXCL" };
		static const mode_t mode[] = { 0600, 0644, 0 };
		static const unsigned nval[] = { 0, 1, (unsigned)SEM_VALUE_MAX + 1 };
		int n = (int)(var % NNAME), f = (int)(var / NNAME % 4);
		int md = (int)(var / NNAME / 4 % 3), nv = (int)(var / NNAME / 12 % 3);

		i = (int)(obj % NH);
		if (nhs[i].open) return;
		SAY("sem_open h%d name%d %s %o %u", i, n, fname[f], (unsigned)mode[md], nval[nv]);
		sem_t *s = sem_open(names[n], flags[f], mode[md], nval[nv]);
		if (s == SEM_FAILED) {
			out(" = SEM_FAILED errno %s", ename(errno));
			break;
		}
		nh[i] = s, nhs[i].open = 1, nhs[i].name = n;
		for (v = 0; v < NH; v++)
			if (v != i && nhs[v].open && nh[v] == s)
				break;
		if (v < NH)
			out(" = the handle of h%d", v);
		else
			out(" = a new handle");
		break;
	}
	case N_CLOSE:
		i = (int)(obj % NH);
		if (!nhs[i].open) return;
		SAY("sem_close h%d", i);
		r = sem_close(nh[i]);
		rce(r, errno);
		nhs[i].open = 0;
		break;
	case N_UNLINK:
		SAY("sem_unlink name%d", (int)(var % NNAME));
		r = sem_unlink(names[var % NNAME]);
		rce(r, errno);
		break;
	case N_POST: case N_TRYWAIT: case N_GETVALUE:
		i = (int)(obj % NH);
		if (!nhs[i].open) return;
		if (op == N_POST) {
			SAY("sem_post h%d", i);
			r = sem_post(nh[i]);
			rce(r, errno);
		} else if (op == N_TRYWAIT) {
			SAY("sem_trywait h%d", i);
			r = sem_trywait(nh[i]);
			rce(r, errno);
		} else {
			SAY("sem_getvalue h%d", i);
			v = -7;
			r = sem_getvalue(nh[i], &v);
			if (rce(r, errno) == 0)
				out(" value %d", v);
		}
		break;
	case N_LS:
		SAY("/dev/shm");
		for (i = 0; i < 2; i++) {
			char path[400];
			struct stat st;

			snprintf(path, sizeof path, "/dev/shm/sem.%s", names[i] + 1);
			if (stat(path, &st) != 0)
				out(" name%d absent", i);
			else
				out(" name%d mode %o size %lld", i, (unsigned)(st.st_mode & 07777),
				    (long long)st.st_size);
		}
		break;

	/* -------- keys */
	case K_CREATE:
		i = (int)(obj % NK);
		if (ks[i].live) return;
		SAY("pthread_key_create k%d dtor%d", i, (int)(var % 4));
		dtor_kind[i] = (int)(var % 4);
		if (rc(pthread_key_create(&key[i], var % 4 ? dtor : NULL)) == 0)
			ks[i].live = 1, stale_ok = 0;
		break;
	case K_DELETE: case K_GET: case K_SET: {
		pthread_key_t k;
		const char *kn;

		i = (int)(obj % NK);
		v = (int)(var % 3);
		if (v == 0 && ks[i].live)
			k = key[i], kn = "k";
		else if (v == 1 && stale_ok)
			k = stale_key, kn = "deleted";
		else if (v == 2)
			k = PTHREAD_KEYS_MAX + 3, kn = "KEYS_MAX+3";
		else
			return;
		if (op == K_DELETE) {
			SAY("pthread_key_delete %s%d", kn, i);
			if (rc(pthread_key_delete(k)) == 0 && v == 0)
				ks[i].live = 0, stale_key = k, stale_ok = 1;
		} else if (op == K_GET) {
			SAY("pthread_getspecific %s%d", kn, i);
			show_ptr(pthread_getspecific(k));
		} else {
			int w = (int)(var / 3 % 4);
			SAY("pthread_setspecific %s%d v%d", kn, i, w == 3 ? -1 : NK + NTS + w);
			rc(pthread_setspecific(k, w == 3 ? NULL : &vals[NK + NTS + w]));
		}
		break;
	}
	case K_THREAD:
		SAY("a thread sets every key and tss and exits");
		for (i = 0; i < NK + NTS; i++)
			atomic_store(&dtor_calls[i], 0);
		if (run_thread(key_setter, &t) != 0) { out(" = create failed"); break; }
		pthread_join(t, NULL);
		out(" = destructor calls");
		for (i = 0; i < NK; i++)
			if (ks[i].live)
				out(" k%d:%d", i, atomic_load(&dtor_calls[i]));
		for (i = 0; i < NTS; i++)
			if (ts[i].live)
				out(" t%d:%d", i, atomic_load(&dtor_calls[NK + i]));
		break;
	case O_ONCE:
		i = (int)(obj % NO);
		SAY("pthread_once o%d", i);
		rc(pthread_once(&once[i], once_fn[i]));
		out(" runs %d", once_runs[i]);
		break;
	case O_REINIT:
		i = (int)(obj % NO);
		SAY("static PTHREAD_ONCE_INIT o%d", i);
		once[i] = (pthread_once_t)PTHREAD_ONCE_INIT;
		break;

	/* -------- C11 */
	case X_MTX_INIT:
		i = (int)(obj % NX);
		if (xs[i].live && !xs[i].taint && xs[i].owner != OWN_NONE) return;
		v = c11type_v[var % 5];
		SAY("mtx_init x%d %d", i, v);
		r = mtx_init(&xm[i], v);
		out(" = %s", c11(r));
		if (r == thrd_success) {
			memset(&xs[i], 0, sizeof xs[i]);
			xs[i].live = 1, xs[i].rec = v == 1 || v == 3;
		}
		break;
	case X_MTX_LOCK: case X_MTX_TRYLOCK: case X_MTX_TIMEDLOCK: {
		int b;

		i = (int)(obj % NX);
		if (!xs[i].live || xs[i].taint) return;
		b = xs[i].owner != OWN_NONE && !(xs[i].rec && xs[i].owner == OWN_MAIN);
		if (op == X_MTX_TRYLOCK || (op == X_MTX_LOCK && b)) {
			SAY("mtx_trylock x%d%s", i, op == X_MTX_LOCK ? " (for lock)" : "");
			r = mtx_trylock(&xm[i]);
		} else if (op == X_MTX_LOCK) {
			SAY("mtx_lock x%d", i);
			r = mtx_lock(&xm[i]);
		} else {
			v = safe_dl((int)(var % DL_N), b);
			d = deadline(v, CLOCK_REALTIME);
			SAY("mtx_timedlock x%d %s", i, dl_name[v]);
			r = mtx_timedlock(&xm[i], &d);
		}
		out(" = %s", c11(r));
		if (r == thrd_success) {
			if (xs[i].owner == OWN_MAIN) xs[i].depth++;
			else xs[i].owner = OWN_MAIN, xs[i].depth = 1;
		}
		break;
	}
	case X_MTX_UNLOCK:
		i = (int)(obj % NX);
		if (!xs[i].live || xs[i].taint) return;
		SAY("mtx_unlock x%d", i);
		r = mtx_unlock(&xm[i]);
		out(" = %s", c11(r));
		if (xs[i].owner == OWN_MAIN) {
			if (r == thrd_success && --xs[i].depth == 0) xs[i].owner = OWN_NONE;
		} else if (r == thrd_success) {
			xs[i].taint = 1;
		}
		break;
	case X_MTX_DESTROY:
		i = (int)(obj % NX);
		if (!xs[i].live || xs[i].taint || xs[i].owner != OWN_NONE) return;
		SAY("mtx_destroy x%d", i);
		mtx_destroy(&xm[i]);
		xs[i].live = 0;
		break;
	case X_CND_INIT:
		SAY("cnd_init");
		r = cnd_init(&xc);
		out(" = %s", c11(r));
		if (r == thrd_success) xc_live = 1;
		break;
	case X_CND_SIGNAL: case X_CND_BROADCAST:
		if (!xc_live) return;
		SAY(op == X_CND_SIGNAL ? "cnd_signal" : "cnd_broadcast");
		out(" = %s", c11(op == X_CND_SIGNAL ? cnd_signal(&xc) : cnd_broadcast(&xc)));
		break;
	case X_CND_TIMEDWAIT:
		i = (int)(obj % NX);
		if (!xc_live || !xs[i].live || xs[i].taint || xs[i].owner != OWN_MAIN || xs[i].depth != 1)
			return;
		v = safe_dl((int)(var % DL_N), 1);
		d = deadline(v, CLOCK_REALTIME);
		SAY("cnd_timedwait x%d %s", i, dl_name[v]);
		out(" = %s", c11(cnd_timedwait(&xc, &xm[i], &d)));
		break;
	case X_CND_PAIR:
		i = (int)(obj % NX);
		if (!xc_live || !xs[i].live || xs[i].taint || xs[i].owner != OWN_NONE)
			return;
		t_obj2 = i;
		SAY("cnd_wait x%d in a thread; cnd_%s", i, var % 2 ? "broadcast" : "signal");
		if (run_thread(c11_waiter, &t) != 0) { out(" = create failed"); break; }
		if (wait_ready() < 0) {
			pthread_join(t, NULL);
			out(" = the waiter's lock failed %s", c11(t_ret));
			break;
		}
		out(" = lock %s", c11(mtx_lock(&xm[i])));
		out(" %s", c11(var % 2 ? cnd_broadcast(&xc) : cnd_signal(&xc)));
		out(" unlock %s", c11(mtx_unlock(&xm[i])));
		pthread_join(t, NULL);
		out(" waiter %s, its unlock %s", c11(t_ret), c11(t_ret2));
		break;
	case X_CND_DESTROY:
		if (!xc_live) return;
		SAY("cnd_destroy");
		cnd_destroy(&xc);
		xc_live = 0;
		break;
	case X_TSS_CREATE:
		i = (int)(obj % NTS);
		if (ts[i].live) return;
		SAY("tss_create t%d dtor%d", i, (int)(var % 4));
		dtor_kind[NK + i] = (int)(var % 4);
		r = tss_create(&tss[i], var % 4 ? dtor : NULL);
		out(" = %s", c11(r));
		if (r == thrd_success) ts[i].live = 1;
		break;
	case X_TSS_GET:
		i = (int)(obj % NTS);
		if (!ts[i].live) return;
		SAY("tss_get t%d", i);
		show_ptr(tss_get(tss[i]));
		break;
	case X_TSS_SET:
		i = (int)(obj % NTS);
		if (!ts[i].live) return;
		v = (int)(var % 4);
		SAY("tss_set t%d v%d", i, v == 3 ? -1 : NK + NTS + v);
		out(" = %s", c11(tss_set(tss[i], v == 3 ? NULL : &vals[NK + NTS + v])));
		break;
	case X_TSS_DELETE:
		i = (int)(obj % NTS);
		if (!ts[i].live) return;
		SAY("tss_delete t%d", i);
		tss_delete(tss[i]);
		ts[i].live = 0;
		break;
	case X_CALL_ONCE:
		i = (int)(obj % NO);
		SAY("call_once f%d", i);
		call_once(&c11once[i], c11once_fn[i]);
		out(" runs %d", c11once_runs[i]);
		break;
	case X_ONCE_REINIT:
		i = (int)(obj % NO);
		SAY("static ONCE_FLAG_INIT f%d", i);
		c11once[i] = (once_flag)ONCE_FLAG_INIT;
		break;

	/* -------- the helper thread */
	case H_MLOCK:
		m = (int)(obj % NM);
		if (!m_usable(m, OWN_HELPER)) return;
		if (m_blocks(m, OWN_HELPER)) {
			SAY("helper: pthread_mutex_trylock m%d (for lock)", m);
			m_tried(m, OWN_HELPER, rc(helper_call(HC_MTRYLOCK, m)));
		} else {
			SAY("helper: pthread_mutex_lock m%d", m);
			m_locked(m, OWN_HELPER, rc(helper_call(HC_MLOCK, m)));
		}
		break;
	case H_MUNLOCK:
		m = (int)(obj % NM);
		if (!m_usable(m, OWN_HELPER) || pp_stray_unlock(m, OWN_HELPER)) return;
		SAY("helper: pthread_mutex_unlock m%d", m);
		m_unlocked(m, OWN_HELPER, rc(helper_call(HC_MUNLOCK, m)));
		break;
	case H_RDLOCK: case H_WRLOCK: {
		int wr = op == H_WRLOCK, b;

		i = (int)(obj % NR);
		if (!rs[i].live || rs[i].taint) return;
		b = wr ? r_wr_blocks(i, OWN_HELPER) : r_rd_blocks(i, OWN_HELPER);
		if (b) {
			SAY("helper: pthread_rwlock_try%slock r%d (for %slock)", wr ? "wr" : "rd", i, wr ? "wr" : "rd");
			r = helper_call(wr ? HC_TRYWRLOCK : HC_TRYRDLOCK, i);
		} else {
			SAY("helper: pthread_rwlock_%slock r%d", wr ? "wr" : "rd", i);
			r = helper_call(wr ? HC_WRLOCK : HC_RDLOCK, i);
		}
		if (rc(r) == 0) {
			if (wr) rs[i].hwr = 1; else rs[i].hrd++;
		}
		break;
	}
	case H_RWUNLOCK:
		i = (int)(obj % NR);
		if (!rs[i].live || rs[i].taint) return;
		SAY("helper: pthread_rwlock_unlock r%d", i);
		r = rc(helper_call(HC_RWUNLOCK, i));
		if (rs[i].hwr)
			rs[i].hwr = 0;
		else if (rs[i].hrd)
			rs[i].hrd--;
		else if (r == 0)
			memset(&rs[i], 0, sizeof rs[i]), rs[i].live = rs[i].taint = 1;
		break;
	case H_SPINLOCK:
		i = (int)(obj % NSP);
		if (!sps[i].live) return;
		if (sps[i].owner != OWN_NONE) {
			SAY("helper: pthread_spin_trylock s%d (for lock)", i);
			r = helper_call(HC_SPINTRYLOCK, i);
		} else {
			SAY("helper: pthread_spin_lock s%d", i);
			r = helper_call(HC_SPINLOCK, i);
		}
		if (rc(r) == 0) sps[i].owner = OWN_HELPER;
		break;
	case H_SPINUNLOCK:
		i = (int)(obj % NSP);
		if (!sps[i].live) return;
		SAY("helper: pthread_spin_unlock s%d", i);
		if (rc(helper_call(HC_SPINUNLOCK, i)) == 0) sps[i].owner = OWN_NONE;
		break;
	case H_EXIT:
		if (!helper_up) return;
		if (no_robust_death)
			for (m = 0; m < NM; m++)
				if (ms[m].robust && ms[m].owner == OWN_HELPER)
					return;
		SAY("helper: exits");
		helper_call(HC_EXIT, 0);
		break;
	case T_DIE_HOLDING:
		m = (int)(obj % NM);
		if (!ms[m].live || ms[m].taint || ms[m].owner != OWN_NONE || ms[m].notrec ||
		    (ms[m].robust && no_robust_death))
			return;
		t_obj = m;
		SAY("a thread locks m%d and exits", m);
		if (run_thread(die_holding, &t) != 0) { out(" = create failed"); break; }
		pthread_join(t, NULL);
		out(" = %s", ename(t_ret));
		if (t_ret == 0) ms[m].owner = OWN_DEAD, ms[m].depth = 1;
		break;
	default:
		return;
	}
#undef SAY
	endline();
}

/* ---------------------------------------------------------------- sequences */

/* a sequence draws most of its calls from two families of objects, so
 * that calls meet the objects they need (an init before its locks) */
static const uint8_t fam_mutex[] = { MA_INIT, MA_DESTROY, MA_SETTYPE, MA_GETTYPE, MA_SETKIND_NP,
	MA_GETKIND_NP, MA_SETPSHARED, MA_GETPSHARED, MA_SETPROTOCOL, MA_GETPROTOCOL, MA_SETCEIL,
	MA_GETCEIL, MA_SETROBUST, MA_GETROBUST, MA_SETROBUST_NP, MA_GETROBUST_NP, M_INIT, M_INIT,
	M_DESTROY, M_LOCK, M_LOCK2, M_TRYLOCK, M_TIMEDLOCK, M_CLOCKLOCK, M_UNLOCK, M_UNLOCK2,
	M_CONSISTENT, M_CONSISTENT_NP, M_GETCEIL, M_SETCEIL, H_MLOCK, H_MUNLOCK, H_EXIT,
	T_DIE_HOLDING, M_INIT_ROBUST, 0xff };
/* robust mutexes: owners that die, EOWNERDEAD, consistent, ENOTRECOVERABLE */
static const uint8_t fam_robust[] = { MA_INIT, MA_ROBUST_ON, MA_SETROBUST, MA_SETROBUST_NP,
	MA_SETTYPE, M_INIT_A, M_INIT_ROBUST, M_INIT_ROBUST, M_INIT_ROBUST, T_DIE_HOLDING,
	T_DIE_HOLDING, T_DIE_HOLDING, H_MLOCK, H_MLOCK, H_EXIT, M_LOCK, M_LOCK2, M_TRYLOCK,
	M_TIMEDLOCK, M_CLOCKLOCK, M_CONSISTENT, M_CONSISTENT_NP, M_UNLOCK, M_UNLOCK2,
	M_DESTROY, H_MUNLOCK, C_TIMEDWAIT, 0xff };
static const uint8_t fam_cond[] = { CA_INIT, CA_DESTROY, CA_SETPSHARED, CA_GETPSHARED, CA_SETCLOCK,
	CA_GETCLOCK, C_INIT, C_DESTROY, C_SIGNAL, C_BROADCAST, C_TIMEDWAIT, C_CLOCKWAIT, C_PAIR,
	C_PAIR, C_CANCEL, M_INIT, M_LOCK, M_LOCK, M_UNLOCK, MA_INIT, MA_SETTYPE, MA_SETROBUST,
	T_DIE_HOLDING, 0xff };
static const uint8_t fam_rw[] = { RA_INIT, RA_DESTROY, RA_SETPSHARED, RA_GETPSHARED, RA_SETKIND,
	RA_GETKIND, R_INIT, R_DESTROY, R_RDLOCK, R_TRYRDLOCK, R_TIMEDRDLOCK, R_CLOCKRDLOCK,
	R_WRLOCK, R_TRYWRLOCK, R_TIMEDWRLOCK, R_CLOCKWRLOCK, R_UNLOCK, R_UNLOCK, H_RDLOCK,
	H_WRLOCK, H_RWUNLOCK, H_EXIT, 0xff };
static const uint8_t fam_spin[] = { S_INIT, S_INIT, S_DESTROY, S_LOCK, S_TRYLOCK, S_UNLOCK,
	H_SPINLOCK, H_SPINUNLOCK, H_EXIT, 0xff };
static const uint8_t fam_barrier[] = { BA_INIT, BA_DESTROY, BA_SETPSHARED, BA_GETPSHARED, B_INIT,
	B_INIT, B_DESTROY, B_WAIT, B_WAIT, 0xff };
static const uint8_t fam_sem[] = { SE_INIT, SE_INIT, SE_DESTROY, SE_WAIT, SE_TRYWAIT, SE_TIMEDWAIT,
	SE_CLOCKWAIT, SE_POST, SE_POST, SE_GETVALUE, SE_PAIR, 0xff };
static const uint8_t fam_named[] = { N_OPEN, N_OPEN, N_OPEN, N_CLOSE, N_UNLINK, N_POST, N_TRYWAIT,
	N_GETVALUE, N_LS, 0xff };
static const uint8_t fam_key[] = { K_CREATE, K_CREATE, K_DELETE, K_GET, K_SET, K_SET, K_THREAD,
	X_TSS_CREATE, X_TSS_GET, X_TSS_SET, X_TSS_DELETE, 0xff };
static const uint8_t fam_once[] = { O_ONCE, O_REINIT, X_CALL_ONCE, X_ONCE_REINIT, 0xff };
static const uint8_t fam_c11[] = { X_MTX_INIT, X_MTX_INIT, X_MTX_LOCK, X_MTX_TRYLOCK,
	X_MTX_TIMEDLOCK, X_MTX_UNLOCK, X_MTX_UNLOCK, X_MTX_DESTROY, X_CND_INIT, X_CND_SIGNAL,
	X_CND_BROADCAST, X_CND_TIMEDWAIT, X_CND_PAIR, X_CND_DESTROY, 0xff };
static const uint8_t *const fams[] = { fam_mutex, fam_robust, fam_cond, fam_rw, fam_spin, fam_barrier,
	fam_sem, fam_named, fam_key, fam_once, fam_c11 };
#define NFAM (sizeof fams / sizeof fams[0])

struct call { uint8_t op, obj, var; };

static int uses_threads(int op)
{
	return op >= H_MLOCK || op == C_PAIR || op == C_CANCEL || op == SE_PAIR ||
	       op == K_THREAD || op == X_CND_PAIR;
}

static void gen(uint64_t seed, int len, struct call *c)
{
	const uint8_t *f[2];
	int n[2];

	rng = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
	for (int k = 0; k < 2; k++) {
		f[k] = fams[rnd(NFAM)];
		for (n[k] = 0; f[k][n[k]] != 0xff; n[k]++)
			;
	}
	for (int i = 0; i < len; i++) {
		uint32_t p = rnd(20);
		if (p < 18) {
			int k = p & 1;
			c[i].op = f[k][rnd((uint32_t)n[k])];
		} else {
			c[i].op = (uint8_t)rnd(N_OPS);
		}
		/* even seeds: one thread only (the calls of the helper and
		 * of the short-lived threads become plain calls) */
		while (seed % 2 == 0 && uses_threads(c[i].op))
			c[i].op = (uint8_t)rnd(N_OPS);
		c[i].obj = (uint8_t)rnd(8);
		c[i].var = (uint8_t)rnd(256);
	}
}

/* back to the start state (what the main thread holds released first, as a
 * program would before it reuses the memory): every object as static
 * initialization leaves it
 * (mutexes, condition variables and rwlocks usable, the rest to be
 * initialized), no key, no open semaphore, no file */
static void reset(void)
{
	if (helper_up && no_robust_death)
		for (int i = 0; i < NM; i++)
			while (ms[i].robust && ms[i].owner == OWN_HELPER && ms[i].depth-- > 0)
				helper_call(HC_MUNLOCK, i);
	if (helper_up)
		helper_call(HC_EXIT, 0);
	for (int i = 0; i < NM; i++) {
		if (!ms[i].live || ms[i].taint || ms[i].owner != OWN_MAIN)
			continue;
		if (ms[i].incons)
			pthread_mutex_consistent(&mx[i]);
		while (ms[i].depth-- > 0)
			pthread_mutex_unlock(&mx[i]);
	}
	for (int i = 0; i < NR; i++) {
		if (!rs[i].live)
			continue;
		if (!rs[i].taint && rs[i].wr)
			pthread_rwlock_unlock(&rw[i]);
		while (!rs[i].taint && rs[i].rd-- > 0)
			pthread_rwlock_unlock(&rw[i]);
		/* held by another thread or misused: destroyed, as a program
		 * would before it reuses the memory (0 on both) */
		pthread_rwlock_destroy(&rw[i]);
	}
	for (int i = 0; i < NSP; i++)
		if (sps[i].live && sps[i].owner == OWN_MAIN)
			pthread_spin_unlock(&sp[i]);
	for (int i = 0; i < NX; i++)
		if (xs[i].live && !xs[i].taint && xs[i].owner == OWN_MAIN)
			while (xs[i].depth-- > 0)
				mtx_unlock(&xm[i]);
	for (int i = 0; i < NH; i++)
		if (nhs[i].open)
			sem_close(nh[i]);
	for (int i = 0; i < 2; i++)
		sem_unlink(names[i]);
	for (int i = 0; i < NK; i++)
		if (ks[i].live)
			pthread_key_delete(key[i]);
	for (int i = 0; i < NTS; i++)
		if (ts[i].live)
			tss_delete(tss[i]);
	if (xc_live)
		cnd_destroy(&xc);
	memset(mx, 0, sizeof mx); memset(ms, 0, sizeof ms);
	memset(cv, 0, sizeof cv); memset(cs, 0, sizeof cs);
	memset(rw, 0, sizeof rw); memset(rs, 0, sizeof rs);
	memset((void *)sp, 0, sizeof sp); memset(sps, 0, sizeof sps);
	memset(br, 0, sizeof br); memset(bs, 0, sizeof bs);
	memset(sm, 0, sizeof sm); memset(ss, 0, sizeof ss);
	memset(nhs, 0, sizeof nhs); memset(ks, 0, sizeof ks); memset(ts, 0, sizeof ts);
	memset(xs, 0, sizeof xs);
	memset(&mattr, 0, sizeof mattr); memset(&cattr, 0, sizeof cattr);
	memset(&rattr, 0, sizeof rattr); memset(&battr, 0, sizeof battr);
	xc_live = stale_ok = 0;
	for (int i = 0; i < NM; i++)
		ms[i].live = 1;
	for (int i = 0; i < NC; i++)
		cs[i].live = 1;
	for (int i = 0; i < NR; i++)
		rs[i].live = 1;
	for (int i = 0; i < NO; i++) {
		once[i] = (pthread_once_t)PTHREAD_ONCE_INIT;
		c11once[i] = (once_flag)ONCE_FLAG_INIT;
		once_runs[i] = c11once_runs[i] = 0;
	}
}

static void set_names(const char *tag)
{
	snprintf(names[0], sizeof names[0], "/fthrdiff-%s-a", tag);
	snprintf(names[1], sizeof names[1], "/fthrdiff-%s-b", tag);
	snprintf(names[2], sizeof names[2], "fthrdiff-%s-a", tag);	/* no slash: names[0] */
	snprintf(names[3], sizeof names[3], "/");
	snprintf(names[4], sizeof names[4], "/fthrdiff-%s/x", tag);
	names[5][0] = '/';
	memset(names[5] + 1, 'x', 280);
	names[5][281] = 0;
}

static void on_alarm(int sig)
{
	static const char msg[] = " ... TIMEOUT: this call did not return in 20 s\n";
	ssize_t w = write(1, line, linelen);	/* the call it is in */
	w = write(1, msg, sizeof msg - 1);
	(void)sig, (void)w;
	_exit(3);
}

static int run_seq(uint64_t seed, int len, const char *keep)
{
	struct call *c = calloc((size_t)len, sizeof *c);
	char *mask = calloc((size_t)len, 1);

	if (!c || !mask)
		return 1;
	gen(seed, len, c);
	one_thread = seed % 2 == 0;
	if (keep) {
		for (const char *p = keep; *p; ) {
			long k = strtol(p, (char **)&p, 10);
			if (k >= 0 && k < len)
				mask[k] = 1;
			if (*p == ',')
				p++;
			else if (*p)
				break;
		}
	} else {
		memset(mask, 1, (size_t)len);
	}
	out("seed %llu", (unsigned long long)seed);
	endline();
	reset();
	alarm(20);
	for (int i = 0; i < len; i++)
		if (mask[i])
			step(i, c[i].op, c[i].obj, c[i].var);
	reset();
	alarm(0);
	free(c);
	free(mask);
	return 0;
}

/* ---------------------------------------------------------------- the driver */

static const char *const every_function[] = {
	"call_once", "cnd_broadcast", "cnd_destroy", "cnd_init", "cnd_signal", "cnd_timedwait",
	"cnd_wait", "mtx_destroy", "mtx_init", "mtx_lock", "mtx_timedlock", "mtx_trylock",
	"mtx_unlock", "pthread_barrier_destroy", "pthread_barrier_init", "pthread_barrier_wait",
	"pthread_barrierattr_destroy", "pthread_barrierattr_getpshared", "pthread_barrierattr_init",
	"pthread_barrierattr_setpshared", "pthread_cancel", "pthread_cond_broadcast",
	"pthread_cond_clockwait", "pthread_cond_destroy", "pthread_cond_init", "pthread_cond_signal",
	"pthread_cond_timedwait", "pthread_cond_wait", "pthread_condattr_destroy",
	"pthread_condattr_getclock", "pthread_condattr_getpshared", "pthread_condattr_init",
	"pthread_condattr_setclock", "pthread_condattr_setpshared", "pthread_getspecific",
	"pthread_key_create", "pthread_key_delete", "pthread_mutex_clocklock",
	"pthread_mutex_consistent", "pthread_mutex_consistent_np", "pthread_mutex_destroy",
	"pthread_mutex_getprioceiling", "pthread_mutex_init", "pthread_mutex_lock",
	"pthread_mutex_setprioceiling", "pthread_mutex_timedlock", "pthread_mutex_trylock",
	"pthread_mutex_unlock", "pthread_mutexattr_destroy", "pthread_mutexattr_getkind_np",
	"pthread_mutexattr_getprioceiling", "pthread_mutexattr_getprotocol",
	"pthread_mutexattr_getpshared", "pthread_mutexattr_getrobust",
	"pthread_mutexattr_getrobust_np", "pthread_mutexattr_gettype", "pthread_mutexattr_init",
	"pthread_mutexattr_setkind_np", "pthread_mutexattr_setprioceiling",
	"pthread_mutexattr_setprotocol", "pthread_mutexattr_setpshared",
	"pthread_mutexattr_setrobust", "pthread_mutexattr_setrobust_np",
	"pthread_mutexattr_settype", "pthread_once", "pthread_rwlock_clockrdlock",
	"pthread_rwlock_clockwrlock", "pthread_rwlock_destroy", "pthread_rwlock_init",
	"pthread_rwlock_rdlock", "pthread_rwlock_timedrdlock", "pthread_rwlock_timedwrlock",
	"pthread_rwlock_tryrdlock", "pthread_rwlock_trywrlock", "pthread_rwlock_unlock",
	"pthread_rwlock_wrlock", "pthread_rwlockattr_destroy", "pthread_rwlockattr_getkind_np",
	"pthread_rwlockattr_getpshared", "pthread_rwlockattr_init", "pthread_rwlockattr_setkind_np",
	"pthread_rwlockattr_setpshared", "pthread_setspecific", "pthread_spin_destroy",
	"pthread_spin_init", "pthread_spin_lock", "pthread_spin_trylock", "pthread_spin_unlock",
	"sem_clockwait", "sem_close", "sem_destroy", "sem_getvalue", "sem_init", "sem_open",
	"sem_post", "sem_timedwait", "sem_trywait", "sem_unlink", "sem_wait", "tss_create",
	"tss_delete", "tss_get", "tss_set",
};

/* a run: the binary, what it preloads, one more variable for it (the
 * linked run under qemu needs the library path) */
struct impl { const char *name, *bin, *preload, *env; };

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap * 2 + 65536;
			char *nb = realloc(b, cap + 1);
			if (!nb) { free(b); fclose(f); return NULL; }
			b = nb;
		}
		k = fread(b + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	fclose(f);
	b[n] = 0;
	*len = n;
	return b;
}

/* Start one run of `im' (args: what follows the program name) with its
 * output in `path'; k names its semaphores apart from the other runs'.
 * With DIFFTEST_QEMU set the program runs under that emulator, which
 * passes the run's variables to the program only (-E/-U). */
static pid_t start(const struct impl *im, char *const args[], const char *path, int k)
{
	pid_t p = fork();

	if (p != 0)
		return p;
	const char *qemu = getenv("DIFFTEST_QEMU");
	char tag[64], pre[1100];
	char *argv[16];
	int n = 0;

	snprintf(tag, sizeof tag, "%s-%d", getenv("DIFFTEST_TAG"), k);
	setenv("DIFFTEST_TAG", tag, 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 1) < 0)
		_exit(127);
	unsetenv("LD_PRELOAD");
	if (qemu) {
		argv[n++] = (char *)qemu;
		if (im->preload) {
			snprintf(pre, sizeof pre, "LD_PRELOAD=%s", im->preload);
			argv[n++] = "-E", argv[n++] = pre;
		}
		if (im->env)
			argv[n++] = "-E", argv[n++] = (char *)im->env;
	} else {
		if (im->preload)
			setenv("LD_PRELOAD", im->preload, 1);
		if (im->env)
			putenv((char *)im->env);
	}
	argv[n++] = (char *)im->bin;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	execvp(argv[0], argv);
	_exit(127);
}

static int finish(pid_t p)
{
	int st;

	if (waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char tmpdir[256];

/* one seed, the calls `keep' lists, on `a' and `b': do they differ (in
 * what they print or how they end)? */
static int differs(const struct impl *a, const struct impl *b, uint64_t seed, int len,
		   const char *keep, char **oa, char **ob)
{
	char s[32], l[16], pa[300], pb[300];
	char *args[] = { "one", s, l, (char *)keep, NULL };
	size_t na = 0, nb = 0;

	snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
	snprintf(l, sizeof l, "%d", len);
	snprintf(pa, sizeof pa, "%s/one-a", tmpdir);
	snprintf(pb, sizeof pb, "%s/one-b", tmpdir);
	pid_t x = start(a, args, pa, 0), y = start(b, args, pb, 1);
	int sx = finish(x), sy = finish(y);
	char *ta = slurp(pa, &na), *tb = slurp(pb, &nb);
	int d = sx != sy || !ta || !tb || na != nb || memcmp(ta, tb, na) != 0;
	if (oa) *oa = ta; else free(ta);
	if (ob) *ob = tb; else free(tb);
	return d;
}

static void keep_string(const char *mask, int len, char *buf, size_t cap)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < len && n + 8 < cap; i++)
		if (mask[i])
			n += (size_t)snprintf(buf + n, cap - n, n ? ",%d" : "%d", i);
	if (n == 0)
		snprintf(buf, cap, "none");
}

/* The shortest sequence that still differs (ddmin over the calls), both
 * transcripts printed. A difference that a seed run alone does not show
 * (it needs the state the earlier seeds of its batch left) is shown as it
 * was in the batch. */
static void shrink(const struct impl *a, const struct impl *b, uint64_t seed, int len,
		   const char *ba, size_t la, const char *bb, size_t lb)
{
	size_t cap = (size_t)len * 8 + 8;
	char *mask = malloc((size_t)len), *keep = malloc(cap);
	int kept = len;

	memset(mask, 1, (size_t)len);
	keep_string(mask, len, keep, cap);
	if (!differs(a, b, seed, len, keep, NULL, NULL)) {
		printf("DIFFERENCE: seed %llu, %s against glibc, only after the earlier seeds of the batch:\n"
		       "--- %s\n%.*s--- %s\n%.*s", (unsigned long long)seed, b->name,
		       a->name, (int)la, ba, b->name, (int)lb, bb);
		free(mask), free(keep);
		return;
	}
	for (int chunk = len / 2; chunk >= 1; chunk /= 2) {
		for (int s0 = 0; s0 < len; s0 += chunk) {
			char save[256];
			int removed = 0;

			for (int i = s0; i < s0 + chunk && i < len; i++)
				save[i - s0] = mask[i], removed += mask[i], mask[i] = 0;
			if (!removed)
				continue;
			keep_string(mask, len, keep, cap);
			if (differs(a, b, seed, len, keep, NULL, NULL)) {
				kept -= removed;
				continue;
			}
			for (int i = s0; i < s0 + chunk && i < len; i++)
				mask[i] = save[i - s0];
		}
	}
	keep_string(mask, len, keep, cap);
	char *ta, *tb;
	differs(a, b, seed, len, keep, &ta, &tb);
	printf("DIFFERENCE: seed %llu, %s against glibc, shrunk to %d calls"
	       " (difftest one %llu %d %s):\n--- %s\n%s--- %s\n%s",
	       (unsigned long long)seed, b->name, kept, (unsigned long long)seed, len, keep,
	       a->name, ta ? ta : "", b->name, tb ? tb : "");
	free(ta), free(tb), free(mask), free(keep);
}

/* Where each seed's transcript starts in a run's output (one pass):
 * at[s] for seed f0 + s, at[n] the end; -1 for a seed that is missing (a
 * run that stopped early). */
static void index_seeds(const char *buf, size_t len, uint64_t f0, long n, long *at)
{
	for (long s = 0; s <= n; s++)
		at[s] = -1;
	for (const char *p = buf; p < buf + len; ) {
		const char *nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (!strncmp(p, "seed ", 5)) {
			unsigned long long v = strtoull(p + 5, NULL, 10);
			if (v >= f0 && v < f0 + (uint64_t)n)
				at[v - f0] = p - buf;
		}
		p = nl ? nl + 1 : buf + len;
	}
	at[n] = (long)len;
}

/* the transcript of seed s: from its start to the next seed's */
static const char *seed_text(const char *buf, const long *at, long n, long s, size_t *len)
{
	if (at[s] < 0)
		return NULL;
	long end = at[n];
	for (long k = s + 1; k < n; k++)
		if (at[k] >= 0) {
			end = at[k];
			break;
		}
	*len = (size_t)(end - at[s]);
	return buf + at[s];
}

/* fn called somewhere in the transcript (as a word) */
static int covered(const char *buf, const char *fn)
{
	size_t n = strlen(fn);

	for (const char *p = buf; (p = strstr(p, fn)) != NULL; p += n) {
		char before = p == buf ? ' ' : p[-1], after = p[n];
		if (!(before == '_' || (before >= 'a' && before <= 'z')) &&
		    !(after == '_' || (after >= 'a' && after <= 'z') || (after >= '0' && after <= '9')))
			return 1;
	}
	return 0;
}

#define CHUNK 5000	/* seeds per batch: one process per run */
#define NFN (sizeof every_function / sizeof every_function[0])

static int drive(long count, uint64_t first, int len, const char *self)
{
	const char *lib = getenv("FTHR_LIB"), *linked = getenv("DIFFTEST_LINKED");
	const char *plant = getenv("DIFFTEST_PLANT"), *only = getenv("DIFFTEST_ONLY");
	const char *bin = getenv("DIFFTEST_BIN") ? getenv("DIFFTEST_BIN") : self;
	static char pre_fthr[1024];
	static int seen[NFN];
	struct impl im[3];
	int nim = 0, bad = 0;
	long diffs = 0, calls = 0, shown[3] = { 0 };

	if (!lib || !linked) {
		fprintf(stderr, "difftest drive: FTHR_LIB and DIFFTEST_LINKED must be set\n");
		return 2;
	}
	snprintf(pre_fthr, sizeof pre_fthr, "%s%s%s", plant ? plant : "", plant ? ":" : "", lib);
	im[nim++] = (struct impl){ "glibc", bin, NULL, NULL };
	if (!only || !strcmp(only, "preload"))
		im[nim++] = (struct impl){ "fthr preloaded", bin, pre_fthr, NULL };
	if (!only || !strcmp(only, "linked"))
		im[nim++] = (struct impl){ "fthr linked", linked, plant, getenv("DIFFTEST_LINKED_ENV") };
	snprintf(tmpdir, sizeof tmpdir, "%s/difftest.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	for (long done = 0; done < count; done += CHUNK) {
		long n = count - done < CHUNK ? count - done : CHUNK;
		uint64_t f0 = first + (uint64_t)done;
		char f[32], c[24], l[16], path[3][300];
		char *args[] = { "run", f, c, l, NULL };
		char *buf[3];
		long *at[3];
		size_t blen[3];
		pid_t pid[3];
		int st[3];

		snprintf(f, sizeof f, "%llu", (unsigned long long)f0);
		snprintf(c, sizeof c, "%ld", n);
		snprintf(l, sizeof l, "%d", len);
		for (int k = 0; k < nim; k++) {
			snprintf(path[k], sizeof path[k], "%s/run-%d", tmpdir, k);
			pid[k] = start(&im[k], args, path[k], k);
		}
		for (int k = 0; k < nim; k++)
			st[k] = finish(pid[k]);
		for (int k = 0; k < nim; k++) {
			buf[k] = slurp(path[k], &blen[k]);
			if (!buf[k]) {
				printf("FAIL: no output from the %s run\n", im[k].name);
				return 1;
			}
			if (st[k] != 0) {
				printf("FAIL: the %s run of seeds %llu.. exited with status %d\n",
				       im[k].name, (unsigned long long)f0, st[k]);
				bad++;
			}
			/* where each run is: the preloaded and linked ones on fthr */
			int on_fthr = !strncmp(buf[k], "running on fthr", 15);
			if (on_fthr != (k > 0)) {
				printf("FAIL: the %s run is not on %s\n", im[k].name, k ? "fthr" : "glibc");
				bad++;
			}
		}
		for (const char *p = buf[0]; *p; p++)
			calls += *p == '\n';
		calls -= n + 1;	/* the seed lines and the first */
		for (int k = 0; k < nim; k++) {
			at[k] = malloc(sizeof(long) * (size_t)(n + 1));
			if (!at[k])
				return 2;
			index_seeds(buf[k], blen[k], f0, n, at[k]);
		}
		for (int k = 1; k < nim; k++)
			for (long s = 0; s < n; s++) {
				size_t la = 0, lb = 0;
				const char *a = seed_text(buf[0], at[0], n, s, &la);
				const char *b = seed_text(buf[k], at[k], n, s, &lb);
				if (a && b && la == lb && !memcmp(a, b, la))
					continue;
				diffs++;
				if (shown[k]++ < 2)
					shrink(&im[0], &im[k], f0 + (uint64_t)s, len, a ? a : "",
					       a ? la : 0, b ? b : "", b ? lb : 0);
			}
		for (size_t i = 0; i < NFN; i++)
			seen[i] |= covered(buf[0], every_function[i]);
		for (int k = 0; k < nim; k++) {
			unlink(path[k]);
			free(buf[k]);
			free(at[k]);
		}
	}
	for (int k = 1; k < nim; k++)
		if (shown[k] > 2)
			printf("... and %ld more seeds differ between %s and glibc\n", shown[k] - 2, im[k].name);
	int missing = 0;
	for (size_t i = 0; i < NFN && count >= 1000; i++)
		if (!seen[i]) {
			printf("FAIL: %s was never called\n", every_function[i]);
			missing++;
		}
	printf("%ld sequences of %d calls (seeds %llu-%llu), %ld calls, glibc against %d fthr run%s: %ld difference%s\n",
	       count, len, (unsigned long long)first, (unsigned long long)(first + (uint64_t)count - 1),
	       calls, nim - 1, nim > 2 ? "s" : "", diffs, diffs == 1 ? "" : "s");
	char p1[300];
	snprintf(p1, sizeof p1, "%s/one-a", tmpdir); unlink(p1);
	snprintf(p1, sizeof p1, "%s/one-b", tmpdir); unlink(p1);
	rmdir(tmpdir);
	return diffs || bad || missing ? 1 : 0;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	const char *tag = getenv("DIFFTEST_TAG");
	char tagbuf[32];

	if (argc >= 3 && !strcmp(argv[1], "drive")) {
		if (!tag) {
			snprintf(tagbuf, sizeof tagbuf, "%d", (int)getpid());
			setenv("DIFFTEST_TAG", tagbuf, 1);
		}
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			return 2;
		self[n] = 0;
		return drive(atol(argv[2]), argc > 3 ? strtoull(argv[3], NULL, 10) : 1,
			     argc > 4 ? atoi(argv[4]) : 48, self);
	}
	if (argc < 4 || (strcmp(argv[1], "run") && strcmp(argv[1], "one"))) {
		fprintf(stderr, "usage: difftest run FIRST COUNT [LEN] | one SEED LEN KEEP |"
				" drive COUNT [FIRST] [LEN]\n");
		return 2;
	}
	set_names(tag ? tag : "x");
	no_robust_death = getenv("DIFFTEST_NO_ROBUST_DEATH") != NULL;
	umask(022);
	signal(SIGALRM, on_alarm);
	/* which library this run's pthread_mutex_lock is (not part of a
	 * seed's transcript) */
	if (!strcmp(argv[1], "run")) {
		Dl_info di;
		int fthr = dladdr((void *)pthread_mutex_lock, &di) && di.dli_fname &&
			   strstr(di.dli_fname, "libfthr");
		out("running on %s", fthr ? "fthr" : "glibc");
		endline();
	}
	if (!strcmp(argv[1], "run")) {
		uint64_t first = strtoull(argv[2], NULL, 10);
		int count = atoi(argv[3]), len = argc > 4 ? atoi(argv[4]) : 48;
		for (int s = 0; s < count; s++)
			run_seq(first + (uint64_t)s, len, NULL);
	} else {
		run_seq(strtoull(argv[2], NULL, 10), atoi(argv[3]), argc > 4 ? argv[4] : "");
	}
	return 0;
}
