/* lib/diag_state.c: the state the profiler (FTHR_PROFILE) and the checker
 * (FTHR_CHECK) share (declared in diag_impl.h).
 *
 * The modes, read once from the environment the process started with (the
 * first watched call or this file's constructor). Objects: a table of
 * records keyed by object address (open addressing, CAS on the key, never
 * removed; 32768 records, mapped on first use). Call stacks, this library's
 * own innermost frames left out. And each thread's locks (object, mode,
 * call site), a small array hung off its TLS record, freed when the thread
 * exits, with a report if it still holds some.
 */
#include "config.h"
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "diag_impl.h"
#include "lll.h"
#include "objects.h"

/* ---- the environment, read once by the first watched call ---- */

FTHR_HIDDEN int fthr_diag_modes = -1;
FTHR_HIDDEN signed char fthr_diag_on = -1;
FTHR_HIDDEN char fthr_diag_profile_path[256];
FTHR_HIDDEN int fthr_diag_profile_top = 10;
static bool profile_sigusr2;

FTHR_NO_SANITIZE static bool starts(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

/* (libc's string functions are not used here: the first call may come from
 * another library's constructor, before a sanitizer's interceptors are set
 * up) */
FTHR_NO_SANITIZE static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

FTHR_NO_SANITIZE static int parse_int(const char *s)
{
	int v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

FTHR_NO_SANITIZE static void env_entry(const char *e, int *mode)
{
	const char *v;

	if (starts(e, "FTHR_PROFILE=")) {
		v = e + 13;
		if (*v && !streq(v, "0")) {
			*mode |= FTHR_DIAG_PROFILE;
			for (int i = 0; !streq(v, "1") && v[i] &&
					i < (int)sizeof(fthr_diag_profile_path) - 1; i++)
				fthr_diag_profile_path[i] = v[i];
		}
	} else if (starts(e, "FTHR_PROFILE_TOP=")) {
		if (parse_int(e + 17) > 0)
			fthr_diag_profile_top = parse_int(e + 17);
	} else if (starts(e, "FTHR_PROFILE_SIGUSR2=")) {
		profile_sigusr2 = e[21] == '1';
	} else if (starts(e, "FTHR_CHECK=")) {
		v = e + 11;
		if (streq(v, "abort"))
			*mode |= FTHR_DIAG_CHECK | FTHR_DIAG_ABORT;
		else if (*v && !streq(v, "0"))
			*mode |= FTHR_DIAG_CHECK;
	}
}

/* May run from another library's constructor, before this library's and
 * before the sanitizer runtimes are set up: raw system calls and static
 * memory only. The environment is the one the process was started with,
 * whatever the program has done to environ since. Returns the modes. */
FTHR_NO_SANITIZE static int env_read(void)
{
	char buf[1024], cur[300];
	int fd, len = 0, mode = 0;
	bool keep = true;
	long n;

	fd = (int)arch_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/environ",
				O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return 0;
	while ((n = arch_syscall6(SYS_read, fd, (long)buf, sizeof(buf), 0, 0, 0)) > 0)
		for (long i = 0; i < n; i++) {
			if (keep && len < (int)sizeof(cur) - 1)
				cur[len++] = buf[i];
			if (len == 5 && keep && !starts(cur, "FTHR_"))
				keep = false;
			if (buf[i] == '\0') {
				if (keep)
					env_entry(cur, &mode);
				len = 0;
				keep = true;
			}
		}
	arch_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return mode;
}

/* The first call decides (two racing first calls read the same file and
 * decide the same); fthr_diag_on follows, so that from then on the
 * watched entry points call diag_* only while a mode is on. */
FTHR_NO_SANITIZE int fthr_diag_mode(void)
{
	int mode = __atomic_load_n(&fthr_diag_modes, __ATOMIC_ACQUIRE);

	if (mode < 0) {
		mode = env_read();
		__atomic_store_n(&fthr_diag_modes, mode, __ATOMIC_RELEASE);
		__atomic_store_n(&fthr_diag_on, (signed char)mode, __ATOMIC_RELAXED);
	}
	return mode;
}

/* ---- objects ---- */

FTHR_HIDDEN struct dobj *fthr_diag_objs;
FTHR_HIDDEN volatile int fthr_diag_objs_lost;
static pthread_once_t objs_once = PTHREAD_ONCE_INIT;
static unsigned long lib_lo, lib_hi; /* our own text, skipped in stacks */

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long base = (unsigned long)arg;

	(void)size;
	if (info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			lib_lo = base + p->p_vaddr;
			lib_hi = lib_lo + p->p_memsz;
		}
	}
	return 1;
}

static void objs_init(void)
{
	Dl_info di;
	void *pc[2];

	fthr_diag_objs = mmap(NULL, NOBJ * sizeof(struct dobj), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (fthr_diag_objs == MAP_FAILED)
		fthr_diag_objs = NULL;
	if (dladdr((void *)fthr_diag_mode, &di) && di.dli_fbase)
		dl_iterate_phdr(find_self, di.dli_fbase);
	backtrace(pc, 2); /* loads the unwinder now, not inside a lock */
	if (profiling()) {
		atexit(fthr_diag_report_at_exit);
		if (profile_sigusr2)
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

FTHR_HIDDEN FTHR_NOINLINE void fthr_diag_capture(struct dsite *s)
{
	void *pc[DEPTH + 8];
	int n = backtrace(pc, DEPTH + 8), k = 0;

	for (int i = 0; i < n && k < DEPTH; i++) {
		unsigned long a = (unsigned long)pc[i];

		if (k == 0 && a >= lib_lo && a < lib_hi)
			continue; /* our own frames */
		s->pc[k++] = pc[i];
	}
	s->n = k;
}

/* ---- per thread ---- */

/* The thread exits (step FTHR_EXIT_DIAG, self.h): locks it still holds
 * are reported, its record freed. */
FTHR_NO_SANITIZE static void diag_thread_exit(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t)
		return;
	if (checking() && t->n > 0) {
		fthr_diag_check_begin("thread exits holding locks");
		for (int i = 0; i < t->n; i++) {
			fthr_diag_out("  ");
			fthr_diag_out_obj(t->h[i].o);
			fthr_diag_out(" (%s), taken at:\n", t->h[i].how == H_READ ? "read" : "held");
			fthr_diag_out_pc("    ", 0, t->h[i].pc);
		}
		fthr_lll_unlock(&fthr_diag_report_lock, false);
		if (fthr_diag_modes & FTHR_DIAG_ABORT)
			abort();
	}
	fthr_self_rec.diag = NULL;
	free(t);
}

FTHR_HIDDEN struct dthread *fthr_diag_me(void)
{
	struct dthread *t = fthr_self_rec.diag;

	if (!t) {
		t = calloc(1, sizeof(*t));
		fthr_self_rec.diag = t;
		fthr_exit_arm(FTHR_EXIT_DIAG, diag_thread_exit); /* frees it */
	}
	return t;
}

FTHR_HIDDEN struct dheld *fthr_diag_held_entry(struct dthread *t, struct dobj *o)
{
	for (int i = t->n - 1; i >= 0; i--)
		if (t->h[i].o == o)
			return &t->h[i];
	return NULL;
}
