#!/bin/sh
# A chained interposer ahead of fthr (issue 18): a mutrace-style library
# (tests/interposer_lib.c) wraps pthread_mutex_lock (dlsym(RTLD_NEXT)) and
# pthread_cond_wait (dlvsym(RTLD_NEXT, ..., glibc's condvar version)) and is
# preloaded before fthr; a producer/consumer program on one mutex and two
# condition variables runs under it. Both calls must land in fthr, the
# wrappers must have counted calls, and the program's total must be exact.
# The control: the same without fthr lands in libc.so.6 (the check can tell).
# Env: FTHR_LIB, FTHR_SRCDIR, CC.
set -u
lib=${FTHR_LIB:?}
src=${FTHR_SRCDIR:-.}/tests
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

cat >"$tmp/prog.c" <<'P'
#include <pthread.h>
#include <stdio.h>
#define ITEMS 20000
#define CAP 4
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER, nonfull = PTHREAD_COND_INITIALIZER;
static int q[CAP], head, tail;
static long sum;
static void *consumer(void *a)
{
	for (int i = 0; i < ITEMS / 2; i++) {
		pthread_mutex_lock(&m);
		while (head == tail)
			pthread_cond_wait(&nonempty, &m);
		sum += q[head++ % CAP];
		pthread_cond_signal(&nonfull);
		pthread_mutex_unlock(&m);
	}
	return a;
}
int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, consumer, NULL);
	for (int i = 1; i <= ITEMS; i++) {
		pthread_mutex_lock(&m);
		while (tail - head == CAP)
			pthread_cond_wait(&nonfull, &m);
		q[tail++ % CAP] = i;
		pthread_cond_signal(&nonempty);
		pthread_mutex_unlock(&m);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("sum %ld\n", sum);
	return 0;
}
P
$CC -O2 -shared -fPIC -o "$tmp/libinterposer.so" "$src/interposer_lib.c" -ldl &&
$CC -O2 -o "$tmp/prog" "$tmp/prog.c" -lpthread ||
	{ echo "could not build the test programs"; exit 99; }
want="sum 200010000"

run() { # description expected-object preload
	what=$1 obj=$2
	out=$(LD_PRELOAD=$3 timeout 60 "$tmp/prog" 2>"$tmp/err"); st=$?
	ok=1
	[ "$st" = 0 ] && [ "$out" = "$want" ] || { echo "FAIL $what: exit $st, '$out' (want '$want')"; ok=0; }
	for call in 'pthread_mutex_lock' 'pthread_cond_wait@'; do
		line=$(grep "^interposer: $call" "$tmp/err")
		n=$(echo "$line" | awk '{ print $(NF - 2) }')
		case $line in
		*"-> "*"$obj"*) ;;
		*) echo "FAIL $what: $call does not land in $obj: '$line'"; ok=0 ;;
		esac
		[ "${n:-0}" -gt 0 ] 2>/dev/null || { echo "FAIL $what: $call counted '${n:-}' calls"; ok=0; }
	done
	if [ $ok = 1 ]; then
		echo "ok $what: $(sed 's/^interposer: //' "$tmp/err" | tr '\n' ';')"; pass=$((pass + 1))
	else
		cat "$tmp/err"; fail=$((fail + 1))
	fi
}
run "interposer, then fthr" libfthr.so "$tmp/libinterposer.so $lib"
run "interposer, then glibc (control)" libc.so.6 "$tmp/libinterposer.so"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
