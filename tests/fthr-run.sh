#!/bin/sh
# fthr-run from the build tree: options, errors, exit status passed through.
set -u
b=${FTHR_BUILDDIR:-.}
run=$b/fthr-run
prog=$b/tests/diag_prog_plain
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
unset FTHR_LIB # fthr-run must find the build tree's library itself
expect() { # description 'condition'
	if eval "$2"; then pass=$((pass + 1)); echo "ok: $1"
	else fail=$((fail + 1)); echo "FAIL: $1"; sed 's/^/    | /' "$tmp/err" 2>/dev/null | head -20; fi
}
r() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

r "$run" --version
expect "--version" '[ $rc = 0 ] && grep -qx "fthr-run (fthr) ${VERSION:-0.1.0}" "$tmp/out"'
r "$run" --help
expect "--help" '[ $rc = 0 ] && grep -q "usage: fthr-run" "$tmp/out"'
r "$run"
expect "no program: usage error 2" '[ $rc = 2 ] && grep -q "no program" "$tmp/err"'
r "$run" --bogus true
expect "unknown option: usage error 2" '[ $rc = 2 ] && grep -q "unknown option" "$tmp/err"'
r env FTHR_LIB=/nonexistent/libfthr.so.0 "$run" true
expect "library not found: 127 and a clear message" \
	'[ $rc = 127 ] && grep -q "cannot find libfthr.so.0 (/nonexistent" "$tmp/err"'
r "$run" sh -c 'exit 7'
expect "exit status passed through (7)" '[ $rc = 7 ]'
r "$run" /nonexistent/program
expect "program not found: 127" '[ $rc = 127 ]'
r "$run" "$prog" binding
expect "preloads the build tree's library" \
	'[ $rc = 0 ] && grep -q "RESULT binding .*/lib/.libs/libfthr.so.0" "$tmp/out"'
r "$run" sh -c 'echo "$LD_PRELOAD"'
expect "LD_PRELOAD is absolute" 'grep -q "^/.*libfthr.so.0" "$tmp/out"'
r "$run" --check "$prog" inversion
expect "--check reports, program runs on" '[ $rc = 0 ] && grep -q "lock-order inversion" "$tmp/err"'
r "$run" --check=abort "$prog" relock
expect "--check=abort aborts (134)" '[ $rc = 134 ] && grep -q "relock" "$tmp/err"'
r "$run" --profile "$prog" contention
expect "--profile: report on stderr" '[ $rc = 0 ] && grep -q "fthr-profile: pid" "$tmp/err"'
r "$run" --profile="$tmp/p.%p" -- "$prog" contention
expect "--profile=FILE" '[ $rc = 0 ] && cat "$tmp"/p.* | grep -q "fthr-profile: pid" && ! grep -q fthr-profile "$tmp/err"'
echo "$pass passed, $fail failed"
[ $fail = 0 ]
