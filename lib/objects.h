/* lib/objects.h: the hidden entry points of once, condition variables and
 * keys that other fthr objects call directly (C11, keys), declared once so
 * the compiler checks them against their definitions. */
#ifndef FTHR_OBJECTS_H
#define FTHR_OBJECTS_H

#include <errno.h>
#include <stdbool.h>
#include <threads.h>
#include <time.h>
#include "fthr_impl.h"

FTHR_HIDDEN int fthr_once(pthread_once_t *once, void (*init)(void));
FTHR_HIDDEN int fthr_once_entry(pthread_once_t *once, void (*init)(void));
FTHR_HIDDEN int fthr_cond_init(pthread_cond_t *c, const pthread_condattr_t *a);
FTHR_HIDDEN int fthr_cond_destroy(pthread_cond_t *c);
FTHR_HIDDEN int fthr_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
FTHR_HIDDEN int fthr_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				    const struct timespec *abstime);
FTHR_HIDDEN int fthr_cond_signal(pthread_cond_t *c);
FTHR_HIDDEN int fthr_cond_broadcast(pthread_cond_t *c);
FTHR_HIDDEN int fthr_key_create(pthread_key_t *k, void (*dtor)(void *));
FTHR_HIDDEN int fthr_key_delete(pthread_key_t k);
FTHR_HIDDEN void *fthr_getspecific(pthread_key_t k);
FTHR_HIDDEN int fthr_setspecific(pthread_key_t k, const void *v);
/* POSIX error number -> C11 thrd_* result, as glibc maps them. */
static inline int fthr_thrd_result(int e)
{
	switch (e) {
	case 0: return thrd_success;
	case EBUSY: return thrd_busy;
	case ETIMEDOUT: return thrd_timedout;
	case ENOMEM: return thrd_nomem;
	default: return thrd_error;
	}
}

#endif
