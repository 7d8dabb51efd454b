/* lib/diag.h: the contention profiler (FTHR_PROFILE) and the lock checker
 * (FTHR_CHECK), lib/diag.c.
 *
 * Zero cost when off: every entry point they watch is exported as a GNU
 * indirect function (FTHR_EXPORT_DIAG). Its resolver runs once, while the
 * dynamic linker binds the program to fthr, reads the two variables from
 * /proc/self/environ with raw system calls, and returns either the plain
 * function (both off: the program calls exactly the code it would call
 * without this feature) or the watching variant in diag.c.
 */
#ifndef FTHR_DIAG_H
#define FTHR_DIAG_H

#include "fthr_impl.h"

#define FTHR_DIAG_PROFILE 1
#define FTHR_DIAG_CHECK 2
#define FTHR_DIAG_ABORT 4

/* The modes, from the environment the process started with (cached). */
FTHR_HIDDEN int fthr_diag_mode(void);

/* The thread-exit hook (thr_key.c) tells the checker a thread ends. */
FTHR_HIDDEN void fthr_diag_thread_exit(void);

/* A misuse found by the code of an object the checker does not watch
 * (what, the object's kind and address): reported when FTHR_CHECK is on. */
FTHR_HIDDEN void fthr_diag_misuse(const char *what, const char *kind,
				  const volatile void *obj);

/* Export pub as an indirect function: impl when both modes are off, the
 * watching variant diag_<impl> (lib/diag.c) otherwise. */
#define FTHR_EXPORT_DIAG(pub, impl)                                            \
	FTHR_NO_SANITIZE static __typeof(impl) *fthr_resolve_##pub(void)       \
	{                                                                      \
		return fthr_diag_mode() ? diag_##impl : impl;                  \
	}                                                                      \
	extern __typeof(impl) pub                                             \
		__attribute__((ifunc("fthr_resolve_" #pub), visibility("default")))

#endif
