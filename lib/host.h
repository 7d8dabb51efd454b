/* lib/host.h: the host C library's own definitions of calls fthr also
 * defines, for the few places fthr needs the host's version underneath
 * (today: one host thread-specific key, whose destructor is fthr's
 * per-thread exit hook). Resolved once with dlvsym(RTLD_NEXT, name,
 * version) from the library constructor, before the program runs, so no
 * fast path ever resolves anything (and no malloc can recurse into it). */
#ifndef FTHR_HOST_H
#define FTHR_HOST_H

#include "fthr_impl.h"

struct fthr_host {
	int (*key_create)(pthread_key_t *, void (*)(void *));
	int (*setspecific)(pthread_key_t, const void *);
};

extern struct fthr_host fthr_host FTHR_HIDDEN;

/* Resolve (idempotent); false if the host lacks a needed call. */
FTHR_HIDDEN bool fthr_host_resolve(void);

#endif
