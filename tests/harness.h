/* tests/harness.h: what every fthr Check suite shares.
 *
 * Each test runs in its own forked child (Check's CK_FORK) under a Check
 * timeout: a test that hangs is killed and counted as a failure. Every suite
 * also gets the "interposed" test, which fails unless pthread_mutex_lock is
 * fthr's, so a silently failed LD_PRELOAD cannot pass.
 */
#ifndef FTHR_TEST_HARNESS_H
#define FTHR_TEST_HARNESS_H

#include <check.h>
#include <stdbool.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* A test case with a watchdog of 'seconds'. */
TCase *harness_tcase(Suite *s, const char *name, double seconds);

/* Run the suite plus the interposition check; returns the exit status. */
int harness_main(Suite *s);

/* Nanoseconds on clock clk. */
int64_t harness_now_ns(clockid_t clk);

/* An absolute deadline ms milliseconds from now on clk (may be negative). */
struct timespec harness_deadline(clockid_t clk, long ms);

/* Start n threads running fn(arg, index) and join them, failing the test if
 * they do not all finish within 'seconds'. */
void harness_run_threads(int n, void *(*fn)(void *), void *args, size_t argsize,
			 double seconds);

/* Join one thread, failing the test if it takes longer than 'seconds'. */
void *harness_join(pthread_t t, double seconds);

/* Start a thread that registers cleanup(arg) as its cancellation cleanup
 * handler and loops on pthread_testcancel; cancel it 10 ms later and join
 * it (failing the test after 'seconds'); its exit value. */
void *harness_cancel_looping(void (*cleanup)(void *), void *arg, double seconds);

/* Wait (at most 'seconds', failing the test after) until thread tid is
 * asleep in the kernel, seen twice 50 ms apart, so that a thread announced
 * as "about to block" really is blocked in the call under test. Without
 * /proc, just give it time. */
void harness_wait_asleep(int tid, double seconds);

/* Wait (at most 'seconds', failing the test after) until no task tid is
 * left in this process. A joined thread's kernel task is normally gone
 * already (the kernel clears the tid word last); under qemu-user the guest
 * sees the tid cleared while the host thread still runs its exit, and so
 * still owns its PI futexes. */
void harness_wait_tid_gone(int tid, double seconds);

/* Wait (polling, at most 'seconds') until *p != 0; 1 if it did, 0 if not. */
int harness_wait_nonzero(int *p, double seconds);

/* pthread_mutex_init through an attribute of the given type, pshared
 * value, robustness and protocol, asserting every step. */
void harness_mutex_init(pthread_mutex_t *m, int type, int pshared, int robust,
			int protocol);

/* The interop tests' plain-glibc peers: fork and exec
 * FTHR_BUILDDIR/tests/<argv[0]> (or ./tests/...) without LD_PRELOAD; and
 * wait for a child, its exit status or 128 + the signal that killed it. */
pid_t harness_spawn_peer(char *const argv[]);
int harness_status(pid_t pid);
/* The peer's path (for a check that it was built). */
const char *harness_peer_path(const char *name);

/* glibc's version nodes of the compatibility-only names (the _np mutexattr
 * calls, __pthread_mutex_lock, ...): found with dlvsym only, on glibc and,
 * as glibc's, on fthr. */
#if defined(__x86_64__)
#define HARNESS_V_BASE "GLIBC_2.2.5"
#define HARNESS_V_ROBUST "GLIBC_2.4"
#elif defined(__aarch64__) || (defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define HARNESS_V_BASE "GLIBC_2.17"
#define HARNESS_V_ROBUST "GLIBC_2.17"
#elif defined(__s390x__)
#define HARNESS_V_BASE "GLIBC_2.2"
#define HARNESS_V_ROBUST "GLIBC_2.4"
#elif defined(__i386__)
#define HARNESS_V_BASE "GLIBC_2.0"
#define HARNESS_V_ROBUST "GLIBC_2.4"
#elif defined(__arm__)
#define HARNESS_V_BASE "GLIBC_2.4"
#define HARNESS_V_ROBUST "GLIBC_2.4"
#else
#error "glibc's base version node for this arch"
#endif

/* Where the definition of a function lives (dladdr's file name). */
const char *harness_object_of(void *fn);

/* Under AddressSanitizer? Thread cancellation (forced unwinding) leaves
 * stale stack poison that ASan then reports at thread exit, on plain glibc
 * as well; the cancellation tests skip there, saying so. */
bool harness_skip_under_asan(const char *test);

/* qemu-user, known by its ENOSYS for get_robust_list (a Linux kernel
 * always has the call): no kernel robust lists there. */
bool harness_under_qemu(void);
/* ... and then a robust test says SKIPPED, naming the call: true. */
bool harness_skip_without_robust_list(const char *test);
/* qemu-user emulating i386 (scripts/cross-check's fallback where the
 * x86_64 kernel runs no 32-bit code) delivers some signals late or not
 * at all, which no kernel does: plain glibc fails the same tests there.
 * The tests that depend on that delivery say "TEST: SKIPPED, why" and
 * return true there, false everywhere else. */
bool harness_skip_under_qemu_i386(const char *test, const char *why);
/* Under qemu-user on a host of the other byte order (s390x on x86_64) the
 * kernel writes a PI futex word's owner tid (FUTEX_LOCK_PI, a contended
 * unlock's hand-over) in the host's byte order, which the program then
 * reads byte-swapped: no PI mutex can work there, glibc's neither. True
 * (and "TEST: SKIPPED, why" on stderr) when a probe finds it so. */
bool harness_skip_without_pi_futex(const char *test);

/* Under ThreadSanitizer? Tests of deliberate misuse (destroying what
 * others wait on) and of destructors that run after TSan's own thread-exit
 * destructor (the last round) skip there, saying why. */
bool harness_skip_under_tsan(const char *test, const char *why);
bool harness_under_tsan(void);

#endif
