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

#include "fthr_impl.h"

/* Thread-specific data: the first FTHR_TSD_INLINE keys live in the record
 * itself, the rest in a block allocated on first use (thr_key.c). A slot's
 * value counts only while its seq equals the key's current seq. */
#define FTHR_TSD_INLINE 16
struct fthr_tsd_slot {
	unsigned seq;
	void *data;
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
	bool tsd_hooked;	/* thread-exit hook armed (thr_key.c) */
	unsigned rdlocks;	/* read locks held, any rwlock (thr_rwlock.c) */
	struct fthr_tsd_slot tsd[FTHR_TSD_INLINE];
	struct fthr_tsd_slot *tsd_more; /* PTHREAD_KEYS_MAX slots, or NULL */
	struct fthr_robust_head own_robust;
	/* priority-protect mutexes held (thr_mutex_pp.c): how many per
	 * ceiling, and the priority to return to when none is */
	int pp_held;
	int pp_base_policy, pp_base_prio;
	unsigned char pp_count[100];
};

extern __thread struct fthr_self fthr_self_rec
	__attribute__((tls_model("initial-exec"))) FTHR_HIDDEN;

/* Fork generation, advanced by FTHR_FORK_GEN_STEP in every fork child: lets
 * pthread_once tell an initialization the parent left in progress. */
#define FTHR_FORK_GEN_STEP 4
extern int fthr_fork_gen FTHR_HIDDEN;

FTHR_HIDDEN int fthr_self_fill(void);

/* The calling thread's kernel tid. */
static inline int fthr_tid(void)
{
	int tid = fthr_self_rec.tid;

	if (unlikely(tid == 0))
		tid = fthr_self_fill();
	return tid;
}

#endif
