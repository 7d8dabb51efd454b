#!/bin/sh
# make check: tests/suites.am, which Makefile.am includes, is what
# tests/gen-suites.sh writes from tests/suites.list today. It is committed
# (a plain autoreconf builds without running the generator), so an edit of
# the list without a new suites.am would build the old suites unnoticed.
# Exit: 0 current, 1 stale (the diff says how).
set -u
srcdir=${FTHR_SRCDIR:-${srcdir:-.}}
tmp=$(mktemp) || exit 99
trap 'rm -f "$tmp"' 0
trap 'exit 1' HUP INT TERM

sh "$srcdir/tests/gen-suites.sh" "$srcdir/tests/suites.list" >"$tmp" || exit 1
if ! diff -u "$srcdir/tests/suites.am" "$tmp"; then
	echo "FAIL: tests/suites.am is stale; run: sh tests/gen-suites.sh >tests/suites.am"
	exit 1
fi
echo "ok: tests/suites.am is current with tests/suites.list"
