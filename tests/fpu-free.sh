#!/bin/sh
# The FPU-free test. From the disassembly of a built libfthr:
#  1. no instruction in the whole library uses an x87/MMX/SSE/AVX register
#     (i386 the same; aarch64: an FP/SIMD register; armhf: a VFP/NEON
#     register; ppc64le: an FPR, VMX or VSX register; s390x: an FPR or
#     vector register) -- the arch flags promise that;
#  2. the hot paths (unlock, post, signal, the uncontended lock/trylock of
#     mutexes, spinlocks and rwlocks, the completed pthread_once,
#     getspecific) make no call out of the library: no PLT call, no call or
#     jump through a pointer; and each returns from its own body (its fast
#     path is not behind a tail jump into a helper). (sem_wait is a cancellation point and asks the
#     host's pthread_testcancel first, as glibc's does: not listed.)
# Then a negative control: the same sources built WITHOUT the arch flags
# must fail check 1, which proves the check can see what it looks for.
# Where the compiler happens to pick no FP/vector register for fthr's code
# even so (ppc64le, i386), one floating-point function is built into that
# library too, and the check must find it.
#
# Usage: fpu-free.sh [LIBRARY]   (default $FTHR_LIB); needs objdump and nm.
set -u
OBJDUMP=${OBJDUMP:-objdump}
NM=${NM:-nm}
arch=${FTHR_ARCH:-$(uname -m)}
case $arch in
x86_64 | i386 | aarch64 | armhf | ppc64le | s390x) ;;
*) echo "fpu-free.sh: no rules for arch $arch" >&2; exit 99 ;;
esac
HOT="pthread_mutex_lock pthread_mutex_trylock pthread_mutex_unlock
pthread_spin_lock pthread_spin_trylock pthread_spin_unlock pthread_once
pthread_cond_signal pthread_cond_broadcast sem_post sem_trywait
pthread_rwlock_rdlock pthread_rwlock_wrlock pthread_rwlock_tryrdlock
pthread_rwlock_trywrlock pthread_rwlock_unlock pthread_getspecific
mtx_lock mtx_unlock"

# Print the offending instructions of a disassembly on stdin.
fpu_insns() {
	case $arch in
	x86_64 | i386)
		# x87 mnemonics all start with f; SSE/AVX/MMX name their registers
		awk -F'\t' 'NF >= 2 { m = $2; sub(/ .*/, "", m); ops = $2; sub(/^[^ ]+ */, "", ops);
			sub(/#.*/, "", ops); gsub(/<[^>]*>/, "", ops);
			if (m ~ /^f/ || m ~ /^(emms|ldmxcsr|stmxcsr|vzeroupper|vzeroall)$/ ||
			    ops ~ /%([xyz]mm[0-9]|mm[0-7]|st\(|st$|st,|k[0-7])/) print }' ;;
	aarch64)
		awk -F'\t' 'NF >= 2 { m = $2; sub(/[ \t].*/, "", m); ops = $0; sub(/^[^\t]*\t[^\t]*\t?/, "", ops);
			# a branch or adrp target ("b000 <sym>") is an address, not a register
			gsub(/[0-9a-f]+ <[^>]*>/, "", ops); gsub(/\/\/.*/, "", ops);
			if (m ~ /^f/ || ops ~ /(^|[^a-z0-9_])[vqdshb][0-9]+([^0-9a-z_]|$)/) print }' ;;
	ppc64le)
		# FPRs f0-f31, VMX v0-v31, VSX vs0-vs63; FP mnemonics start with f
		# (fmr, fadd, fcfid), their loads and stores are lf*/stf*, and the
		# FPSCR moves mffs/mtfs*
		awk -F'\t' 'NF >= 2 { m = $2; sub(/[ \t].*/, "", m); ops = $0; sub(/^[^\t]*\t[^\t]*\t?/, "", ops);
			gsub(/[0-9a-f]+ <[^>]*>/, "", ops); gsub(/#.*/, "", ops);
			if (m ~ /^(f|lf|stf|mffs|mtfs)/ ||
			    ops ~ /(^|[^a-z0-9_])(f|v|vs)[0-9]+([^0-9a-z_]|$)/) print }' ;;
	s390x)
		# FPRs %f0-%f15 (also what ldgr/lgdr spill general registers
		# into), vector registers %v0-%v31, and the FP control register's
		# instructions, which name no register
		awk -F'\t' 'NF >= 2 { m = $2; sub(/[ \t].*/, "", m); ops = $0; sub(/^[^\t]*\t[^\t]*\t?/, "", ops);
			gsub(/[0-9a-f]+ <[^>]*>/, "", ops); gsub(/#.*/, "", ops);
			if (m ~ /^(sfpc|efpc|lfpc|stfpc|sfasr|lfas|srnm|srnmb|srnmt)$/ ||
			    ops ~ /%[fv][0-9]+/) print }' ;;
	armhf)
		# VFP/NEON registers s0-s31, d0-d31, q0-q15; their instructions
		# start with v (vldr, vmov, vmrs, ...), the old names with f
		# (fmrx, fldmd); no integer mnemonic starts with either
		awk -F'\t' 'NF >= 2 { m = $2; sub(/[ \t].*/, "", m); ops = $0; sub(/^[^\t]*\t[^\t]*\t?/, "", ops);
			gsub(/[0-9a-f]+ <[^>]*>/, "", ops); gsub(/[;@].*/, "", ops);
			if (m ~ /^(v|f)/ || ops ~ /(^|[^a-z0-9_])[sdq][0-9]+([^0-9a-z_]|$)/) print }' ;;
	esac
}

# Print the calls and jumps out of the library, or through a pointer, of a
# disassembly on stdin (a PLT entry, an indirect branch).
calls_out() {
	case $arch in
	ppc64le)
		# bl to a PLT stub (objdump names it *.plt_call.* or @plt);
		# bctr/bctrl/bcctr* branch through the count register
		grep -E '\s(bl|b)\s.*(plt_call|@plt)|\s(bctr|bctrl|bcctr[a-z]*)(\s|$)' ;;
	s390x)
		# brasl/jg to a PLT entry; basr/balr/bas call through a register;
		# a branch on a register other than %r14 (the return) jumps
		# through a pointer
		grep -E '\s(brasl|jg[a-z]*|brcl)\s.*@plt|\s(basr|balr|bas)\s|\sb[a-z]*r\s+%r([0-9]|1[0-35])(,|\s|$)' ;;
	armhf)
		# bl/blx/b to a PLT entry; blx/bx through a register other than
		# lr (bx lr is the return)
		grep -E '\s(bl|blx|b|b\.w|b[a-z][a-z](\.w)?)\s.*@plt|\s(blx|bx)\s+(r[0-9]+|ip|sl|fp)(\s|$)' ;;
	*)
		grep -E '\s(call|callq|jmp|jmpq|bl|b|br|blr)\s' | grep -E '@plt|\*|\s(br|blr)\s' ;;
	esac
}

# Succeeds if a disassembly on stdin has a return instruction.
returns() {
	case $arch in
	ppc64le) grep -qE '\sb[a-z]*lr[+-]?(\s|$)' ;; # blr, beqlr, bnelr+ ...
	s390x) grep -qE '\sb[a-z]*r\s+%r14(\s|$)' ;; # br %r14, ber %r14 ...
	armhf) grep -qE '\sbx\s+lr|\spop(\.w)?\s+\{[^}]*pc\}|\sldm(ia)?(\.w)?\s+sp!,\s*\{[^}]*pc\}|\sldr(\.w)?\s+pc,' ;; # bx lr, pop/ldmia sp! {.., pc}
	*) grep -qE '\s(ret|retq)(\s|$)' ;;
	esac
}

# Disassemble one exported function by its address and size. (The entry
# points FTHR_PROFILE/FTHR_CHECK can watch are checked as they are: the
# plain body with the test of the diagnostics flag in front, lib/diag.h.)
disasm_fn() { # lib sym
	set -- "$1" "$2" $($NM -D -S --defined-only "$1" | awk -v s="$2" '{ n = $4; sub(/@@.*/, "", n) } n == s { print $1, $2, $3 }')
	test $# -eq 5 || { echo "no symbol $2 in $1" >&2; return 1; }
	test "$5" = T || { echo "$2 is of type $5, not an ordinary function" >&2; return 1; }
	start=$((0x$3)); stop=$((0x$3 + 0x$4))
	$OBJDUMP -d --no-show-raw-insn --start-address=$start --stop-address=$stop "$1" | grep -P '^\s+[0-9a-f]+:\t'
}

# Check a library; prints findings, returns 1 if any.
check_lib() { # lib
	lib=$1; bad=0
	out=$($OBJDUMP -d --no-show-raw-insn "$lib" | grep -P '^\s+[0-9a-f]+:\t' | fpu_insns)
	if test -n "$out"; then
		echo "FPU/vector instructions in $lib:"; echo "$out" | head -20
		bad=1
	fi
	for f in $HOT; do
		body=$(disasm_fn "$lib" "$f") || { bad=1; continue; }
		n=$(printf '%s\n' "$body" | wc -l)
		calls=$(printf '%s\n' "$body" | calls_out)
		fpu=$(printf '%s\n' "$body" | fpu_insns)
		# the fast path must be in the body itself, not behind a tail jump
		# to a helper whose other paths this check does not read
		if ! printf '%s\n' "$body" | returns; then
			echo "$f: no return in its own body: the fast path is elsewhere"
			bad=1
		fi
		if test -n "$calls$fpu"; then
			echo "$f: calls out of the library or uses FP registers:"
			printf '%s\n' "$calls" "$fpu" | sed '/^$/d'
			bad=1
		else
			echo "$f: $n instructions, FPU-free, no call out of the library"
		fi
	done
	return $bad
}

lib=${1:-${FTHR_LIB:-}}
test -n "$lib" && test -f "$lib" || { echo "usage: $0 LIBRARY" >&2; exit 99; }
command -v "$OBJDUMP" >/dev/null || { echo "no objdump" >&2; exit 99; }

echo "== $lib ($arch)"
check_lib "$lib"; rc=$?

# Negative control, only from the build tree (needs the sources and flags).
if test -n "${FTHR_SRCDIR:-}" && test -n "${FTHR_LIB_SOURCES:-}" && test -n "${CC:-}"; then
	tmp=$(mktemp -d) || exit 99
	trap 'rm -rf "$tmp"' EXIT
	srcs=
	for s in $FTHR_LIB_SOURCES; do case $s in *.c) srcs="$srcs $FTHR_SRCDIR/$s" ;; esac; done
	# shellcheck disable=SC2086
	if $CC -shared -fPIC $FTHR_BASE_CFLAGS -D_GNU_SOURCE -I"$FTHR_BUILDDIR" \
		-Wl,--version-script="$FTHR_BUILDDIR/lib/fthr.map" -I"$FTHR_BUILDDIR/lib" \
		-I"$FTHR_SRCDIR/lib" -I"$FTHR_SRCDIR/include" -I"$FTHR_SRCDIR/arch/$arch" \
		-o "$tmp/libnoflags.so" $srcs 2>"$tmp/cc.err"; then
		echo "== negative control: the same sources without '$FTHR_ARCH_CFLAGS'"
		if check_lib "$tmp/libnoflags.so" >"$tmp/neg.out"; then
			# The compiler chose no FP/vector register for fthr's
			# code even without the flags (ppc64le's GCC 12): the
			# flags are then the guarantee, and the control is a
			# canary, one floating-point function built into the
			# same library without them, which the check must see.
			echo "(the library's own code uses no FP/vector register here even without the flags)"
			printf 'double fthr_fpu_canary(double a, double b) { return a * b + 1.5; }\n' >"$tmp/canary.c"
			# shellcheck disable=SC2086
			if $CC -shared -fPIC $FTHR_BASE_CFLAGS -D_GNU_SOURCE -I"$FTHR_BUILDDIR" \
				-Wl,--version-script="$FTHR_BUILDDIR/lib/fthr.map" -I"$FTHR_BUILDDIR/lib" \
				-I"$FTHR_SRCDIR/lib" -I"$FTHR_SRCDIR/include" -I"$FTHR_SRCDIR/arch/$arch" \
				-o "$tmp/libcanary.so" $srcs "$tmp/canary.c" 2>"$tmp/cc.err" &&
			   ! check_lib "$tmp/libcanary.so" >"$tmp/neg.out"; then
				grep -A3 '^FPU/vector' "$tmp/neg.out"
				echo "ok: with a floating-point function and without the flags the check fails, as it must"
			else
				cat "$tmp/cc.err" "$tmp/neg.out"
				echo "FAIL: the check found nothing in a build without the flags"
				rc=1
			fi
		else
			grep -A3 '^FPU/vector' "$tmp/neg.out"
			echo "ok: without the flags the check fails, as it must"
		fi
	else
		cat "$tmp/cc.err"; echo "could not build the negative control"; rc=1
	fi
fi
exit $rc
