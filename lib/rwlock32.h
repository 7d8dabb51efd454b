/* lib/rwlock32.h: the read-write lock's layout on 32-bit arches (rwlock.h
 * includes it; thr_rwlock.c's head comment says what each word is). */
#ifndef FTHR_RWLOCK32_H
#define FTHR_RWLOCK32_H

/* 32-bit arches: glibc's object is 32 bytes, __flags and __shared are the
 * bytes at 24 and 25, __cur_writer the int at 28. No room for the reader
 * bias: it stays off (bias, rev and writes are the pshared wseq's word,
 * which a private lock never writes, and read 0). A private lock counts
 * its sleepers by its queue, a pshared one (on a host without glibc's
 * calls) has no queue: the two share words. */
#define RW_WIDE 0
#define RW_BIAS 0
struct rwlock {
	volatile int state;
	volatile int lock;
	union {
		volatile int rseq;	/* pshared */
		volatile int pending;	/* private */
	};
	union {
		volatile int wseq;	/* pshared */
		volatile int bias;	/* private: BIAS_OFF for ever */
		volatile int rev;	/* private: 0 for ever */
		int writes;	/* private: never counted */
	};
	union {
		int rwait;	/* pshared */
		struct waiter *queue;	/* private */
	};
	int wwait;	/* pshared */
	unsigned char flags;	/* offset 24, glibc's __flags */
	unsigned char shared;	/* offset 25, glibc's __shared */
	unsigned char pad[2];
	int writer;	/* offset 28, glibc's __cur_writer */
};
_Static_assert(__builtin_offsetof(struct rwlock, writer) ==
	       __builtin_offsetof(pthread_rwlock_t, __data.__cur_writer), "__cur_writer");

#endif
