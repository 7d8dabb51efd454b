/* tests/peer_area.h: the shared file of the mutex interop tests. */
#ifndef PEER_AREA_H
#define PEER_AREA_H
#include <pthread.h>

enum { PEER_NORMAL, PEER_RECURSIVE, PEER_ERRORCHECK, PEER_ROBUST, PEER_PI, PEER_ROBUST_PI,
       PEER_MUTEXES };

struct peer_area {
	pthread_mutex_t m[PEER_MUTEXES];
	long count[PEER_MUTEXES];
};

#endif
