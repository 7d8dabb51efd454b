#!/bin/sh
# make install into a scratch DESTDIR: every file in its place; an example
# program built with pkg-config against the installed tree runs on the
# installed library; the installed fthr-run works.
set -u
b=${FTHR_BUILDDIR:-.}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
expect() { # description 'condition'
	if eval "$2"; then pass=$((pass + 1)); echo "ok: $1"
	else fail=$((fail + 1)); echo "FAIL: $1"; sed 's/^/    | /' "$tmp/err" 2>/dev/null | head -20; fi
}
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }

${MAKE:-make} -C "$b" install DESTDIR="$tmp/dest" >"$tmp/err" 2>&1; rc=$?
expect "make install DESTDIR=..." '[ $rc = 0 ]'
prefix=$(sed -n 's/^prefix=//p' "$b/fthr.pc")
root=$tmp/dest$prefix
libdir=$(PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --define-variable=prefix="$root" --variable=libdir fthr)
for f in "$libdir/libfthr.so.0" "$libdir/libfthr.so" "$root/include/fthr.h" \
	"$libdir/pkgconfig/fthr.pc" "$root/bin/fthr-run" "$root/share/man/man7/fthr.7" \
	"$root/share/man/man1/fthr-run.1" "$root/share/man/man3/pthread_mutex_lock.3" \
	"$root/share/man/man3/sem_open.3" "$root/share/man/man3/mtx_lock.3"; do
	expect "installed: ${f#$tmp/dest}" '[ -f "$f" ]'
done
real=$(readlink "$libdir/libfthr.so.0")
for f in "$root/share/fthr/fthr_printers.py" "$root/share/gdb/auto-load$prefix/lib/$real-gdb.py"; do
	expect "installed: ${f#$tmp/dest} (gdb's printers)" 'cmp -s "$f" "${srcdir:-.}/gdb/fthr_printers.py"'
done
n=$(ls "$root/share/man/man3" | wc -l)
expect "every section-3 page installed ($n)" '[ "$n" -eq "$(ls "${srcdir:-.}"/man/*.3 | wc -l)" ]'

pc() { PKG_CONFIG_PATH=$root/lib/pkgconfig pkg-config --define-variable=prefix="$root" "$@" fthr; }
libs=$(pc --libs)
expect "pkg-config --libs fthr: $libs" 'echo "$libs" | grep -q -- "-lfthr" && ! echo "$libs" | grep -q -- -lpthread'
expect "pkg-config --modversion" '[ "$(pc --modversion)" = "${VERSION:-0.1.0}" ]'
# shellcheck disable=SC2046
${CC:-cc} $(pc --cflags) -o "$tmp/example" "${srcdir:-.}/tests/install_example.c" $(pc --libs) \
	-Wl,-rpath,"$libdir" 2>"$tmp/err"
expect "example builds with pkg-config's flags" '[ -x "$tmp/example" ]'
LD_TRACE_LOADED_OBJECTS=1 "$tmp/example" >"$tmp/ldd" 2>&1
expect "example is linked to the installed libfthr" 'grep -q "libfthr.so.0 => $libdir/libfthr.so.0" "$tmp/ldd"'
"$tmp/example" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect "example runs: $(cat "$tmp/out")" '[ $rc = 0 ] && grep -q "fthr ${VERSION:-0.1.0} counted 400000" "$tmp/out"'
"$root/bin/fthr-run" --version >"$tmp/out" 2>"$tmp/err"
expect "installed fthr-run --version" 'grep -q "fthr-run (fthr)" "$tmp/out"'
FTHR_LIB=$libdir/libfthr.so.0 "$root/bin/fthr-run" --check "$tmp/example" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect "installed fthr-run --check on the example: clean" '[ $rc = 0 ] && ! grep -q fthr-check "$tmp/err"'
if [ ! -e "$prefix/lib/libfthr.so.0" ]; then
	env -u FTHR_LIB "$root/bin/fthr-run" true >"$tmp/out" 2>"$tmp/err"; rc=$?
	expect "installed fthr-run without its library: 127" '[ $rc = 127 ] && grep -q "cannot find" "$tmp/err"'
fi
${MAKE:-make} -C "$b" uninstall DESTDIR="$tmp/dest" >"$tmp/err" 2>&1
left=$(find "$tmp/dest" -type f | wc -l)
expect "make uninstall leaves no file ($left)" '[ "$left" = 0 ]'
echo "$pass passed, $fail failed"
[ $fail = 0 ]
