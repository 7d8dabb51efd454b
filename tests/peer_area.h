/* tests/peer_area.h: the shared file of the mutex interop tests. */
#ifndef PEER_AREA_H
#define PEER_AREA_H
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

enum { PEER_NORMAL, PEER_RECURSIVE, PEER_ERRORCHECK, PEER_ROBUST, PEER_PI, PEER_ROBUST_PI,
       PEER_MUTEXES };

struct peer_area {
	pthread_mutex_t m[PEER_MUTEXES];
	long count[PEER_MUTEXES];
	int killed; /* peer_barging_holder: the woken sleeper was killed */
};

/* The holder of the woken-sleeper-killed test (tests/t_robust.c), on cpu 0,
 * either side: holds the robust mutex, says 'H' on fd out; once told on fd
 * in, runs SCHED_FIFO (nobody else of this cpu runs while it does not
 * sleep), unlocks (waking the first sleeper), locks again (taking the free
 * word unmarked before the woken one runs), says 'R', and busy-waits
 * without a system call until a->killed; then unlocks. Exit status: 0,
 * 77 (and 'E' said) without SCHED_FIFO, else a failed step. */
static inline int peer_barging_holder(struct peer_area *a, int out, int in)
{
	struct sched_param sp = { .sched_priority = 1 };
	pthread_mutex_t *m = &a->m[PEER_ROBUST];
	cpu_set_t set;
	char c;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || pthread_mutex_lock(m) ||
	    write(out, "H", 1) != 1 || read(in, &c, 1) != 1)
		return 1;
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
		pthread_mutex_unlock(m);
		return write(out, "E", 1) == 1 ? 77 : 1;
	}
	if (pthread_mutex_unlock(m) || pthread_mutex_lock(m) || write(out, "R", 1) != 1)
		return 2;
	while (!__atomic_load_n(&a->killed, __ATOMIC_ACQUIRE))
		;
	return pthread_mutex_unlock(m) ? 3 : 0;
}

#endif
