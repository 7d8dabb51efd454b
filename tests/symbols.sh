#!/bin/sh
# What libfthr exports and how it binds:
#  - exactly the public API in tests/exports.txt (and, on 32-bit arches,
#    tests/exports-ilp32.txt), nothing internal;
#  - versioned as the host's C library (FTHR_HOST_LIBS, configure found
#    them): every name has exactly the versions glibc gives it, default
#    (@@) and compatibility (@) alike, fthr's own names FTHR_0; and a
#    versioned lookup, dlvsym (tests/symver_probe), finds fthr's function
#    for every one of them, as a glibc-built program's references do;
#  - a program linked with -lfthr records fthr's versions (tests/t_cond
#    needs pthread_cond_wait's GLIBC_2.3.2 of libfthr.so.0);
#  - soname libfthr.so.0;
#  - internal calls never go through the PLT/GOT: no dynamic relocation of
#    the library refers to a symbol the library itself defines.
#
# For another arch (scripts/cross-check): NM and READELF that arch's tools,
# FTHR_EMULATOR the emulator (qemu-user, which takes -E VAR=value) that runs
# the arch's programs.
set -u
lib=${1:-${FTHR_LIB:-}}
nm=${NM:-nm}
# run_preloaded PROGRAM ARGS...: PROGRAM with fthr preloaded, under the
# emulator if there is one (qemu's own environment must not preload it)
run_preloaded() {
	if test -n "${FTHR_EMULATOR:-}"; then
		$FTHR_EMULATOR -E LD_PRELOAD="$lib" "$@"
	else
		LD_PRELOAD=$lib "$@"
	fi
}
srcdir=${FTHR_SRCDIR:-$(dirname "$0")/..}
test -n "$lib" && test -f "$lib" || { echo "usage: $0 LIBRARY" >&2; exit 99; }
rc=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

$nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/all"
# a 32-bit library also answers the 64-bit-time names (lib/time64.c)
lists=$srcdir/tests/exports.txt
"${READELF:-readelf}" -h "$lib" | grep -q 'Class:.*ELF32' && lists="$lists $srcdir/tests/exports-ilp32.txt"
# shellcheck disable=SC2086
cat $lists | sort -u | sed '/^#/d;/^$/d' >"$tmp/want"
# Valgrind's function wrappers (lib/diag_valgrind.c) live in a library of
# their own beside libfthr, loaded under Helgrind and DRD only: none in
# libfthr, where Valgrind would run them under every tool; each wraps an
# export.
vgw=_vgw00000ZU_libfthrZdsoZd0_
vglib=$(dirname "$lib")/libfthr-valgrind.so
cp "$tmp/all" "$tmp/got"
if grep -q "^$vgw" "$tmp/all"; then
	echo "FAIL: Valgrind wrappers in $lib itself"; rc=1
fi
test -f "$vglib" && $nm -D --defined-only "$vglib" | awk '{ print $3 }' |
	grep "^$vgw" | sed "s/^$vgw//" | sort -u >"$tmp/wrapped"
if test -s "$tmp/wrapped"; then
	stray=$(comm -23 "$tmp/wrapped" "$tmp/want")
	if test -n "$stray"; then
		echo "FAIL: Valgrind wrappers of names fthr does not export: $stray"; rc=1
	else
		echo "Valgrind wrappers: $(wc -l <"$tmp/wrapped"), each of an export"
	fi
fi
if ! diff -u "$tmp/want" "$tmp/got"; then
	echo "FAIL: exported symbols differ from tests/exports.txt (- expected, + exported)"
	rc=1
fi
echo "exported symbols: $(wc -l <"$tmp/got")"

readelf=${READELF:-readelf}
# dynsyms FILE: readelf's symbol table, without the "[<localentry>: 8]"
# column ppc64le's adds (the fields are then every arch's)
dynsyms() { "$readelf" -W --dyn-syms "$1" | sed 's/\[<localentry>: [0-9]*\] *//'; }
dynsyms "$lib" | awk '$7 != "UND" && $7 != "ABS" && $5 == "GLOBAL" { print $8 }' |
	sort -u >"$tmp/fthrv"
if test -n "${FTHR_HOST_LIBS:-}"; then
	# the host's versions of our names: name@@V / name@V, FTHR_0 if none
	for h in $FTHR_HOST_LIBS; do dynsyms "$h"; done |
		awk '$7 != "UND" && $8 ~ /@/ { n = $8; sub(/ .*/, "", n); print n }' | sort -u >"$tmp/hostv"
	awk -v hv="$tmp/hostv" 'BEGIN { while ((getline l < hv) > 0) { n = l; sub(/@.*/, "", n); v[n] = v[n] " " l } }
		{ if ($1 in v) { k = split(v[$1], a, " "); for (i = 1; i <= k; i++) print a[i] } else print $1 "@@FTHR_0" }' \
		"$tmp/want" | sort -u >"$tmp/wantv"
	if ! diff -u "$tmp/wantv" "$tmp/fthrv"; then
		echo "FAIL: symbol versions differ from the host's $FTHR_HOST_LIBS (- host, + fthr)"
		rc=1
	fi
	echo "versioned exports: $(wc -l <"$tmp/fthrv") (default $(grep -c @@ "$tmp/fthrv"), compatibility $(grep -vc @@ "$tmp/fthrv"))"
	probe=${FTHR_BUILDDIR:-.}/tests/symver_probe
	if test -x "$probe"; then
		run_preloaded "$probe" <"$tmp/fthrv" >"$tmp/probe"
		bad=$(grep -v 'libfthr\.so' "$tmp/probe")
		if test -n "$bad" || test "$(wc -l <"$tmp/probe")" -ne "$(wc -l <"$tmp/fthrv")"; then
			echo "FAIL: dlvsym does not find fthr's function for:"; echo "$bad"; rc=1
		else
			echo "dlvsym finds fthr for all $(wc -l <"$tmp/probe") versioned names"
		fi
	else
		echo "FAIL: no $probe"; rc=1
	fi
	# pthread_cond_wait's default version: GLIBC_2.3.2 on x86_64 (the
	# arches glibc supported before 2.3.2 have an older one besides)
	cv=$(sed -n 's/^pthread_cond_wait@@//p' "$tmp/hostv")
	linked=${FTHR_BUILDDIR:-.}/tests/.libs/t_cond # (tests/t_cond: libtool's wrapper)
	if test -f "$linked" && test -n "$cv"; then
		if "$readelf" -V "$linked" | sed -n '/libfthr\.so\.0/,/File:/p' | grep -q "Name: $cv "; then
			echo "tests/t_cond (linked) needs $cv of libfthr.so.0"
		else
			echo "FAIL: tests/t_cond records no $cv of libfthr.so.0"; "$readelf" -V "$linked"; rc=1
		fi
	fi
else
	if grep -q @ "$tmp/fthrv"; then
		echo "FAIL: configured without symbol versions, but the library has some"; rc=1
	fi
	echo "unversioned exports (configured without a host C library)"
fi
soname=$("$readelf" -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
test "$soname" = libfthr.so.0 || { echo "FAIL: soname is '$soname'"; rc=1; }

"$readelf" -rW "$lib" | awk '$3 ~ /^R_/ && NF >= 5 { print $5 }' | sed 's/@.*//' | sort -u >"$tmp/relsyms"
self=$(comm -12 "$tmp/relsyms" "$tmp/got")
if test -n "$self"; then
	echo "FAIL: the library binds to its own symbols through dynamic relocations:"
	echo "$self"
	rc=1
fi
echo "dynamic relocations against external symbols: $(wc -l <"$tmp/relsyms") ($(tr '\n' ' ' <"$tmp/relsyms"))"
# A program built against glibc refers to pthread_mutex_lock@GLIBC_2.2.5
# (x86_64; each arch its own base version); preloaded, that versioned
# reference must bind to fthr's definition.
if test -n "${CONTEND:-}" && test -x "$CONTEND"; then
	ref=$(dynsyms "$CONTEND" | awk '$7 == "UND" { print $8 }' |
		grep -m1 '^pthread_mutex_lock@GLIBC_')
	if test -n "$ref"; then
		where=$(run_preloaded "$CONTEND" where)
		case $where in
		*libfthr*) echo "$ref binds to $where" ;;
		*) echo "FAIL: $ref binds to $where"; rc=1 ;;
		esac
	else
		echo "FAIL: $CONTEND has no versioned reference to pthread_mutex_lock"; rc=1
	fi
fi
exit $rc
