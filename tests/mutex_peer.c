/* tests/mutex_peer.c: the plain-glibc side of the mutex interop tests
 * (built without fthr, run without LD_PRELOAD). It maps a shared file that
 * holds a struct peer_area (tests/t_robust.c) and acts on its mutexes.
 *   mutex_peer count PATH N      N times: lock each mutex, bump its counter
 *   mutex_peer hold PATH FD      lock the robust mutex, write 'L' to FD, sleep
 *   mutex_peer ownerdead PATH    lock the robust mutex: must get EOWNERDEAD
 *   mutex_peer lockwrite PATH FD lock the robust mutex (EOWNERDEAD made
 *                                consistent), write 'G' to FD, unlock
 *   mutex_peer barge PATH OUT IN peer_barging_holder (peer_area.h)
 * Exit 0 on success; bounded by alarm(). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "peer_area.h"

int main(int argc, char **argv)
{
	struct peer_area *a;
	int fd, i, k;

	alarm(30);
	if (argc < 3 || (fd = open(argv[2], O_RDWR)) < 0)
		return 2;
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return 3;
	if (!strcmp(argv[1], "count") && argc > 3) {
		long n = atol(argv[3]);

		for (i = 0; i < n; i++)
			for (k = 0; k < PEER_MUTEXES; k++) {
				int r = pthread_mutex_lock(&a->m[k]);

				if (r != 0 && r != EOWNERDEAD)
					return 10 + k;
				a->count[k]++;
				if (pthread_mutex_unlock(&a->m[k]) != 0)
					return 20 + k;
			}
		return 0;
	}
	if (!strcmp(argv[1], "hold") && argc > 3) {
		if (pthread_mutex_lock(&a->m[PEER_ROBUST]) != 0)
			return 4;
		if (write(atoi(argv[3]), "L", 1) != 1)
			return 5;
		for (;;)
			pause();
	}
	if (!strcmp(argv[1], "ownerdead")) {
		int r = pthread_mutex_lock(&a->m[PEER_ROBUST]);

		if (r != EOWNERDEAD)
			return 6;
		if (pthread_mutex_consistent(&a->m[PEER_ROBUST]) != 0 ||
		    pthread_mutex_unlock(&a->m[PEER_ROBUST]) != 0)
			return 7;
		return 0;
	}
	if (!strcmp(argv[1], "barge") && argc > 4)
		return peer_barging_holder(a, atoi(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "lockwrite") && argc > 3) {
		int r = pthread_mutex_lock(&a->m[PEER_ROBUST]);

		if (r == EOWNERDEAD)
			r = pthread_mutex_consistent(&a->m[PEER_ROBUST]);
		if (r != 0 || write(atoi(argv[3]), "G", 1) != 1)
			return 8;
		return pthread_mutex_unlock(&a->m[PEER_ROBUST]) ? 9 : 0;
	}
	return 2;
}
