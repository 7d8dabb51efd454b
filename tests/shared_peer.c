/* tests/shared_peer.c: the plain-glibc side of the process-shared interop
 * tests of condition variables, rwlocks and barriers (tests/t_pshared.c):
 * built without fthr, run without LD_PRELOAD. It maps the shared file
 * (tests/shared_area.h) and plays one role:
 *   shared_peer init PATH                   make every object
 *   shared_peer pingpong PATH ME N TIMED MONO   ping-pong as player ME
 *   shared_peer waiters PATH K              K broadcast waiters
 *   shared_peer bcast PATH K                broadcast to K waiters
 *   shared_peer rw PATH                     2 rwlock threads
 *   shared_peer barrier PATH                2 barrier members
 *   shared_peer cancelwait PATH / cancelsignal PATH
 *   shared_peer ownerwait PATH / ownerdie PATH FD
 *   shared_peer remake PATH                 destroy and make c, cm, rw again
 *   shared_peer victim PATH TARGET FD       shared_victim (shared_area.h)
 * Exit 0 on success; bounded by alarm(). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "shared_area.h"

static int threads(struct shared_area *a, int n, void *(*fn)(void *))
{
	pthread_t t[16];
	void *v;
	int bad = 0;

	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, fn, a))
			return 30;
	for (int i = 0; i < n; i++)
		if (pthread_join(t[i], &v) || v != NULL)
			bad = 31;
	return bad;
}

int main(int argc, char **argv)
{
	struct shared_area *a;
	int fd;

	alarm(60);
	if (argc < 3 || (fd = open(argv[2], O_RDWR)) < 0)
		return 2;
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return 3;
	if (!strcmp(argv[1], "init"))
		return shared_area_init(a, SHARED_BARRIER_MEMBERS) ? 4 : 0;
	if (!strcmp(argv[1], "pingpong") && argc > 6)
		return shared_pingpong(a, atoi(argv[3]), atol(argv[4]), atoi(argv[5]),
				       atoi(argv[6])) ? 5 : 0;
	if (!strcmp(argv[1], "waiters") && argc > 3) {
		int k = atoi(argv[3]), r = threads(a, k, shared_bcast_waiter);

		return r ? r : a->woken == k ? 0 : 6;
	}
	if (!strcmp(argv[1], "bcast") && argc > 3)
		return shared_bcast(a, atoi(argv[3]));
	if (!strcmp(argv[1], "rw"))
		return threads(a, 2, shared_rw_worker);
	if (!strcmp(argv[1], "barrier"))
		return threads(a, 2, shared_barrier_member);
	if (!strcmp(argv[1], "cancelwait"))
		return shared_cancel_scenario(a);
	if (!strcmp(argv[1], "cancelsignal"))
		return shared_cancel_signal(a);
	if (!strcmp(argv[1], "ownerwait"))
		return shared_owner_wait(a);
	if (!strcmp(argv[1], "ownerdie") && argc > 3)
		return shared_owner_die(a, atoi(argv[3]));
	if (!strcmp(argv[1], "victim") && argc > 4)
		return shared_victim(a, atol(argv[3]), atoi(argv[4]));
	if (!strcmp(argv[1], "remake"))
		return shared_remake(a) ? 7 : 0;
	return 2;
}
