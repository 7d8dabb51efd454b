/* lib/layout.h: the words fthr keeps inside glibc's types under no name of
 * glibc's, named once for lib/ and for the white-box tests
 * (tests/private.h), which read them by these names and by no byte offset
 * of their own: a word that moves in lib/ moves for the tests too, or the
 * build fails.
 *
 * glibc's public fields (__lock, __owner, __count, __kind, ...) need no
 * name here: they are glibc's ABI and mean under fthr what they mean under
 * glibc. The structs stay in their objects' files: thr_cond.c and
 * rwlock.h check theirs against this header with one line each
 * (FTHR_COND_LAYOUT, FTHR_RWLOCK_LAYOUT); the semaphore's is sem.h's.
 * System headers only: the tests include it without lib/'s include path.
 */
#ifndef FTHR_LAYOUT_H
#define FTHR_LAYOUT_H

#include <pthread.h>
#include <stddef.h>

/* ---- condition variables: thr_cond.c's struct cond, from byte 0 (its
 * head comment says what each word holds and why) ---- */
struct fthr_cond_words {
	int seq;	/* the futex word: every signal and broadcast adds 1 */
	int waiters;	/* threads inside a wait, and deferred broadcasts' holds */
	int flags;	/* process-shared, the clock */
	int sleepers;	/* in futex_wait, not yet woken */
	int herd;	/* seq as the last broadcast to a herd left it */
	int wake;	/* owed << 1 | flying */
};
/* The host's process-shared mark, bit 0 of __wrefs, lies beyond them:
 * glibc's calls for a process-shared condition must find it as they left
 * it. */
_Static_assert(sizeof(struct fthr_cond_words) <=
		       offsetof(pthread_cond_t, __data.__wrefs),
	       "fthr's cond words end before glibc's __wrefs");

#define FTHR_COND_WORD_IS(T, w)                                                \
	(offsetof(T, w) == offsetof(struct fthr_cond_words, w))
/* thr_cond.c's struct T has these words where this header says. */
#define FTHR_COND_LAYOUT(T)                                                    \
	_Static_assert(FTHR_COND_WORD_IS(T, seq) &&                            \
			       FTHR_COND_WORD_IS(T, waiters) &&                \
			       FTHR_COND_WORD_IS(T, flags) &&                  \
			       FTHR_COND_WORD_IS(T, sleepers) &&               \
			       FTHR_COND_WORD_IS(T, herd) &&                   \
			       FTHR_COND_WORD_IS(T, wake),                     \
		       "struct cond as layout.h names it")

/* ---- read-write locks: rwlock.h's struct rwlock ---- */
/* state, the int at glibc's __readers: its low bits count the readers
 * (glibc's own lock counts them from bit 3). */
#define FTHR_RW_READERS_SHIFT 0
/* The reader bias: the int at byte 40 of the 56-byte object on 64-bit
 * arches; the 32-bit object has no room for it, and bias is the int at
 * byte 12, which a private lock never writes (off for ever). Its low two
 * bits are the mode, an epoch above them. */
#if __SIZEOF_LONG__ == 8
#define FTHR_RW_BIAS_AT 40
#else
#define FTHR_RW_BIAS_AT 12
#endif
#define FTHR_RW_BIAS_MODE 3
#define FTHR_RW_BIAS_ON 1

/* rwlock.h's struct T has these words where this header says. */
#define FTHR_RWLOCK_LAYOUT(T)                                                  \
	_Static_assert(offsetof(T, state) ==                                   \
			       offsetof(pthread_rwlock_t, __data.__readers) && \
			       offsetof(T, bias) == FTHR_RW_BIAS_AT,           \
		       "struct rwlock as layout.h names it")

/* ---- mutexes: the fair word (lll.h), the int at __spins of a
 * process-private normal, recursive or errorcheck mutex (thr_mutex.c,
 * fair_word); its low byte counts the starving sleepers. ---- */
#define FTHR_FAIR_COUNT 0xffu
/* (thr_mutex.c asserts it too; here for the tests' build of pthread.h) */
_Static_assert(offsetof(pthread_mutex_t, __data.__spins) % sizeof(int) == 0 &&
		       offsetof(pthread_mutex_t, __data.__spins) + sizeof(int) <=
			       sizeof(pthread_mutex_t),
	       "an int at __spins");

#endif
