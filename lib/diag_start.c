/* lib/diag_start.c: the start of the profiler (FTHR_PROFILE) and the
 * checker (FTHR_CHECK), once, from this file's constructor or the first
 * watched call that looks up its object: the table of objects mapped, the
 * bounds of this library's text found for the call stacks (diag_state.c),
 * and the profile's report registered (diag_profile.c).
 *
 * Objects: a table of records keyed by object address (open addressing,
 * CAS on the key, never removed; 32768 records, mapped on first use).
 */
#include "config.h"
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "diag_impl.h"
#include "objects.h"

static pthread_once_t objs_once = PTHREAD_ONCE_INIT;

static void objs_init(void)
{
	fthr_diag_objs = mmap(NULL, NOBJ * sizeof(struct dobj), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fthr_diag_objs == MAP_FAILED)
		fthr_diag_objs = NULL;
	fthr_diag_stacks_init();
	if (profiling()) {
		atexit(fthr_diag_report_at_exit);
		if (fthr_diag_env.profile_sigusr2)
			signal(SIGUSR2, fthr_diag_report_on_signal);
	}
}

__attribute__((constructor)) static void diag_start(void)
{
	if (fthr_diag_mode())
		fthr_once(&objs_once, objs_init);
}

FTHR_HIDDEN struct dobj *fthr_diag_obj_of(const void *addr, int kind)
{
	unsigned long key = (unsigned long)addr;
	uint64_t h = (uint64_t)(key >> 3) * 0x9e3779b97f4a7c15ull;

	if (!fthr_diag_objs)
		fthr_once(&objs_once, objs_init);
	if (!fthr_diag_objs || !key)
		return NULL;
	for (unsigned i = 0, j = (unsigned)(h >> 49); i < 64; i++, j = (j + 1) % NOBJ) {
		struct dobj *o = &fthr_diag_objs[j];
		unsigned long k = __atomic_load_n(&o->key, __ATOMIC_ACQUIRE), zero = 0;

		if (k == key)
			return o;
		if (k == 0 && __atomic_compare_exchange_n(&o->key, &zero, key, false,
							  __ATOMIC_ACQ_REL,
							  __ATOMIC_ACQUIRE)) {
			o->kind = kind;
			return o;
		}
		if (zero == key)
			return o;
	}
	__atomic_fetch_add(&fthr_diag_objs_lost, 1, __ATOMIC_RELAXED);
	return NULL;
}
