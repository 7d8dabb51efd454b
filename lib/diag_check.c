/* lib/diag_check.c: the lock checker (FTHR_CHECK). The checks of one
 * call, before or after the plain function: use of a destroyed or never
 * initialized object, relock of a lock this thread holds, unlock of one it
 * does not, destroy of an object in use, a condition wait with a mutex not
 * held or with two mutexes; and misuse other objects' code finds
 * (fthr_diag_misuse).
 *
 * The end of a report (diag_report.c writes its first line): the stack
 * of the call, then abort() under FTHR_CHECK=abort.
 *
 * The lock-order graph: edges "B taken while A held", each with the stack
 * that first took it, changed under one internal low-level lock; a new edge
 * A->B is a reported inversion when B already reaches A. An object's edges
 * live as long as it does (its generation).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include "diag_impl.h"
#include "lll.h"

static volatile int graph_lock;
static unsigned visit_stamp;

FTHR_HIDDEN void fthr_diag_check_end(void)
{
	struct dsite now;

	fthr_diag_out("  at:\n");
	fthr_diag_capture(&now);
	fthr_diag_out_site(&now);
	fthr_lll_unlock(&fthr_diag_report_lock, false);
	if (fthr_diag_modes & FTHR_DIAG_ABORT)
		abort();
}

FTHR_HIDDEN void fthr_diag_check_use(struct dobj *o)
{
	if (!checking() || o->state != ST_DESTROYED)
		return;
	fthr_diag_check_begin("use of a destroyed object");
	fthr_diag_out("  ");
	fthr_diag_out_obj(o);
	fthr_diag_out(" was destroyed at:\n");
	fthr_diag_out_site(&o->destroy_site);
	fthr_diag_check_end();
}

FTHR_HIDDEN void fthr_diag_check_invalid(struct dobj *o, int r)
{
	if (!checking() || r != EINVAL || o->state == ST_DESTROYED)
		return;
	fthr_diag_check_begin("use of an object that was never initialized (invalid contents)");
	fthr_diag_out("  ");
	fthr_diag_out_obj(o);
	fthr_diag_out("\n");
	fthr_diag_check_end();
}

/* Is 'to' reachable from 'from'? Under graph_lock. */
static struct dedge *reaches(struct dobj *from, struct dobj *to)
{
	if (from == to)
		return (struct dedge *)1;
	if (from->visit == visit_stamp)
		return NULL;
	from->visit = visit_stamp;
	for (struct dedge *e = from->out; e; e = e->next)
		if (e->gen == e->to->gen && reaches(e->to, to))
			return e;
	return NULL;
}

static void add_edge(struct dobj *a, struct dobj *b, void *pc_a)
{
	struct dedge *e, *back;

	fthr_lll_lock(&graph_lock, false);
	for (e = a->out; e; e = e->next)
		if (e->to == b && e->gen == b->gen)
			break;
	if (e) {
		fthr_lll_unlock(&graph_lock, false);
		return;
	}
	visit_stamp++;
	back = reaches(b, a);
	e = calloc(1, sizeof(*e));
	if (e) {
		e->to = b;
		e->gen = b->gen;
		fthr_diag_capture(&e->site);
		e->next = a->out;
		a->out = e;
	}
	if (back) {
		if (e)
			e->reported = true;
		fthr_diag_check_begin("lock-order inversion (a deadlock waiting to happen)");
		fthr_diag_out("  this thread takes ");
		fthr_diag_out_obj(b);
		fthr_diag_out(" while holding ");
		fthr_diag_out_obj(a);
		fthr_diag_out(", which it took at:\n");
		fthr_diag_out_pc("    ", 0, pc_a);
		fthr_diag_out("  but ");
		fthr_diag_out_obj(b);
		fthr_diag_out(" was taken before ");
		fthr_diag_out_obj(a);
		fthr_diag_out(" (directly or through other locks), first at:\n");
		if (back != (struct dedge *)1)
			fthr_diag_out_site(&back->site);
		fthr_lll_unlock(&graph_lock, false);
		fthr_diag_check_end();
		return;
	}
	fthr_lll_unlock(&graph_lock, false);
}

/* Before a blocking acquisition of o: a relock of one's own lock (unless
 * recursive_ok, or both holds are reads), and the lock-order edges from
 * every lock held. */
FTHR_HIDDEN void fthr_diag_check_acquire(struct dobj *o, int how, bool recursive_ok)
{
	struct dthread *t;
	struct dheld *h;

	if (!checking() || !(t = fthr_diag_me()))
		return;
	h = fthr_diag_held_entry(t, o);
	if (h && !recursive_ok && (how == H_WRITE || h->how == H_WRITE)) {
		fthr_diag_check_begin("relock of a lock this thread holds (self-deadlock)");
		fthr_diag_out("  ");
		fthr_diag_out_obj(o);
		fthr_diag_out(" was taken at:\n");
		fthr_diag_out_pc("    ", 0, h->pc);
		fthr_diag_check_end();
	}
	for (int i = 0; i < t->n; i++)
		if (t->h[i].o != o)
			add_edge(t->h[i].o, o, t->h[i].pc);
}

/* Before a release: is it ours? Returns the entry (NULL if not held). */
FTHR_HIDDEN struct dheld *fthr_diag_check_release(struct dobj *o)
{
	struct dthread *t = fthr_diag_me();
	struct dheld *h = t ? fthr_diag_held_entry(t, o) : NULL;

	if (checking() && !h && t && t->n < NHELD) {
		fthr_diag_check_begin("unlock of a lock this thread does not hold");
		fthr_diag_out("  ");
		fthr_diag_out_obj(o);
		if (o->owner)
			fthr_diag_out(" is held by thread %d\n", o->owner);
		else
			fthr_diag_out(" (not held by any thread fthr saw lock it)\n");
		fthr_diag_check_end();
	}
	return h;
}

/* Before a condition wait on oc with the mutex m (record om): the mutex is
 * this thread's (not_held: the thread's record has no hold of it), and oc's
 * other waiters wait with the same mutex. */
FTHR_HIDDEN void fthr_diag_check_wait(struct dobj *oc, struct dobj *om, void *m,
				      bool not_held)
{
	if (checking() && not_held) {
		fthr_diag_check_begin("condition wait with a mutex this thread does not hold");
		fthr_diag_out("  ");
		fthr_diag_out_obj(oc);
		fthr_diag_out(" with ");
		fthr_diag_out_obj(om);
		fthr_diag_out("\n");
		fthr_diag_check_end();
	}
	if (checking() && oc->waiters > 0 && oc->cond_mutex != m) {
		fthr_diag_check_begin("one condition variable waited on with two mutexes");
		fthr_diag_out("  ");
		fthr_diag_out_obj(oc);
		fthr_diag_out(": now with mutex %p, other waiters with mutex %p\n", m,
			      oc->cond_mutex);
		fthr_diag_check_end();
	}
}

FTHR_HIDDEN void fthr_diag_check_destroy(struct dobj *o, const char *what)
{
	if (checking() && (o->holds > 0 || o->waiters > 0)) {
		fthr_diag_check_begin(what);
		fthr_diag_out("  ");
		fthr_diag_out_obj(o);
		fthr_diag_out(": %d holds, %d waiters\n", o->holds, o->waiters);
		fthr_diag_check_end();
	}
}

FTHR_HIDDEN void fthr_diag_destroyed(struct dobj *o)
{
	o->state = ST_DESTROYED;
	fthr_lll_lock(&graph_lock, false);
	o->gen++;
	o->out = NULL; /* the edges stay allocated: others may be reading */
	fthr_lll_unlock(&graph_lock, false);
	if (checking())
		fthr_diag_capture(&o->destroy_site);
}

FTHR_HIDDEN void fthr_diag_misuse(const char *what, const char *kind,
				  const volatile void *obj)
{
	if (!checking() || !enter())
		return;
	fthr_diag_check_begin(what);
	fthr_diag_out("  %s %p\n", kind, (const void *)obj);
	fthr_diag_check_end();
	leave();
}
