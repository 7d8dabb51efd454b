/* lib/fthr_impl.h: what every fthr object file shares.
 *
 *  - export/hide: the library is built with -fvisibility=hidden; an object's
 *    code lives in a hidden function (internal callers reach it without the
 *    PLT) and FTHR_EXPORT gives it its public, unversioned name.
 *  - atomics: thin wrappers on the compiler's __atomic builtins with the
 *    memory order spelled out at each call site.
 *  - glibc ABI constants the system headers do not publish.
 */
#ifndef FTHR_IMPL_H
#define FTHR_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include "arch.h"

#define FTHR_HIDDEN __attribute__((visibility("hidden")))
#define FTHR_NOINLINE __attribute__((noinline))
#define FTHR_COLD __attribute__((cold, noinline))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* Code that may run before the sanitizer runtimes are set up (diag_state.c's
 * reading of the environment, from another library's constructor) must not
 * be instrumented. */
#define FTHR_NO_SANITIZE                                                       \
	__attribute__((no_sanitize("address", "undefined", "thread")))

/* Invariants (./configure --enable-invariants, FreeBSD's
 * _PTHREADS_INVARIANTS idea): cheap checks of object state that abort with
 * the file and line when broken; nothing at all otherwise. */
#ifdef FTHR_INVARIANTS
FTHR_HIDDEN __attribute__((noreturn, cold)) void
fthr_invariant_failed(const char *what, const char *file, int line);
#define FTHR_ASSERT(c)                                                         \
	(likely(c) ? (void)0 : fthr_invariant_failed(#c, __FILE__, __LINE__))
#else
#define FTHR_ASSERT(c) ((void)0)
#endif

/* Give the hidden implementation 'impl' the exported name 'pub'. */
#define FTHR_EXPORT(pub, impl)                                                 \
	extern __typeof(impl) pub                                             \
		__attribute__((alias(#impl), visibility("default")))
/* On the definition of a plain function that FTHR_EXPORT_WATCHED (diag.h)
 * exports: its body is inlined into the exported entry point (and it is
 * still an ordinary hidden function for the library's own callers). */
#define FTHR_INLINED extern inline __attribute__((always_inline))
/* A second exported name for the exported function pub (glibc's
 * __pthread_* names), with pub's attributes from <pthread.h>. */
#define FTHR_EXPORT_ALIAS(alias_name, pub)                                     \
	extern __typeof(pub) alias_name                                       \
		__attribute__((alias(#pub), copy(pub), visibility("default")))
/* The same for a name <pthread.h> redirects to another (the _np aliases):
 * the C identifier stays private, the symbol gets the name. */
#define FTHR_EXPORT_ASM(pub, impl)                                             \
	extern __typeof(impl) fthr_export_##pub __asm__(#pub)                  \
		__attribute__((alias(#impl), visibility("default")))

/* ---- atomics on int words (futex words are 32-bit) ---- */
static inline int a_load_relaxed(const volatile int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline int a_load_acquire(const volatile int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void a_store_relaxed(volatile int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}
static inline void a_store_release(volatile int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}
/* CAS, acquire on success: the lock-taking transition. */
static inline bool a_cas_acquire(volatile int *p, int expect, int desired)
{
	return __atomic_compare_exchange_n(p, &expect, desired, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
/* CAS, acquire+release: state hand-overs that publish and observe. */
static inline bool a_cas_acq_rel(volatile int *p, int *expect, int desired)
{
	return __atomic_compare_exchange_n(p, expect, desired, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
static inline int a_swap_acquire(volatile int *p, int v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_ACQUIRE);
}
static inline int a_swap_release(volatile int *p, int v)
{
	return __atomic_exchange_n(p, v, __ATOMIC_RELEASE);
}

/* ---- glibc's mutex __kind bits (nptl/pthreadP.h), part of the ABI ---- */
#define FTHR_MUTEX_KIND_MASK 3     /* normal, recursive, errorcheck, adaptive */
#define FTHR_MUTEX_ROBUST 16
#define FTHR_MUTEX_PRIO_INHERIT 32
#define FTHR_MUTEX_PRIO_PROTECT 64
#define FTHR_MUTEX_PSHARED 128
#define FTHR_MUTEX_ELISION 256
#define FTHR_MUTEX_NO_ELISION 512
#define FTHR_MUTEX_CEILING_MASK 0xfff80000u

/* ---- glibc's pthread_mutexattr_t encoding (one int) ---- */
#define FTHR_MATTR_CEILING_SHIFT 12
#define FTHR_MATTR_CEILING_MASK 0x00fff000
#define FTHR_MATTR_PROTOCOL_SHIFT 28
#define FTHR_MATTR_PROTOCOL_MASK 0x30000000
#define FTHR_MATTR_ROBUST 0x40000000
#define FTHR_MATTR_PSHARED ((int)0x80000000u)
#define FTHR_MATTR_FLAG_BITS                                                   \
	(FTHR_MATTR_ROBUST | FTHR_MATTR_PSHARED | FTHR_MATTR_PROTOCOL_MASK |   \
	 FTHR_MATTR_CEILING_MASK)

/* ---- ABI checks: code compiled against the system <pthread.h> ---- */
_Static_assert(sizeof(pthread_mutex_t) == __SIZEOF_PTHREAD_MUTEX_T,
	       "mutex size is glibc's");
_Static_assert(offsetof(pthread_mutex_t, __data.__lock) == 0, "__lock at 0");
_Static_assert(offsetof(pthread_mutex_t, __data.__count) == 4, "__count at 4");
_Static_assert(offsetof(pthread_mutex_t, __data.__owner) == 8, "__owner at 8");
_Static_assert(offsetof(pthread_mutex_t, __data.__kind) == 16,
	       "__kind at byte 16, where the _NP static initializers put it");
_Static_assert(_Alignof(pthread_mutex_t) == _Alignof(long), "mutex alignment");
_Static_assert(sizeof(pthread_mutexattr_t) >= sizeof(int), "mutexattr holds an int");
_Static_assert(sizeof(pthread_once_t) == sizeof(int), "once is one futex word");
_Static_assert(sizeof(pthread_spinlock_t) == sizeof(int), "spinlock is one int");

#endif
