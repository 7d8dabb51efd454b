#!/bin/sh
# A drop-in library must not change a program's output. ld.so prints
# "Relink `X' with `libfthr.so.0' for IFUNC symbol `Y'" when it relocates a
# bind-now object X against an indirect function of a library it has not
# relocated yet: what fthr's watched entry points were until 2026-12-01,
# and what every preloaded program with a bind-now library (xz, redis,
# anything on liblmdb) printed. Here: a -z now test library that uses the
# watched calls (tests/bindnow_lib.c) and a program that needs it, under
# fthr preloaded and linked (-lfthr ahead of the library, so that ld.so
# relocates the library first), with the profiler/checker off and on; then
# xz. Each run's stderr must be empty and its result that of plain glibc.
# Env: FTHR_LIB, FTHR_SRCDIR, CC.
set -u
lib=${FTHR_LIB:?}
src=${FTHR_SRCDIR:-.}/tests
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

cat >"$tmp/prog.c" <<'P'
#include <dlfcn.h>
#include <stdio.h>
int bindnow_work(void);
int main(void)
{
	printf("work %d, fthr %s\n", bindnow_work(),
	       dlsym(RTLD_DEFAULT, "fthr_version") ? "loaded" : "absent");
	return 0;
}
P
libdir=$(dirname "$lib")
$CC -shared -fPIC -Wl,-z,now -o "$tmp/libbindnow.so" "$src/bindnow_lib.c" -lpthread &&
$CC -o "$tmp/prog" "$tmp/prog.c" -L"$tmp" -lbindnow -Wl,-rpath,"$tmp" -Wl,-z,now -ldl &&
$CC -o "$tmp/prog_linked" "$tmp/prog.c" -Wl,--no-as-needed "$lib" -L"$tmp" -lbindnow \
	-Wl,-rpath,"$tmp" -Wl,-rpath,"$libdir" -Wl,-z,now -ldl ||
	{ echo "could not build the test programs"; exit 99; }

check() { # description expected-stdout command...
	what=$1 want=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
	if [ $rc = 0 ] && [ ! -s "$tmp/err" ] && [ "$(cat "$tmp/out")" = "$want" ]; then
		pass=$((pass + 1)); echo "ok: $what"
	else
		fail=$((fail + 1)); echo "FAIL: $what (exit $rc)"
		sed 's/^/    out| /' "$tmp/out" | head -5; sed 's/^/    err| /' "$tmp/err" | head -10
	fi
}

check "plain glibc: the reference" "work 0, fthr absent" "$tmp/prog"
check "the linked program really loads fthr ahead of the library" "work 0, fthr loaded" "$tmp/prog_linked"
for mode in "" FTHR_CHECK=1 FTHR_PROFILE=$tmp/profile; do
	check "preloaded${mode:+, $mode}: no ld.so warning, glibc's result" "work 0, fthr loaded" \
		env $mode LD_PRELOAD="$lib" "$tmp/prog"
	check "linked${mode:+, $mode}: no ld.so warning, glibc's result" "work 0, fthr loaded" \
		env $mode "$tmp/prog_linked"
done
if [ -s "$tmp/profile" ] && grep -q 'fthr-profile: pid' "$tmp/profile"; then
	pass=$((pass + 1)); echo "ok: the FTHR_PROFILE runs were watched (profile written)"
else
	fail=$((fail + 1)); echo "FAIL: the FTHR_PROFILE runs wrote no profile"
fi

if command -v xz >/dev/null; then
	# liblzma is linked -z now on Debian; -T2 runs its threads
	head -c 3000000 /dev/urandom >"$tmp/data"
	xz --version >"$tmp/xz.version" 2>&1
	check "xz --version preloaded: no ld.so warning" "$(cat "$tmp/xz.version")" \
		env LD_PRELOAD="$lib" xz --version
	xz -T2 -1 -c "$tmp/data" >"$tmp/data.xz.glibc"
	check "xz -T2 preloaded: no ld.so warning, the same stream as glibc's" "$(cksum <"$tmp/data.xz.glibc")" \
		sh -c "LD_PRELOAD='$lib' xz -T2 -1 -c '$tmp/data' | cksum"
else
	echo "(xz is not installed: its runs skipped)"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
