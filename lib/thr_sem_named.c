/* lib/thr_sem_named.c: named semaphores, the same files glibc uses
 * (/dev/shm/sem.NAME holding one sem_t), so fthr and plain-glibc processes
 * open the same semaphore. A process maps each file once per name as the
 * caller spells it: opening a name it has open already returns the same
 * address, counted, and sem_close unmaps on the last close (glibc's rule:
 * "/x" and "x" name one file but are two mappings, two handles). The list
 * of mappings is guarded by a low-level lock; no futex protocol of its own
 * beyond that (the semaphore is thr_sem.c's). None of the three is a
 * cancellation point, as in glibc: sem_open holds cancellation off
 * (below), sem_close and sem_unlink call none (munmap, unlink).
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "lll.h"
#include "sem.h"

#define SHM_DIR "/dev/shm/"
#define SEM_PREFIX "sem."

struct mapping {
	struct mapping *next;
	dev_t dev;
	ino_t ino;
	int refs;
	sem_t *sem;
	char name[];	/* as the caller gave it */
};

static struct mapping *mappings;
static volatile int mappings_lock;

/* "/dev/shm/sem.NAME" for a valid NAME; false otherwise. glibc's rules
 * (__shm_get_name): leading slashes skipped; NAME not empty, without another
 * slash, and at most NAME_MAX bytes. "." and ".." are valid: the "sem."
 * prefix makes them the files sem.. and sem... in /dev/shm, no traversal.
 * A NAME of NAME_MAX - 3 bytes or more passes here but makes the file name
 * longer than NAME_MAX: the kernel answers ENAMETOOLONG, as under glibc. */
static bool sem_path(const char *name, char *buf, size_t size)
{
	size_t n;

	while (*name == '/')
		name++;
	n = strlen(name);
	if (n == 0 || n > NAME_MAX || strchr(name, '/'))
		return false;
	snprintf(buf, size, "%s%s%s", SHM_DIR, SEM_PREFIX, name);
	return true;
}

/* Map fd (or reuse this process's mapping of the same file under the
 * same name). */
static sem_t *map_sem(int fd, const char *name)
{
	struct stat st;
	struct mapping *m;
	sem_t *sem = SEM_FAILED;
	void *p;

	if (fstat(fd, &st) != 0)
		return SEM_FAILED;
	/* A file shorter than a sem_t (planted, or truncated) is no semaphore:
	 * an empty one raises SIGBUS on first use of the mapping, a short one
	 * keeps part of the sem_t past its end. Refuse it (glibc maps it). */
	if (st.st_size < (off_t)sizeof(sem_t)) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	fthr_lll_lock(&mappings_lock, false);
	for (m = mappings; m; m = m->next)
		if (m->dev == st.st_dev && m->ino == st.st_ino && !strcmp(m->name, name)) {
			m->refs++;
			sem = m->sem;
			goto out;
		}
	m = malloc(sizeof(*m) + strlen(name) + 1);
	if (!m) {
		errno = ENOMEM;
		goto out;
	}
	p = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		free(m);
		goto out;
	}
	m->next = mappings, m->dev = st.st_dev, m->ino = st.st_ino;
	m->refs = 1, m->sem = p;
	strcpy(m->name, name);
	mappings = m;
	sem = p;
out:
	fthr_lll_unlock(&mappings_lock, false);
	return sem;
}

/* Create the file fully initialized under a temporary name, then link it
 * into place, so no process ever sees a half-written semaphore. Returns
 * the open fd, -1 with errno (EEXIST when somebody else won the race). */
static int create_sem_file(const char *path, mode_t mode, unsigned value)
{
	static unsigned long counter;
	char tmp[sizeof(SHM_DIR) + 32];
	struct timespec now;
	struct sem init = { 0 }; /* (fthr_sem_setup leaves pad alone) */
	sem_t buf;
	ssize_t w;
	int fd = -1, e, i;

	/* The mode goes through open(), so the umask applies, as with glibc;
	 * only its permission bits: POSIX sets the permission bits from it,
	 * and a semaphore's file has no use for setuid, setgid or sticky. */
	mode &= 0777;
	for (i = 0; i < 100 && fd < 0; i++) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		snprintf(tmp, sizeof(tmp), "%ssem.%lx", SHM_DIR,
			 (unsigned long)now.tv_nsec ^ ((unsigned long)getpid() << (sizeof(long) * 4)) ^
				 __atomic_add_fetch(&counter, 0x9e3779b9ul, __ATOMIC_RELAXED));
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	/* No free temporary name in 100 tries: EAGAIN, as glibc; not EEXIST,
	 * which the caller takes for "the semaphore exists". */
	if (fd < 0) {
		errno = EAGAIN;
		return -1;
	}
	memset(&buf, 0, sizeof(buf));
	fthr_sem_setup(&init, value, true);
	memcpy(&buf, &init, sizeof(init));
	w = write(fd, &buf, sizeof(buf));
	if (w != (ssize_t)sizeof(buf) || link(tmp, path) != 0) {
		e = w >= 0 && w != (ssize_t)sizeof(buf) ? ENOSPC : errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	unlink(tmp);
	return fd;
}

/* Open or create the file at path and map it: the body of sem_open. */
static sem_t *open_sem(const char *name, const char *path, int oflag, mode_t mode,
		       unsigned value)
{
	sem_t *sem;
	int fd = -1;

	for (;;) {
		if (!(oflag & O_CREAT) || !(oflag & O_EXCL)) {
			fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
			if (fd >= 0 || errno != ENOENT || !(oflag & O_CREAT))
				break;
		}
		/* as glibc, the value is checked only when the file is made:
		 * opening an existing semaphore ignores it */
		if (value > SEM_VALUE_MAX) {
			errno = EINVAL;
			return SEM_FAILED;
		}
		fd = create_sem_file(path, mode, value);
		if (fd >= 0 || errno != EEXIST || (oflag & O_EXCL))
			break;
		/* somebody else created it first: open theirs */
	}
	if (fd < 0)
		return SEM_FAILED;
	sem = map_sem(fd, name);
	close(fd);
	return sem;
}

FTHR_HIDDEN sem_t *fthr_sem_open(const char *name, int oflag, ...)
{
	char path[sizeof(SHM_DIR) + sizeof(SEM_PREFIX) + NAME_MAX];
	mode_t mode = 0;
	unsigned value = 0;
	sem_t *sem;
	int saved = errno, state, e;

	if (!sem_path(name, path, sizeof(path))) {
		errno = EINVAL;
		return SEM_FAILED;
	}
	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = va_arg(ap, mode_t);
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	/* Not a cancellation point (glibc disables cancellation around its
	 * sem_open too): the open, write and close inside are, and would act
	 * on a pending request, leaving a file or mapping behind. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
	sem = open_sem(name, path, oflag, mode, value);
	e = errno;
	pthread_setcancelstate(state, NULL);
	/* the first open() may have failed on the way */
	errno = sem != SEM_FAILED ? saved : e;
	return sem;
}

FTHR_HIDDEN int fthr_sem_close(sem_t *sem)
{
	struct mapping **pp, *m;
	int r = -1;

	fthr_lll_lock(&mappings_lock, false);
	for (pp = &mappings; (m = *pp); pp = &m->next)
		if (m->sem == sem) {
			if (--m->refs == 0) {
				*pp = m->next;
				munmap(m->sem, sizeof(sem_t));
				free(m);
			}
			r = 0;
			break;
		}
	fthr_lll_unlock(&mappings_lock, false);
	if (r)
		errno = EINVAL;
	return r;
}

FTHR_HIDDEN int fthr_sem_unlink(const char *name)
{
	char path[sizeof(SHM_DIR) + sizeof(SEM_PREFIX) + NAME_MAX];

	if (!sem_path(name, path, sizeof(path))) {
		errno = ENOENT;
		return -1;
	}
	if (unlink(path) != 0) {
		if (errno == EPERM)
			errno = EACCES;
		return -1;
	}
	return 0;
}

/* Fork: the registry lock is never held across fork(); the child starts
 * with it free and the list whole. */
static void registry_prepare(void)
{
	fthr_lll_lock(&mappings_lock, false);
}

static void registry_parent(void)
{
	fthr_lll_unlock(&mappings_lock, false);
}

static void registry_child(void)
{
	mappings_lock = 0;
}

__attribute__((constructor)) static void registry_init(void)
{
	pthread_atfork(registry_prepare, registry_parent, registry_child);
}

FTHR_EXPORT(sem_open, fthr_sem_open);
FTHR_EXPORT(sem_close, fthr_sem_close);
FTHR_EXPORT(sem_unlink, fthr_sem_unlink);
