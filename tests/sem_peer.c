/* tests/sem_peer.c: the plain-glibc side of t_sem's interop tests.
 *
 * Built against the system libraries only and run without LD_PRELOAD, so
 * every semaphore call here is glibc's. No Check: exit status 0 means every
 * round completed, anything else is a failure (the message is on stderr).
 *
 *   sem_peer named NAME ROUNDS
 *	open the existing named semaphores NAME.ping and NAME.pong;
 *   sem_peer shm FD_OR_PATH ROUNDS
 *	map two sem_t's (ping, pong), already initialised with pshared=1, from
 *	a file: an inherited descriptor if the argument is all digits, else a
 *	path (e.g. in /dev/shm);
 * then ROUNDS times: wait for ping, post pong.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int wait_bounded(sem_t *s)
{
	struct timespec dl;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += 15;
	while (sem_timedwait(s, &dl) != 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int pingpong(sem_t *ping, sem_t *pong, long rounds)
{
	long i;
	int v;

	for (i = 0; i < rounds; i++) {
		if (wait_bounded(ping) != 0) {
			fprintf(stderr, "sem_peer: round %ld: waiting for ping: %s\n",
				i, strerror(errno));
			return 3;
		}
		if (sem_post(pong) != 0) {
			fprintf(stderr, "sem_peer: round %ld: posting pong: %s\n",
				i, strerror(errno));
			return 4;
		}
	}
	if (sem_getvalue(ping, &v) != 0 || v != 0) {
		fprintf(stderr, "sem_peer: ping ends with value %d, not 0\n", v);
		return 5;
	}
	return 0;
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int run_named(const char *name, long rounds)
{
	char pn[NAME_MAX + 16], qn[NAME_MAX + 16];
	sem_t *ping, *pong;
	int rc;

	snprintf(pn, sizeof(pn), "%s.ping", name);
	snprintf(qn, sizeof(qn), "%s.pong", name);
	ping = sem_open(pn, 0);
	if (ping == SEM_FAILED) {
		fprintf(stderr, "sem_peer: sem_open(%s): %s\n", pn, strerror(errno));
		return 2;
	}
	pong = sem_open(qn, 0);
	if (pong == SEM_FAILED) {
		fprintf(stderr, "sem_peer: sem_open(%s): %s\n", qn, strerror(errno));
		return 2;
	}
	rc = pingpong(ping, pong, rounds);
	if (sem_close(ping) != 0 || sem_close(pong) != 0) {
		fprintf(stderr, "sem_peer: sem_close: %s\n", strerror(errno));
		return rc ? rc : 6;
	}
	return rc;
}

static int run_shm(const char *where, long rounds)
{
	size_t len = 2 * sizeof(sem_t);
	struct stat st;
	sem_t *sems;
	int fd, rc;

	fd = all_digits(where) ? atoi(where) : open(where, O_RDWR);
	if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "sem_peer: open/fstat %s: %s\n", where, strerror(errno));
		return 2;
	}
	if ((size_t)st.st_size < len) {
		fprintf(stderr, "sem_peer: %s holds %lld bytes, need %zu\n", where,
			(long long)st.st_size, len);
		return 2;
	}
	sems = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (sems == MAP_FAILED) {
		fprintf(stderr, "sem_peer: mmap %s: %s\n", where, strerror(errno));
		return 2;
	}
	close(fd);
	rc = pingpong(&sems[0], &sems[1], rounds);
	munmap(sems, len);
	return rc;
}

int main(int argc, char **argv)
{
	char *end;
	long rounds;

	/* Bound the whole run, whatever the parent did with SIGALRM. */
	signal(SIGALRM, SIG_DFL);
	alarm(20);
	if (argc != 4)
		goto usage;
	errno = 0;
	rounds = strtol(argv[3], &end, 10);
	if (errno || *end || rounds <= 0)
		goto usage;
	if (strcmp(argv[1], "named") == 0)
		return run_named(argv[2], rounds);
	if (strcmp(argv[1], "shm") == 0)
		return run_shm(argv[2], rounds);
usage:
	fprintf(stderr, "usage: sem_peer named NAME ROUNDS\n"
			"       sem_peer shm FD_OR_PATH ROUNDS\n");
	return 64;
}
