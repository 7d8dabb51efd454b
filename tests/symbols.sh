#!/bin/sh
# What libfthr exports and how it binds:
#  - exactly the public API in tests/exports.txt, nothing internal;
#  - unversioned: no version definitions of our own, so a program's
#    reference to pthread_mutex_lock@GLIBC_2.2.5 binds to fthr's definition;
#  - soname libfthr.so.0;
#  - internal calls never go through the PLT/GOT: no dynamic relocation of
#    the library refers to a symbol the library itself defines.
set -u
lib=${1:-${FTHR_LIB:-}}
srcdir=${FTHR_SRCDIR:-$(dirname "$0")/..}
test -n "$lib" && test -f "$lib" || { echo "usage: $0 LIBRARY" >&2; exit 99; }
rc=0
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

nm -D --defined-only "$lib" | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$tmp/got"
sort -u "$srcdir/tests/exports.txt" | sed '/^#/d;/^$/d' >"$tmp/want"
if ! diff -u "$tmp/want" "$tmp/got"; then
	echo "FAIL: exported symbols differ from tests/exports.txt (- expected, + exported)"
	rc=1
fi
echo "exported symbols: $(wc -l <"$tmp/got")"

if readelf -V "$lib" | grep -q 'Version definition'; then
	echo "FAIL: libfthr defines symbol versions"; readelf -V "$lib" | sed -n '/Version definition/,/^$/p'
	rc=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
test "$soname" = libfthr.so.0 || { echo "FAIL: soname is '$soname'"; rc=1; }

readelf -rW "$lib" | awk '$3 ~ /^R_/ && NF >= 5 { print $5 }' | sed 's/@.*//' | sort -u >"$tmp/relsyms"
self=$(comm -12 "$tmp/relsyms" "$tmp/got")
if test -n "$self"; then
	echo "FAIL: the library binds to its own symbols through dynamic relocations:"
	echo "$self"
	rc=1
fi
echo "dynamic relocations against external symbols: $(wc -l <"$tmp/relsyms") ($(tr '\n' ' ' <"$tmp/relsyms"))"
# A program built against glibc refers to pthread_mutex_lock@GLIBC_2.2.5;
# preloaded, that versioned reference must bind to fthr's definition.
if test -n "${CONTEND:-}" && test -x "$CONTEND"; then
	if readelf -W --dyn-syms "$CONTEND" | grep -q 'pthread_mutex_lock@GLIBC_2\.2\.5'; then
		where=$(LD_PRELOAD=$lib "$CONTEND" where)
		case $where in
		*libfthr*) echo "pthread_mutex_lock@GLIBC_2.2.5 binds to $where" ;;
		*) echo "FAIL: pthread_mutex_lock@GLIBC_2.2.5 binds to $where"; rc=1 ;;
		esac
	else
		echo "FAIL: $CONTEND has no versioned reference to pthread_mutex_lock"; rc=1
	fi
fi
exit $rc
