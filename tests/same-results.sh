#!/bin/sh
# tests/same_results on plain glibc, with fthr preloaded, and linked with
# -lfthr: the three transcripts must be identical, and each run must use the
# implementation it claims (checked from what the program prints on stderr).
set -u
b=${FTHR_BUILDDIR:-.}/tests
lib=${FTHR_LIB:?}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
rc=0
# (timeout: a misuse an implementation gets wrong may leave a thread blocked)
timeout 120 "$b/same_results_plain" >"$tmp/glibc" 2>"$tmp/glibc.err" || { echo "FAIL: glibc run exited $?"; rc=1; }
LD_PRELOAD=$lib timeout 120 "$b/same_results_plain" >"$tmp/preload" 2>"$tmp/preload.err" || { echo "FAIL: preloaded run exited $?"; rc=1; }
timeout 120 "$b/same_results" >"$tmp/linked" 2>"$tmp/linked.err" || { echo "FAIL: linked run exited $?"; rc=1; }
grep -q 'from .*libc\.so' "$tmp/glibc.err" || { echo "FAIL: glibc run: $(cat "$tmp/glibc.err")"; rc=1; }
grep -q 'from .*libfthr' "$tmp/preload.err" || { echo "FAIL: preload run: $(cat "$tmp/preload.err")"; rc=1; }
grep -q 'from .*libfthr' "$tmp/linked.err" || { echo "FAIL: linked run: $(cat "$tmp/linked.err")"; rc=1; }
for how in preload linked; do
	if ! diff -u "$tmp/glibc" "$tmp/$how"; then
		echo "FAIL: $how transcript differs from glibc's"; rc=1
	fi
done
echo "$(wc -l <"$tmp/glibc") results compared: glibc, preloaded, linked"
test $rc -eq 0 && echo "identical"
exit $rc
