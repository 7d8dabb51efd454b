/* lib/thr_c11.c: C11 <threads.h> mutexes, condition variables, call_once
 * and thread-specific storage on the very same fthr objects (glibc's mtx_t,
 * cnd_t, once_flag and tss_t are pthread_mutex_t, pthread_cond_t,
 * pthread_once_t and pthread_key_t underneath), so the two APIs mix. No
 * futex protocol of its own. thrd_* stays the host's.
 */
#include "config.h"
#include <errno.h>
#include <threads.h>
#include "diag.h"
#include "mutex.h"
#include "objects.h"
#include "tsan.h"

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a mutex");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a cond");
_Static_assert(sizeof(once_flag) == sizeof(pthread_once_t), "once_flag");
_Static_assert(sizeof(tss_t) == sizeof(pthread_key_t), "tss_t is a key");

#define M(m) ((pthread_mutex_t *)(m))
#define CV(c) ((pthread_cond_t *)(c))

FTHR_HIDDEN FTHR_INLINED int fthr_mtx_init(mtx_t *m, int type)
{
	pthread_mutexattr_t a;

	fthr_mutexattr_init(&a);
	switch (type) {
	case mtx_plain | mtx_recursive:
	case mtx_timed | mtx_recursive:
		fthr_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
		break;
	default: /* as glibc: any other type (C11: undefined) is a plain one */
		break;
	}
	return fthr_thrd_result(fthr_mutex_init(M(m), &a));
}

FTHR_HIDDEN FTHR_INLINED int fthr_mtx_lock(mtx_t *m)
{
	return fthr_thrd_result(TSAN_LOCK(m, 0, fthr_mutex_lock(M(m))));
}
FTHR_HIDDEN FTHR_INLINED int fthr_mtx_trylock(mtx_t *m)
{
	return fthr_thrd_result(TSAN_LOCK(m, TSAN_TRY_LOCK, fthr_mutex_trylock(M(m))));
}
FTHR_HIDDEN FTHR_INLINED int fthr_mtx_unlock(mtx_t *m)
{
	return fthr_thrd_result(TSAN_UNLOCK(m, fthr_mutex_unlock(M(m))));
}
FTHR_HIDDEN FTHR_INLINED void fthr_mtx_destroy(mtx_t *m) { fthr_mutex_destroy(M(m)); }
FTHR_HIDDEN FTHR_INLINED int fthr_mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict t)
{
	return fthr_thrd_result(TSAN_LOCK(m, 0, fthr_mutex_timedlock(M(m), t)));
}

FTHR_HIDDEN FTHR_INLINED int fthr_cnd_init(cnd_t *c) { return fthr_thrd_result(fthr_cond_init(CV(c), NULL)); }
FTHR_HIDDEN FTHR_INLINED void fthr_cnd_destroy(cnd_t *c) { fthr_cond_destroy(CV(c)); }
FTHR_HIDDEN int fthr_cnd_signal(cnd_t *c) { return fthr_thrd_result(fthr_cond_signal(CV(c))); }
FTHR_HIDDEN int fthr_cnd_broadcast(cnd_t *c) { return fthr_thrd_result(fthr_cond_broadcast(CV(c))); }
/* (TSan: the wait gives the mutex back and takes it again) */
FTHR_HIDDEN FTHR_INLINED int fthr_cnd_wait(cnd_t *c, mtx_t *m)
{
	int r;

	TSAN_WAIT_BEGIN(m);
	r = fthr_cond_wait(CV(c), M(m));
	TSAN_WAIT_END(m);
	return fthr_thrd_result(r);
}
FTHR_HIDDEN FTHR_INLINED int fthr_cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
				   const struct timespec *restrict t)
{
	int r;

	TSAN_WAIT_BEGIN(m);
	r = fthr_cond_timedwait(CV(c), M(m), t);
	TSAN_WAIT_END(m);
	return fthr_thrd_result(r);
}

FTHR_HIDDEN void fthr_call_once(once_flag *flag, void (*func)(void))
{
	fthr_once_entry((pthread_once_t *)flag, func);
}

FTHR_HIDDEN int fthr_tss_create(tss_t *key, tss_dtor_t dtor)
{
	return fthr_thrd_result(fthr_key_create(key, dtor));
}
FTHR_HIDDEN void *fthr_tss_get(tss_t key) { return fthr_getspecific(key); }
FTHR_HIDDEN int fthr_tss_set(tss_t key, void *v) { return fthr_thrd_result(fthr_setspecific(key, v)); }
FTHR_HIDDEN void fthr_tss_delete(tss_t key) { fthr_key_delete(key); }

FTHR_EXPORT(cnd_signal, fthr_cnd_signal);
FTHR_EXPORT(cnd_broadcast, fthr_cnd_broadcast);
FTHR_EXPORT(call_once, fthr_call_once);
FTHR_EXPORT(tss_create, fthr_tss_create);
FTHR_EXPORT(tss_get, fthr_tss_get);
FTHR_EXPORT(tss_set, fthr_tss_set);
FTHR_EXPORT(tss_delete, fthr_tss_delete);

/* The entry points FTHR_PROFILE/FTHR_CHECK can watch (diag.h). */
FTHR_EXPORT_WATCHED(int, mtx_init, fthr_mtx_init, (mtx_t *m, int type), (m, type))
FTHR_EXPORT_WATCHED(int, mtx_lock, fthr_mtx_lock, (mtx_t *m), (m))
FTHR_EXPORT_WATCHED(int, mtx_trylock, fthr_mtx_trylock, (mtx_t *m), (m))
FTHR_EXPORT_WATCHED(int, mtx_timedlock, fthr_mtx_timedlock,
		    (mtx_t *restrict m, const struct timespec *restrict t), (m, t))
FTHR_EXPORT_WATCHED(int, mtx_unlock, fthr_mtx_unlock, (mtx_t *m), (m))
FTHR_EXPORT_WATCHED(int, cnd_init, fthr_cnd_init, (cnd_t *c), (c))
FTHR_EXPORT_WATCHED(int, cnd_wait, fthr_cnd_wait, (cnd_t *c, mtx_t *m), (c, m))
FTHR_EXPORT_WATCHED(int, cnd_timedwait, fthr_cnd_timedwait,
		    (cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict t),
		    (c, m, t))
/* (the two that return nothing, written out) */
FTHR_HIDDEN void diag_fthr_mtx_destroy(mtx_t *m);
FTHR_HIDDEN void diag_fthr_cnd_destroy(cnd_t *c);
FTHR_HIDDEN void fthr_entry_mtx_destroy(mtx_t *m)
{
	if (unlikely(fthr_diag_on))
		diag_fthr_mtx_destroy(m);
	else
		fthr_mtx_destroy(m);
}
FTHR_HIDDEN void fthr_entry_cnd_destroy(cnd_t *c)
{
	if (unlikely(fthr_diag_on))
		diag_fthr_cnd_destroy(c);
	else
		fthr_cnd_destroy(c);
}
FTHR_EXPORT(mtx_destroy, fthr_entry_mtx_destroy);
FTHR_EXPORT(cnd_destroy, fthr_entry_cnd_destroy);
