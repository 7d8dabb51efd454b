/* lib/diag.h: the contention profiler (FTHR_PROFILE) and the lock checker
 * (FTHR_CHECK), lib/diag_*.c (diag_impl.h says what each file holds).
 *
 * Near zero cost when off: every entry point they watch is an ordinary
 * exported function, defined in its object's own file by
 * FTHR_EXPORT_WATCHED, whose first step tests one word, fthr_diag_on. Zero
 * (both off): the plain function's body, inlined there, runs. Non-zero
 * (either on, or the environment not read yet): a tail call to the
 * watching variant diag_<impl> in diag_watch.c, which reads the two variables
 * from /proc/self/environ on its first call and hands the call to the
 * plain function when both are off.
 *
 * (These were GNU indirect functions once; ld.so warns about an IFUNC
 * defined in a library relocated after a bind-now object that uses it,
 * "Relink `liblzma.so.5' with `libfthr.so.0' for IFUNC symbol", which
 * changed the output of preloaded programs.)
 */
#ifndef FTHR_DIAG_H
#define FTHR_DIAG_H

#include "fthr_impl.h"

#define FTHR_DIAG_PROFILE 1
#define FTHR_DIAG_CHECK 2
#define FTHR_DIAG_ABORT 4

/* The modes: -1 until the environment is read (the first watched call or
 * diag_start.c's constructor), then the FTHR_DIAG_* bits, fixed for the life of
 * the process. */
FTHR_HIDDEN extern signed char fthr_diag_on;

/* The modes, from the environment the process started with (cached). */
FTHR_HIDDEN int fthr_diag_mode(void);

/* A misuse found by the code of an object the checker does not watch
 * (what, the object's kind and address): reported when FTHR_CHECK is on. */
FTHR_HIDDEN void fthr_diag_misuse(const char *what, const char *kind,
				  const volatile void *obj);

/* Define the exported function pub (return type ret, parameter list
 * params, argument list args): the plain hidden function impl, or, while
 * fthr_diag_on is set, diag_<impl>. Used in impl's own file, so that impl
 * is inlined: the plain path pays one load and one branch. The call to the
 * watching variant is a tail call (-foptimize-sibling-calls, Makefile.am),
 * so the variant sees the program's return address. */
#define FTHR_EXPORT_WATCHED(ret, pub, impl, params, args)                      \
	FTHR_HIDDEN ret diag_##impl params;                                    \
	FTHR_HIDDEN ret fthr_entry_##pub params                               \
	{                                                                      \
		if (unlikely(fthr_diag_on))                                    \
			return diag_##impl args;                               \
		return impl args;                                              \
	}                                                                      \
	FTHR_EXPORT(pub, fthr_entry_##pub);

#endif
