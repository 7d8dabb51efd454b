#!/bin/sh
# The FreeBSD seam test, runnable on any system with clang (no FreeBSD needed):
#  1. lib/futex_freebsd.c compiles for a FreeBSD target (clang --target=
#     <cpu>-unknown-freebsd -fsyntax-only -Wall -Wextra -Werror) with the
#     library's include paths. Without a FreeBSD sysroot the host's C headers
#     stand in for FreeBSD's libc headers, and the file's own fallback
#     declarations stand in for <sys/umtx.h> (the output says which).
#  2. The seam is clean: in lib/*.c and lib/*.h other than lib/futex_linux.c,
#     the code (comments stripped) names no Linux-only header, no SYS_futex or
#     libc syscall(), no FUTEX_* constant, no Linux-only system call and no
#     raw arch_syscall6 -- except the entries of the allow-list below, each
#     explained there. Allowed uses are printed as notes; anything else fails.
#  3. With FREEBSD_SEAM_WHOLE=1, for information only (never changes the
#     exit status): every lib/*.c but futex_linux.c compiled for the FreeBSD
#     target over an overlay that takes away what FreeBSD lacks (see
#     docs/porting-freebsd.md, which reports the result).
#
# Usage: srcdir=DIR sh tests/freebsd-seam.sh   (CLANG, FREEBSD_SEAM_CPU, FREEBSD_SEAM_WHOLE)
# Exit: 0 pass, 1 fail, 77 skip (automake SKIP) when clang is missing.
set -u
srcdir=${srcdir:-.}
CLANG=${CLANG:-clang}

if ! command -v "$CLANG" >/dev/null 2>&1; then
	echo "SKIP: $CLANG not found (apt-get install -y clang)"
	exit 77
fi

# The host's cpu, so that its C headers match the target's.
case $(uname -m) in
aarch64 | arm64) cpu=aarch64 ;;
*) cpu=x86_64 ;;
esac
cpu=${FREEBSD_SEAM_CPU:-$cpu}
target=$cpu-unknown-freebsd

tmp=$(mktemp -d) || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM
rc=0

# configure's config.h belongs to the Linux build: a minimal one of our own.
cat >"$tmp/config.h" <<'EOF'
/* minimal config.h for tests/freebsd-seam.sh */
#define PACKAGE "fthr"
#define PACKAGE_NAME "fthr"
#define PACKAGE_VERSION "0"
EOF

# clang targeting FreeBSD searches /usr/include but not the host's multiarch
# directory: add it last, so that the host's headers stand in for FreeBSD's.
sysinc=
ma=$("$CLANG" -print-multiarch 2>/dev/null) || ma=
if test -n "$ma" && test -d "/usr/include/$ma"; then
	sysinc="-idirafter /usr/include/$ma"
fi
# (the build tree's lib/ first: lib/symver.h is generated there)
inc="-I$tmp -I${FTHR_BUILDDIR:-$srcdir}/lib -I$srcdir/lib -I$srcdir/include -I$srcdir/arch/$cpu -D_GNU_SOURCE"

echo "== 1. lib/futex_freebsd.c for $target"
# shellcheck disable=SC2086
if printf '#include <sys/types.h>\n#include <sys/umtx.h>\n' |
	"$CLANG" --target="$target" -E -x c $sysinc - >/dev/null 2>&1; then
	echo "FreeBSD headers found: <sys/umtx.h> is the system's"
else
	echo "note: no FreeBSD sysroot: the host's C headers stand in for FreeBSD's libc,"
	echo "      lib/futex_freebsd.c's fallback declarations for <sys/umtx.h>"
fi
cmd="$CLANG --target=$target -fsyntax-only -Wall -Wextra -Werror $inc $sysinc $srcdir/lib/futex_freebsd.c"
echo "$cmd"
# shellcheck disable=SC2086
if $cmd >"$tmp/cc.out" 2>&1; then
	echo "ok: lib/futex_freebsd.c compiles for $target"
else
	cat "$tmp/cc.out"
	echo "FAIL: lib/futex_freebsd.c does not compile for $target"
	rc=1
fi

echo
echo "== 2. the seam: Linux-specific code outside lib/futex_linux.c"
# Allowed uses, "file token # why". Everything listed here is Linux-only code
# that a FreeBSD port has to move behind the seam or redo (see
# docs/porting-freebsd.md); the check keeps the list from growing unseen.
# Never allowed anywhere but futex_linux.c: SYS_futex, syscall().
cat >"$tmp/allow" <<'EOF'
lib/thr_mutex_pi.c <linux/futex.h>      # for the three PI-word bits below
lib/thr_mutex_pi.c FUTEX_OWNER_DIED     # PI word = Linux PI-futex ABI: tid | WAITERS | OWNER_DIED, set by the kernel
lib/thr_mutex_pi.c FUTEX_TID_MASK       # the owner tid inside that word
lib/thr_mutex_robust.c <linux/futex.h>  # for the robust-word bits below
lib/thr_mutex_robust.c FUTEX_WAITERS    # robust word = Linux robust-futex ABI (the kernel reads and sets these bits at thread death)
lib/thr_mutex_robust.c FUTEX_OWNER_DIED # set by the kernel when the owner dies
lib/thr_mutex_robust.c FUTEX_TID_MASK   # the owner tid inside the word
lib/thr_mutex_robust.c FUTEX_OFFSET     # fthr's own macro (the robust list head's futex_offset), not a kernel constant
lib/thr_mutex_robust.c SYS_get_robust_list # the host's registered robust list head (Linux; FreeBSD: UMTX_OP_ROBUST_LISTS, another list format)
lib/thr_mutex_robust.c SYS_set_robust_list # registering fthr's own head
lib/thr_mutex_robust.c arch_syscall6    # those two calls, raw (Linux return convention)
lib/self.c SYS_gettid                   # the kernel tid that owner words hold (FreeBSD: thr_self(2))
lib/self.c arch_syscall6                # that call, raw
lib/self.h SYS_sched_yield              # FreeBSD has it too, with another number from <sys/syscall.h>
lib/self.h arch_syscall6                # raw, inline on the spin path; arch_syscall6 follows Linux's convention
lib/env.c arch_syscall6                 # open/read/close of /proc/self/environ when the variables are read (maybe in another library's constructor); FreeBSD: no procfs by default, issetugid(2) and environ would serve
lib/env.c SYS_openat                    # (the same)
lib/env.c SYS_read                      # (the same)
lib/env.c SYS_close                     # (the same)
EOF
sed 's/[[:space:]]*#.*//; /^$/d' "$tmp/allow" >"$tmp/allow.keys"

# Print "file token" for each Linux-specific token in a file's code.
scan() { # file
	awk '
	{
		s = $0; out = ""
		while (s != "") {
			if (inc) {
				i = index(s, "*/")
				if (!i) { s = ""; break }
				s = substr(s, i + 2); inc = 0; continue
			}
			i = index(s, "/*"); j = index(s, "//")
			if (j && (!i || j < i)) { out = out substr(s, 1, j - 1); break }
			if (i) { out = out substr(s, 1, i - 1) " "; s = substr(s, i + 2); inc = 1; continue }
			out = out s; s = ""
		}
		print out
	}' "$1" >"$tmp/code"
	{
		grep -oE '#[[:space:]]*include[[:space:]]*<linux/[^>]*>' "$tmp/code" |
			sed -E 's/^#[[:space:]]*include[[:space:]]*//'
		# whole identifiers (a call's "(" kept, to tell syscall() apart)
		grep -oE '[A-Za-z_][A-Za-z0-9_]*([[:space:]]*\()?' "$tmp/code" |
			sed -E 's/[[:space:]]*\($/()/' |
			grep -E '^(FUTEX_[A-Z0-9_]+|SYS_[A-Za-z0-9_]+|arch_syscall6)(\(\))?$|^syscall\(\)$' |
			sed -E 's/^(FUTEX_[A-Z0-9_]+|SYS_[A-Za-z0-9_]+|arch_syscall6)\(\)$/\1/'
	} | sort -u | sed "s|^|$f |"
}

: >"$tmp/found"
for f in "$srcdir"/lib/*.c "$srcdir"/lib/*.h; do
	test -f "$f" || continue
	rel=lib/${f##*/}
	test "$rel" = lib/futex_linux.c && continue
	scan "$f" | sed "s|^$f |$rel |" >>"$tmp/found"
done
bad=0
while read -r file tok; do
	if grep -qxF "$file $tok" "$tmp/allow.keys"; then
		why=$(grep -F "$file $tok " "$tmp/allow" | sed 's/^[^#]*#[[:space:]]*//' | head -1)
		echo "note: $file: $tok -- $why"
	else
		echo "OFFENDER: $file: $tok (Linux-specific; belongs in lib/futex_linux.c or the allow-list with a reason)"
		bad=1
	fi
done <"$tmp/found"
while read -r file tok; do
	grep -qxF "$file $tok" "$tmp/found" ||
		echo "note: allow-list entry '$file $tok' matches nothing any more: drop it"
done <"$tmp/allow.keys"
grep -q '^#[[:space:]]*include[[:space:]]*<linux/futex.h>' "$srcdir/lib/futex_linux.c" ||
	echo "note: lib/futex_linux.c no longer includes <linux/futex.h>"
if test $bad = 0; then
	echo "ok: no Linux-specific code outside lib/futex_linux.c but the allow-list's"
else
	echo "FAIL: Linux-specific code outside the seam"
	rc=1
fi

# ---- 3. informational: the whole library for FreeBSD ----
if test "${FREEBSD_SEAM_WHOLE:-0}" = 1; then
	echo
	echo "== 3. (information only) every lib/*.c but futex_linux.c for $target"
	ov=$tmp/overlay
	mkdir -p "$ov/linux" "$ov/sys" "$ov/bits"
	# What FreeBSD does not have: Linux's headers.
	printf '#error "<linux/futex.h>: a Linux header, FreeBSD has none"\n' >"$ov/linux/futex.h"
	printf '#error "<sys/single_threaded.h>: glibc 2.32+, FreeBSD has none"\n' >"$ov/sys/single_threaded.h"
	# FreeBSD's numbers (sys/kern/syscalls.master) for the calls fthr could
	# use; gettid, futex, get/set_robust_list do not exist there.
	cat >"$ov/sys/syscall.h" <<'EOF'
#define SYS_sched_yield 331
#define SYS_thr_self 432
#define SYS__umtx_op 454
EOF
	# FreeBSD's pthread types are pointers to libthr's private objects
	# (<sys/_pthreadtypes.h>); pthread_once_t is { int state; mutex }.
	# glibc's own internal types stay, for its other headers.
	cat >"$ov/bits/pthreadtypes.h" <<'EOF'
#ifndef _BITS_PTHREADTYPES_COMMON_H
#define _BITS_PTHREADTYPES_COMMON_H 1
#include <bits/thread-shared-types.h>
typedef struct pthread *pthread_t;
typedef struct pthread_attr *pthread_attr_t;
#define __have_pthread_attr_t 1
typedef struct pthread_mutex *pthread_mutex_t;
typedef struct pthread_mutex_attr *pthread_mutexattr_t;
typedef struct pthread_cond *pthread_cond_t;
typedef struct pthread_cond_attr *pthread_condattr_t;
typedef int pthread_key_t;
typedef struct pthread_once { int state; pthread_mutex_t mutex; } pthread_once_t;
typedef struct pthread_rwlock *pthread_rwlock_t;
typedef struct pthread_rwlockattr *pthread_rwlockattr_t;
typedef struct pthread_barrier *pthread_barrier_t;
typedef struct pthread_barrierattr *pthread_barrierattr_t;
typedef struct pthread_spinlock *pthread_spinlock_t;
#endif
EOF
	# FreeBSD's sem_t: a magic word, struct _usem2 { count, flags }, padding.
	cat >"$ov/bits/semaphore.h" <<'EOF'
#define SEM_FAILED ((sem_t *)0)
typedef struct _sem {
	unsigned int _magic;
	struct { volatile unsigned int _count; unsigned int _flags; } _kern;
	unsigned int _padding;
} sem_t;
EOF
	# Pass A: the seam's own file, as is: what every file meets first.
	# shellcheck disable=SC2086
	"$CLANG" --target="$target" -fsyntax-only -ferror-limit=0 -I"$ov" $inc $sysinc \
		"$srcdir/lib/futex_freebsd.c" >"$tmp/a.out" 2>&1
	echo "pass A: lib/futex_freebsd.c over the overlay: $(grep -c 'error:' "$tmp/a.out") error(s)"
	grep 'error:' "$tmp/a.out" | sed "s|^$srcdir/||; s|^$tmp/|TMP/|" | sort -u | sed 's/^/    /'
	# Pass B: every file, the static assertions silenced (they are pass A's
	# glibc-layout checks), to see what lies behind them.
	echo "pass B: every lib/*.c, _Static_assert silenced; errors by the file they are in:"
	: >"$tmp/b.err"
	for f in "$srcdir"/lib/*.c; do
		test "${f##*/}" = futex_linux.c && continue
		# shellcheck disable=SC2086
		"$CLANG" --target="$target" -fsyntax-only -ferror-limit=0 -Wno-unused-parameter \
			'-D_Static_assert(...)=' -I"$ov" $inc $sysinc "$f" >"$tmp/w.out" 2>&1
		n=$(grep -c 'error:' "$tmp/w.out")
		echo "  lib/${f##*/}: $n error(s)"
		grep 'error:' "$tmp/w.out" | sed "s|^$srcdir/||; s|^$tmp/|TMP/|" >>"$tmp/b.err"
	done
	sort -u "$tmp/b.err" >"$tmp/b.uniq"
	cut -d: -f1 "$tmp/b.uniq" | sort -u | while read -r loc; do
		echo "  in $loc: $(grep -c "^$loc:" "$tmp/b.uniq") distinct, e.g.:"
		grep "^$loc:" "$tmp/b.uniq" | sed 's/^[^:]*:\([0-9]*\):[0-9]*: error: /\1: /' |
			awk -F': ' '!seen[$2]++' | head -"${FREEBSD_SEAM_SHOW:-8}" | sed 's/^/      /'
	done
	echo "(information only: not part of the verdict)"
fi

echo
if test $rc = 0; then echo "PASS: freebsd-seam"; else echo "FAIL: freebsd-seam"; fi
exit $rc
