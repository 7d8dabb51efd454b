/* lib/self.h: the per-thread record, one initial-exec TLS block per thread.
 *
 * It is filled lazily on the first fthr call that needs it, in any thread,
 * including threads fthr did not see created (no pthread_create hook is
 * needed). Reading it is a %fs/tpidr_el0-relative load: no syscall and no
 * call on a fast path once filled. A fork child handler clears the record of
 * the thread that forked, so its tid is read again in the child.
 */
#ifndef FTHR_SELF_H
#define FTHR_SELF_H

#include <limits.h>
#include <sys/syscall.h>
#include "fthr_impl.h"

/* Thread-specific data: the first FTHR_TSD_INLINE keys live in the record
 * itself, the rest in a block allocated on first use (thr_key.c). A slot's
 * value counts only while its seq equals the key's current seq. Values and
 * seqs are parallel arrays: the fast paths address a slot with one scaled
 * %fs-relative operand, no address arithmetic. */
#define FTHR_TSD_INLINE 16
struct fthr_tsd_more {
	void *data[PTHREAD_KEYS_MAX];
	unsigned seq[PTHREAD_KEYS_MAX];
};

/* A robust list head of fthr's own, for a thread the host registered none
 * for; 'prev' pads the word glibc's list code writes before the head. */
struct fthr_robust_head {
	void *prev;
	struct {
		void *list;
		long futex_offset;
		void *list_op_pending;
	} head;
};

struct fthr_self {
	int tid;		/* kernel thread id; 0 = not filled yet */
	void *robust;		/* this thread's kernel robust list head, or NULL */
	unsigned char exit_steps; /* exit steps armed, a bit each (thread_exit.c) */
	int tsd_epoch;		/* key_epoch its tsd slots were checked at */
	unsigned rdlocks;	/* read locks held, any rwlock (thr_rwlock.c) */
	int rbheld;		/* of which biased, in rblock (thr_rwlock_bias.c) */
	struct fthr_rblock *rblock; /* this thread's reader slots, or NULL */
	bool rblock_tried;	/* asked for rblock once */
	const void *rb_lock;	/* re-bias: the rwlock this thread read last, */
	int rb_writes;		/* its write count then, */
	int rb_streak;		/* and the reads of it since (thr_rwlock_bias.c) */
	void *tsd_data[FTHR_TSD_INLINE];
	unsigned tsd_seq[FTHR_TSD_INLINE];
	struct fthr_tsd_more *tsd_more; /* every key's slot, or NULL */
	struct fthr_robust_head own_robust;
	/* priority-protect mutexes held (thr_mutex_pp.c): how many per
	 * ceiling, the highest, and while any is held the thread's own
	 * policy and priority (moved: changed since, the host's record is
	 * older); pp_lock guards them against other threads' scheduling calls */
	int pp_lock;
	int pp_held, pp_max;
	int pp_base_policy, pp_base_prio;
	bool pp_base_moved;
	unsigned char pp_count[100];
	void *diag;		/* FTHR_CHECK/FTHR_PROFILE: locks held (diag_state.c) */
	bool diag_busy;		/* inside diag_*.c: calls go to the plain functions */
	int cancel_req;		/* set by pthread_cancel of this thread (cancel.c) */
	int cancel_busy;	/* pthread_cancel calls of it in flight (cancel.c) */
};

extern __thread struct fthr_self fthr_self_rec
	__attribute__((tls_model("initial-exec"))) FTHR_HIDDEN;

/* Thread t's record: its initial-exec TLS block lies at the same offset
 * from its thread descriptor as the caller's from its own (glibc.h, 1). */
static inline struct fthr_self *fthr_self_of(pthread_t t)
{
	return (struct fthr_self *)((char *)t +
				    ((char *)&fthr_self_rec - (char *)pthread_self()));
}

/* Fork generation, advanced by FTHR_FORK_GEN_STEP in every fork child: lets
 * pthread_once tell an initialization the parent left in progress. */
#define FTHR_FORK_GEN_STEP 4
extern int fthr_fork_gen FTHR_HIDDEN;

FTHR_HIDDEN int fthr_self_fill(void);

/* Thread-exit work (thread_exit.c). An object kind that keeps state per
 * thread arms its step in each thread that gets some; when that thread exits
 * (however it was created, the main thread's pthread_exit too), the host
 * library runs one key destructor of fthr's, which runs the thread's armed
 * steps in this order, then forgets them (a later arm, from a destructor
 * of the host's, arms the hook again). */
enum fthr_exit_step {
	FTHR_EXIT_TSD,		/* thr_key.c: key destructors, the thread's key block */
	FTHR_EXIT_RWLOCK,	/* thr_rwlock_bias.c: reader slots back to the pool */
	FTHR_EXIT_DIAG,		/* diag_state.c: locks still held reported, record freed */
	FTHR_EXIT_STEPS
};
#define FTHR_EXIT_BIT(step) (1u << (step))

/* Arm 'step' (always with the same fn) for the calling thread; false when
 * the host library cannot give fthr its key. */
FTHR_HIDDEN bool fthr_exit_arm(enum fthr_exit_step step, void (*fn)(void));

/* The calling thread's kernel tid. */
static inline int fthr_tid(void)
{
	int tid = fthr_self_rec.tid;

	if (unlikely(tid == 0))
		tid = fthr_self_fill();
	return tid;
}

/* sched_yield(2), inline */
static inline void fthr_yield(void)
{
	arch_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

#endif
