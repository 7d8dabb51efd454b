/* lib/glibc.h: everything fthr assumes of glibc beyond its public
 * interface, in one place. A glibc update is reviewed against this file:
 * each assumption says where fthr relies on it, and is checked by a static
 * assertion here or against the running glibc by tests/glibc_seam.c (a
 * program that runs without fthr and fails by name). fthr(7) lists them
 * (GLIBC'S INTERNALS).
 *
 *  1. pthread_t is the address of the thread's descriptor, and a thread's
 *     static (initial-exec) TLS lies at the same offset from it in every
 *     thread: fthr_self_of (self.h) finds another thread's record so, for
 *     pthread_cancel (cancel.c) and the priority calls (thr_mutex_pp.c).
 *  2. SIGCANCEL is signal 32, glibc's own below SIGRTMIN: cancel.c waits
 *     for a cancellation signal still pending.
 *  3. __libc_single_threaded is cleared before a second thread starts:
 *     thr_mutex.c then stops writing a private mutex's word plainly.
 *  4. The bits of a mutex's __kind (fthr_impl.h, FTHR_MUTEX_*), 128 the
 *     process-shared one: fthr's process-shared mutexes are glibc's to a
 *     plain-glibc process, and glibc's static initializers are fthr's.
 *  5. The process-shared marks of the objects whose process-shared form is
 *     glibc's own (host.h): a condition's bit 0 of __wrefs (thr_cond.c), a
 *     rwlock's __shared (thr_rwlock.c), a barrier's int at offset 12
 *     (thr_barrier.c), each non-zero only in an object glibc's init made
 *     process-shared, and where fthr's own objects keep 0.
 *  6. The versions glibc defines the calls fthr forwards to it under
 *     (host.c resolves them with dlvsym): a process-shared object's call
 *     not found leaves that kind unusable (EINVAL).
 */
#ifndef FTHR_GLIBC_H
#define FTHR_GLIBC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* 2. */
#define FTHR_GLIBC_SIGCANCEL 32

/* 4. glibc's mutex __kind bits (nptl/pthreadP.h) */
#define FTHR_MUTEX_KIND_MASK 3     /* normal, recursive, errorcheck, adaptive */
#define FTHR_MUTEX_ROBUST 16
#define FTHR_MUTEX_PRIO_INHERIT 32
#define FTHR_MUTEX_PRIO_PROTECT 64
#define FTHR_MUTEX_PSHARED 128
#define FTHR_MUTEX_ELISION 256
#define FTHR_MUTEX_NO_ELISION 512
#define FTHR_MUTEX_CEILING_MASK 0xfff80000u

/* 5. */
static inline bool fthr_glibc_cond_shared(const pthread_cond_t *c)
{
	return __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED) & 1;
}

static inline bool fthr_glibc_rwlock_shared(const pthread_rwlock_t *l)
{
	return __atomic_load_n(&l->__data.__shared, __ATOMIC_RELAXED) != 0;
}

#define FTHR_GLIBC_BARRIER_SHARED_AT 12
_Static_assert(sizeof(pthread_barrier_t) >= FTHR_GLIBC_BARRIER_SHARED_AT + sizeof(int),
	       "a barrier holds glibc's 'shared' int");

static inline bool fthr_glibc_barrier_shared(const pthread_barrier_t *b)
{
	const int *shared = (const int *)(const void *)((const char *)b +
							 FTHR_GLIBC_BARRIER_SHARED_AT);

	return __atomic_load_n(shared, __ATOMIC_RELAXED) != 0;
}

/* 6. The versions glibc defines the calls fthr forwards to it under,
 * newest first; a condition variable's never GLIBC_2.2.5, which on x86_64
 * is the old condition variable kept for old binaries. The calls of the
 * process-shared objects glibc runs for fthr: the field of struct
 * fthr_host_shared (host.h) that keeps each, and its name. */
#define FTHR_GLIBC_VERSIONS "GLIBC_2.34", "GLIBC_2.17", "GLIBC_2.2.5"
#define FTHR_GLIBC_COND_VERSIONS "GLIBC_2.34", "GLIBC_2.3.2", "GLIBC_2.17"
#define FTHR_GLIBC_SHARED_CALLS(X)                                             \
	X(cond_init, "pthread_cond_init")                                      \
	X(cond_destroy, "pthread_cond_destroy")                                \
	X(cond_signal, "pthread_cond_signal")                                  \
	X(cond_broadcast, "pthread_cond_broadcast")                            \
	X(cond_wait, "pthread_cond_wait")                                      \
	X(cond_timedwait, "pthread_cond_timedwait")                            \
	X(cond_clockwait, "pthread_cond_clockwait")                            \
	X(rw_init, "pthread_rwlock_init")                                      \
	X(rw_destroy, "pthread_rwlock_destroy")                                \
	X(rw_rdlock, "pthread_rwlock_rdlock")                                  \
	X(rw_tryrdlock, "pthread_rwlock_tryrdlock")                            \
	X(rw_timedrdlock, "pthread_rwlock_timedrdlock")                        \
	X(rw_clockrdlock, "pthread_rwlock_clockrdlock")                        \
	X(rw_wrlock, "pthread_rwlock_wrlock")                                  \
	X(rw_trywrlock, "pthread_rwlock_trywrlock")                            \
	X(rw_timedwrlock, "pthread_rwlock_timedwrlock")                        \
	X(rw_clockwrlock, "pthread_rwlock_clockwrlock")                        \
	X(rw_unlock, "pthread_rwlock_unlock")                                  \
	X(barrier_init, "pthread_barrier_init")                                \
	X(barrier_destroy, "pthread_barrier_destroy")                          \
	X(barrier_wait, "pthread_barrier_wait")

#endif
