/* lib/thr_key.c: thread-specific data through the per-thread TLS record.
 *
 * No futex. The key table is global: key_seq[k] is odd while key k is in
 * use and moves on (by one) at create and at delete, so a slot a thread
 * filled under an earlier life of the key never shows through: a value
 * counts only while slot seq == key_seq[k]. Create and delete are CASes on
 * seq. Every delete also advances key_epoch; a thread whose tsd_epoch is
 * behind it first clears its slots whose seq no longer matches (only the
 * thread itself writes its slots) and catches up. So the getspecific fast
 * path is a bounds check, an epoch compare and a TLS load, and
 * setspecific's a bounds check, the key's seq and two TLS stores.
 *
 * Thread exit: the first setspecific in a thread arms the thread-exit step
 * FTHR_EXIT_TSD (self.h), tsd_exit: it runs fthr's destructors in up to
 * PTHREAD_DESTRUCTOR_ITERATIONS rounds, then frees the thread's block.
 */
#include "config.h"
#include <errno.h>
#include <limits.h>
#include <sys/mman.h>
#include "objects.h"
#include "self.h"

#define TSD_MORE_SIZE sizeof(struct fthr_tsd_more)

/* The key table, as parallel arrays (one scaled load on the fast paths) */
static volatile unsigned key_seq[PTHREAD_KEYS_MAX];
static void (*key_dtor[PTHREAD_KEYS_MAX])(void *);
/* Advanced by every delete; a thread's values count without a look at the
 * seqs while its tsd_epoch equals it. */
static volatile int key_epoch;

static void tsd_exit(void);

static inline bool in_use(unsigned seq)
{
	return seq & 1;
}

/* Key k's slot of the calling thread (value and seq), or NULL data when
 * the thread has no block for it yet. */
struct slot {
	void **data;
	unsigned *seq;
};

FTHR_NO_SANITIZE static struct slot slot_of(pthread_key_t k)
{
	struct fthr_self *self = &fthr_self_rec;

	if (k < FTHR_TSD_INLINE)
		return (struct slot){ &self->tsd_data[k], &self->tsd_seq[k] };
	if (self->tsd_more)
		return (struct slot){ &self->tsd_more->data[k], &self->tsd_more->seq[k] };
	return (struct slot){ NULL, NULL };
}

/* Forget the values of deleted keys (slot.seq != key.seq), then note the
 * epoch they were checked against. */
static void tsd_revalidate(void)
{
	struct fthr_self *self = &fthr_self_rec;
	int epoch = a_load_acquire(&key_epoch);
	pthread_key_t k, n = self->tsd_more ? PTHREAD_KEYS_MAX : FTHR_TSD_INLINE;

	for (k = 0; k < n; k++) {
		struct slot s = slot_of(k);

		if (*s.seq != key_seq[k])
			*s.data = NULL;
	}
	self->tsd_epoch = epoch;
}

static FTHR_NOINLINE void *getspecific_slow(pthread_key_t k)
{
	struct slot s;

	if (k >= PTHREAD_KEYS_MAX)
		return NULL;
	if (fthr_self_rec.tsd_epoch != a_load_relaxed(&key_epoch))
		tsd_revalidate();
	s = slot_of(k);
	return s.data && *s.seq == key_seq[k] ? *s.data : NULL;
}

FTHR_HIDDEN FTHR_LINE_ALIGNED void *fthr_getspecific(pthread_key_t k)
{
	if (likely(k < FTHR_TSD_INLINE) &&
	    likely(fthr_self_rec.tsd_epoch == a_load_relaxed(&key_epoch)))
		return fthr_self_rec.tsd_data[k];
	return getspecific_slow(k);
}

static FTHR_NOINLINE int tsd_prepare(pthread_key_t k)
{
	struct fthr_self *self = &fthr_self_rec;

	/* mmap, not malloc: a malloc that keeps its own state in keys must not
	 * recurse into itself through here. */
	if (k >= FTHR_TSD_INLINE && !self->tsd_more) {
		int saved = errno; /* pthread calls leave errno alone */
		void *p = mmap(NULL, TSD_MORE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		errno = saved;
		if (p == MAP_FAILED)
			return ENOMEM;
		self->tsd_more = p;
	}
	/* POSIX lists ENOMEM, EINVAL */
	return fthr_exit_arm(FTHR_EXIT_TSD, tsd_exit) ? 0 : ENOMEM;
}

static FTHR_NOINLINE int setspecific_slow(pthread_key_t k, const void *value)
{
	struct slot s;
	unsigned seq;
	int r;

	if (k >= PTHREAD_KEYS_MAX || !in_use(seq = key_seq[k]))
		return EINVAL;
	if ((r = tsd_prepare(k)) != 0)
		return r;
	s = slot_of(k);
	*s.seq = seq;
	*s.data = (void *)value;
	return 0;
}

FTHR_HIDDEN int fthr_setspecific(pthread_key_t k, const void *value)
{
	unsigned seq;

	if (likely(k < FTHR_TSD_INLINE) &&
	    likely(fthr_self_rec.exit_steps & FTHR_EXIT_BIT(FTHR_EXIT_TSD)) &&
	    likely(in_use(seq = key_seq[k]))) {
		fthr_self_rec.tsd_seq[k] = seq;
		fthr_self_rec.tsd_data[k] = (void *)value;
		return 0;
	}
	return setspecific_slow(k, value);
}

FTHR_HIDDEN int fthr_key_create(pthread_key_t *key, void (*dtor)(void *))
{
	pthread_key_t k;

	for (k = 0; k < PTHREAD_KEYS_MAX; k++) {
		unsigned seq = key_seq[k];

		/* free, and its seq not about to wrap into an old value */
		if (in_use(seq) || seq + 2 < seq)
			continue;
		/* claim first, then set the destructor: no value can carry the
		 * new seq before we return the key */
		if (__atomic_compare_exchange_n(&key_seq[k], &seq, seq + 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			key_dtor[k] = dtor;
			*key = k;
			return 0;
		}
	}
	return EAGAIN;
}

FTHR_HIDDEN int fthr_key_delete(pthread_key_t k)
{
	unsigned seq;

	if (k >= PTHREAD_KEYS_MAX || !in_use(seq = key_seq[k]))
		return EINVAL;
	if (!__atomic_compare_exchange_n(&key_seq[k], &seq, seq + 1, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return EINVAL;
	/* every thread forgets its value on its next getspecific */
	__atomic_fetch_add(&key_epoch, 1, __ATOMIC_RELEASE);
	return 0;
}

/* The thread exits (step FTHR_EXIT_TSD, self.h). Not instrumented by
 * sanitizers, as the hook that calls it (self.c). */
FTHR_NO_SANITIZE static void tsd_exit(void)
{
	struct fthr_self *self = &fthr_self_rec;
	int round;

	for (round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		pthread_key_t k, n = self->tsd_more ? PTHREAD_KEYS_MAX : FTHR_TSD_INLINE;
		bool ran = false;

		for (k = 0; k < n; k++) {
			struct slot s = slot_of(k);
			void (*dtor)(void *) = key_dtor[k];
			void *v = *s.data;

			if (!v || *s.seq != key_seq[k] || !in_use(*s.seq))
				continue;
			*s.data = NULL;
			if (dtor) {
				dtor(v);
				ran = true;
			}
		}
		if (!ran)
			break;
	}
	if (self->tsd_more)
		munmap(self->tsd_more, TSD_MORE_SIZE);
	self->tsd_more = NULL;
	for (int i = 0; i < FTHR_TSD_INLINE; i++)
		self->tsd_data[i] = NULL;
}

FTHR_EXPORT(pthread_key_create, fthr_key_create);
FTHR_EXPORT(pthread_key_delete, fthr_key_delete);
FTHR_EXPORT(pthread_getspecific, fthr_getspecific);
FTHR_EXPORT(pthread_setspecific, fthr_setspecific);
/* glibc's alternate names */
FTHR_EXPORT(__pthread_key_create, fthr_key_create);
FTHR_EXPORT(__pthread_getspecific, fthr_getspecific);
FTHR_EXPORT(__pthread_setspecific, fthr_setspecific);
