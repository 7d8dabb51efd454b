/* tests/private.h: the white-box tests' one way into fthr's private state,
 * an accessor per word a test reads. Each is defined by lib/'s own names
 * (lib/layout.h, lib/sem.h), which lib/ checks its structs against, never
 * by a byte offset of the test's: a word that moves in lib/ moves here too.
 * glibc's public fields (__lock, __owner, __kind, ...) are read by their
 * names, as glibc's ABI, without an accessor.
 *
 * The suites also run on glibc alone: an accessor then reads whatever
 * glibc keeps there, and its caller asserts only what holds for both (or
 * asks harness_object_of whose code runs). */
#ifndef FTHR_TESTS_PRIVATE_H
#define FTHR_TESTS_PRIVATE_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include "../lib/layout.h"
#include "../lib/sem.h"

static inline int priv_load(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

/* ---- condition variables (lib/thr_cond.c) ---- */
static inline const struct fthr_cond_words *priv_cond(const pthread_cond_t *c)
{
	return (const struct fthr_cond_words *)(const void *)c;
}

/* The futex word, moved by every signal and broadcast. */
static inline int priv_cond_seq(const pthread_cond_t *c)
{
	return priv_load(&priv_cond(c)->seq);
}

/* Waiters asleep in futex_wait that no wake-up has counted out. */
static inline int priv_cond_sleepers(const pthread_cond_t *c)
{
	return priv_load(&priv_cond(c)->sleepers);
}

/* seq as the last broadcast that woke a herd left it. */
static inline int priv_cond_herd(const pthread_cond_t *c)
{
	return priv_load(&priv_cond(c)->herd);
}

/* owed << 1 | flying: the wake-up in flight and those owed after it. */
static inline int priv_cond_wake(const pthread_cond_t *c)
{
	return priv_load(&priv_cond(c)->wake);
}

/* ---- read-write locks (lib/rwlock.h, lib/thr_rwlock_bias.c) ---- */
/* The reader bias's mode: 0 off, FTHR_RW_BIAS_ON on, 2 revoked; always
 * off on 32-bit arches (their object has no room for the bias). */
static inline int priv_rwlock_bias_mode(const pthread_rwlock_t *rw)
{
	const char *at = (const char *)rw + FTHR_RW_BIAS_AT;

	if (sizeof(long) != 8)
		return 0;
	return priv_load((const int *)(const void *)at) & FTHR_RW_BIAS_MODE;
}

/* The word that counts a lock's readers, and where in it they are counted:
 * fthr's from bit FTHR_RW_READERS_SHIFT, glibc's own lock's from bit 3
 * (nptl's __PTHREAD_RWLOCK_READER_SHIFT). */
#define PRIV_GLIBC_RW_READERS_SHIFT 3
static inline unsigned *priv_rwlock_readers(pthread_rwlock_t *rw)
{
	return &rw->__data.__readers;
}

/* ---- mutexes (lib/thr_mutex.c, lib/lll.h) ---- */
/* The starving sleepers a mutex's fair word counts. */
static inline int priv_mutex_fair_starving(const pthread_mutex_t *m)
{
	int f;

	memcpy(&f, (const char *)m + offsetof(pthread_mutex_t, __data.__spins), sizeof(f));
	return (int)((unsigned)f & FTHR_FAIR_COUNT);
}

/* ---- semaphores (lib/sem.h: glibc's layout, which a glibc process
 * sharing a semaphore with fthr relies on) ---- */
#if SEM_64
/* The 64-bit word: the value in the low half, the waiters in the high. */
static inline uint64_t priv_sem_data(sem_t *s)
{
	return __atomic_load_n(&((struct sem *)(void *)s)->data, __ATOMIC_ACQUIRE);
}

static inline unsigned priv_sem_nwaiters(sem_t *s)
{
	return (unsigned)(priv_sem_data(s) >> SEM_NWAITERS_SHIFT);
}
#endif

/* glibc's "private" word: 0 process-private, SEM_SHARED process-shared. */
static inline int priv_sem_private(sem_t *s)
{
	return ((struct sem *)(void *)s)->private;
}

#endif
