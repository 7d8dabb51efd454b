/* lmdb-bench: several processes share one LMDB environment, the way
 * OpenLDAP's slapd and its tools, Postfix maps or a multi-process service
 * share one. LMDB serializes writers with a robust process-shared pthread
 * mutex in lock.mdb and registers readers in the reader table there under
 * another one, so that is what this measures: the write lock handed between
 * threads of different processes, and (with readers) the reader-table lock.
 *
 *   lmdb-bench DIR K WRITERS READERS RTXN PRELOAD...
 *
 * The driver makes the environment in DIR (an existing, empty directory),
 * starts one child process per PRELOAD argument (its LD_PRELOAD; may be
 * empty) and each child WRITERS threads doing K write transactions (each
 * increments the key "counter" and the thread's own key) and READERS threads
 * doing RTXN read transactions (each checks that its snapshot is consistent:
 * "counter" equals the sum of the per-thread keys, and never goes back but
 * after LMDB's own meta-page race, see reader()).
 * All threads of all children wait on one pipe; the driver times from
 * closing it to the last child's exit, then checks counter == processes *
 * WRITERS * K and each per-thread key == K exactly, and prints
 * "RESULT <transactions/s> txn/s" (read and write transactions together).
 * Exits 1 with a message on stderr on any error or wrong count.
 * (Internally a child is "lmdb-bench -child DIR IDX ... READYFD STARTFD".)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The data are a few pages, but a read txn pins its snapshot: the pages the
 * writers free meanwhile are reused only after it ends, so a reader preempted
 * for a few ms lets the file grow by tens of MiB. 1 GiB of address space;
 * only the pages written take room in /dev/shm. */
#define MAPSIZE (1UL << 30)
#define MAXREADERS 126 /* LMDB's default; needs processes * READERS + 1 */
#define ENVFLAGS (MDB_NOSYNC | MDB_NOMETASYNC | MDB_NOTLS) /* no fsync; a reader slot per txn */

static int nproc, nwriters, nreaders, me = -1;
static long K, rtxn;
static MDB_env *env;
static MDB_dbi dbi;
static int startfd;

static void die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "lmdb-bench[%s %d]: ", me < 0 ? "driver" : "child", me < 0 ? (int)getpid() : me);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(1);
}

#define E(expr) do { int rc_ = (expr); \
	if (rc_) die("line %d: %s: %s", __LINE__, #expr, mdb_strerror(rc_)); } while (0)

static void open_env(const char *dir)
{
	E(mdb_env_create(&env));
	E(mdb_env_set_mapsize(env, MAPSIZE));
	E(mdb_env_set_maxreaders(env, MAXREADERS));
	E(mdb_env_open(env, dir, ENVFLAGS, 0600));
	MDB_txn *txn;
	E(mdb_txn_begin(env, NULL, 0, &txn));
	E(mdb_dbi_open(txn, NULL, 0, &dbi));
	E(mdb_txn_commit(txn));
}

static void wkey(char *buf, int p, int t) { snprintf(buf, 32, "w%03d.%03d", p, t); }

static uint64_t get(MDB_txn *txn, const char *key)
{
	MDB_val k = { strlen(key), (void *)key }, v;
	uint64_t x;
	E(mdb_get(txn, dbi, &k, &v));
	if (v.mv_size != sizeof x) die("key %s: value of %zu bytes", key, v.mv_size);
	memcpy(&x, v.mv_data, sizeof x);
	return x;
}

static void put(MDB_txn *txn, const char *key, uint64_t x)
{
	MDB_val k = { strlen(key), (void *)key }, v = { sizeof x, &x };
	E(mdb_put(txn, dbi, &k, &v, 0));
}

static void wait_start(void)
{
	char c;
	ssize_t n;
	while ((n = read(startfd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n != 0) die("start pipe: %s", n < 0 ? strerror(errno) : "unexpected byte");
}

static void *writer(void *arg)
{
	char mine[32];
	wkey(mine, me, (int)(intptr_t)arg);
	wait_start();
	for (long i = 0; i < K; i++) {
		MDB_txn *txn;
		E(mdb_txn_begin(env, NULL, 0, &txn));
		put(txn, "counter", get(txn, "counter") + 1);
		put(txn, mine, get(txn, mine) + 1);
		E(mdb_txn_commit(txn));
	}
	return NULL;
}

/* LMDB 0.9 (mdb_txn_renew0) reads the last txnid, then copies the root
 * from the meta page of that txnid's parity without checking the txnid
 * again (libmdbx does; ITS#7970). A reader preempted in between can copy a
 * meta page that a commit two txns later has rewritten, before that commit
 * publishes its txnid: the snapshot is newer than its txnid, and the
 * reader's next snapshot, taken at the published txnid, is older. Every
 * commit adds 1 to "counter" and to the txnid, so txnid - counter is the
 * same for every snapshot but such a one, where it is smaller: a step back
 * is LMDB's race only right after a snapshot with a smaller txnid - counter.
 * (Seen 2 times in about 60 runs with 4 processes x 4 threads on 2 cpus.) */
static void *reader(void *arg)
{
	uint64_t last = 0, total = (uint64_t)nproc * nwriters * K;
	int64_t last_d = INT64_MIN;
	long ahead = 0;
	char key[32];
	(void)arg;
	wait_start();
	for (long i = 0; i < rtxn; i++) {
		MDB_txn *txn;
		E(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
		uint64_t id = mdb_txn_id(txn), c = get(txn, "counter"), sum = 0;
		for (int p = 0; p < nproc; p++)
			for (int t = 0; t < nwriters; t++) {
				wkey(key, p, t);
				sum += get(txn, key);
			}
		mdb_txn_abort(txn);
		int64_t d = (int64_t)(id - c);
		if (c != sum || c > total || (c < last && !(last_d < d)))
			die("inconsistent snapshot: counter %llu, per-thread keys sum to %llu, "
			    "previous counter %llu, total %llu (txnid - counter %lld, before %lld)",
			    (unsigned long long)c, (unsigned long long)sum,
			    (unsigned long long)last, (unsigned long long)total,
			    (long long)d, (long long)last_d);
		if (last_d != INT64_MIN && d < last_d)
			ahead++;
		last = c;
		last_d = d;
	}
	if (ahead)
		fprintf(stderr, "lmdb-bench[child %d]: %ld snapshot(s) newer than their txnid "
			"(LMDB's meta-page race, ITS#7970)\n", me, ahead);
	return NULL;
}

static int child(char **a)
{
	const char *dir = a[0];
	me = atoi(a[1]);
	int readyfd = atoi(a[7]);
	startfd = atoi(a[8]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	open_env(dir);
	int n = nwriters + nreaders;
	pthread_t *th = calloc(n, sizeof *th);
	for (int i = 0; i < n; i++) {
		int rc = pthread_create(&th[i], NULL, i < nwriters ? writer : reader, (void *)(intptr_t)i);
		if (rc) die("pthread_create: %s", strerror(rc));
	}
	if (write(readyfd, "r", 1) != 1) die("ready pipe: %s", strerror(errno));
	close(readyfd);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	mdb_env_close(env);
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int is_child = argc > 1 && strcmp(argv[1], "-child") == 0;
	char **a = argv + 1 + is_child;
	if (argc - 1 - is_child < (is_child ? 9 : 6)) {
		fprintf(stderr, "usage: lmdb-bench DIR K WRITERS READERS RTXN PRELOAD...\n");
		return 2;
	}
	int o = is_child; /* a child has IDX after DIR */
	K = atol(a[1 + o]);
	nwriters = atoi(a[2 + o]);
	nreaders = atoi(a[3 + o]);
	rtxn = atol(a[4 + o]);
	if (is_child) {
		nproc = atoi(a[5 + o]);
		return child(a);
	}
	nproc = argc - 6;
	if (K < 1 || nwriters < 1 || nreaders < 0 || rtxn < 0 || nproc * nreaders + 1 > MAXREADERS)
		die("bad arguments");
	const char *dir = a[0];

	/* the environment: counter and every per-thread key at 0 */
	open_env(dir);
	MDB_txn *txn;
	char key[32];
	E(mdb_txn_begin(env, NULL, 0, &txn));
	put(txn, "counter", 0);
	for (int p = 0; p < nproc; p++)
		for (int t = 0; t < nwriters; t++) {
			wkey(key, p, t);
			put(txn, key, 0);
		}
	E(mdb_txn_commit(txn));
	mdb_env_close(env); /* the children set lock.mdb up afresh, whoever opens first */

	int ready[2], start[2];
	if (pipe(ready) || pipe(start)) die("pipe: %s", strerror(errno));
	pid_t *pid = calloc(nproc, sizeof *pid);
	for (int p = 0; p < nproc; p++) {
		if ((pid[p] = fork()) < 0) die("fork: %s", strerror(errno));
		if (pid[p] == 0) {
			char sidx[16], sn[16], srd[16], sst[16];
			snprintf(sidx, sizeof sidx, "%d", p);
			snprintf(sn, sizeof sn, "%d", nproc);
			snprintf(srd, sizeof srd, "%d", ready[1]);
			snprintf(sst, sizeof sst, "%d", start[0]);
			close(ready[0]);
			close(start[1]);
			setenv("LD_PRELOAD", a[5 + p], 1);
			execl("/proc/self/exe", argv[0], "-child", dir, sidx, a[1], a[2], a[3], a[4],
			      sn, srd, sst, (char *)NULL);
			die("exec: %s", strerror(errno));
		}
	}
	close(ready[1]);
	close(start[0]);
	int got = 0;
	char c;
	while (got < nproc && read(ready[0], &c, 1) == 1)
		got++;
	double t0 = now();
	close(start[1]); /* go */
	int bad = got < nproc;
	for (int p = 0; p < nproc; p++) {
		int st;
		while (waitpid(pid[p], &st, 0) < 0)
			if (errno != EINTR) die("waitpid: %s", strerror(errno));
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "lmdb-bench: child %d (LD_PRELOAD='%s') %s %d\n", p, a[5 + p],
			        WIFEXITED(st) ? "exited" : "killed by signal",
			        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			bad = 1;
		}
	}
	double secs = now() - t0;
	if (bad) die("a child failed");

	/* exact counts */
	open_env(dir);
	E(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn));
	uint64_t want = (uint64_t)nproc * nwriters * K, c_ = get(txn, "counter");
	if (c_ != want) die("counter %llu, want %llu", (unsigned long long)c_, (unsigned long long)want);
	for (int p = 0; p < nproc; p++)
		for (int t = 0; t < nwriters; t++) {
			wkey(key, p, t);
			uint64_t x = get(txn, key);
			if (x != (uint64_t)K) die("key %s: %llu, want %ld", key, (unsigned long long)x, K);
		}
	mdb_txn_abort(txn);
	mdb_env_close(env);
	printf("RESULT %.6g txn/s\n", (want + (double)nproc * nreaders * rtxn) / secs);
	return 0;
}
