/* lib/tsan.h: telling ThreadSanitizer about synchronization it cannot see.
 *
 * TSan intercepts most pthread calls of an instrumented program and models
 * them itself; fthr's library code is not instrumented. The entry points
 * TSan does not intercept (C11 mtx_* and cnd_*, call_once, the *clock*
 * variants, sem_clockwait) announce their locks and acquires here. Compiled
 * in only with ./configure --enable-tsan-annotations (the TSan test build,
 * scripts/run variants); otherwise every macro is empty.
 */
#ifndef FTHR_TSAN_H
#define FTHR_TSAN_H

#ifdef FTHR_TSAN
/* <sanitizer/tsan_interface.h>; weak, so the library loads without TSan */
void __tsan_mutex_pre_lock(void *addr, unsigned flags) __attribute__((weak));
void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion)
	__attribute__((weak));
int __tsan_mutex_pre_unlock(void *addr, unsigned flags) __attribute__((weak));
void __tsan_mutex_post_unlock(void *addr, unsigned flags) __attribute__((weak));
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
#define TSAN_TRY_LOCK 0x10
#define TSAN_TRY_LOCK_FAILED 0x20
#define TSAN_READ_LOCK 0x8
#define TSAN_CALL(f, ...) ((f) ? (void)(f)(__VA_ARGS__) : (void)0)
/* around a lock call r = CALL; flags: read/try */
#define TSAN_LOCK(addr, flags, call)                                           \
	({                                                                     \
		TSAN_CALL(__tsan_mutex_pre_lock, (void *)(addr), (flags));     \
		int r_ = (call);                                               \
		TSAN_CALL(__tsan_mutex_post_lock, (void *)(addr),              \
			  (flags) | (r_ == 0 ? 0 : TSAN_TRY_LOCK_FAILED), 0);  \
		r_;                                                            \
	})
#define TSAN_UNLOCK(addr, call)                                                \
	({                                                                     \
		TSAN_CALL(__tsan_mutex_pre_unlock, (void *)(addr), 0);         \
		int r_ = (call);                                               \
		TSAN_CALL(__tsan_mutex_post_unlock, (void *)(addr), 0);        \
		r_;                                                            \
	})
/* a condition wait: the mutex is given back, then taken again */
#define TSAN_WAIT_BEGIN(m)                                                     \
	(TSAN_CALL(__tsan_mutex_pre_unlock, (void *)(m), 0),                   \
	 TSAN_CALL(__tsan_mutex_post_unlock, (void *)(m), 0))
#define TSAN_WAIT_END(m)                                                       \
	(TSAN_CALL(__tsan_mutex_pre_lock, (void *)(m), 0),                     \
	 TSAN_CALL(__tsan_mutex_post_lock, (void *)(m), 0, 0))
#define TSAN_ACQUIRE(addr) TSAN_CALL(__tsan_acquire, (void *)(addr))
#define TSAN_RELEASE(addr) TSAN_CALL(__tsan_release, (void *)(addr))
#else
#define TSAN_TRY_LOCK 0
#define TSAN_READ_LOCK 0
#define TSAN_LOCK(addr, flags, call) (call)
#define TSAN_UNLOCK(addr, call) (call)
#define TSAN_WAIT_BEGIN(m) ((void)0)
#define TSAN_WAIT_END(m) ((void)0)
#define TSAN_ACQUIRE(addr) ((void)0)
#define TSAN_RELEASE(addr) ((void)0)
#endif

#endif
