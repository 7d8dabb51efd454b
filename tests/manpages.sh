#!/bin/sh
# tests/manpages.sh: every symbol libfthr exports is documented, and every
# manual page is clean.
#  - Each name in tests/exports.txt (EXPORTS=path checks another list) has
#    man/NAME.3: a page, or a link page of exactly one line
#    ".so man3/PAGE.3" whose target is a page in man/; either way the page
#    names NAME in its NAME section.
#  - A name that begins with "__" (glibc's compatibility aliases) needs no
#    file of its own; it must appear in the page of the function it aliases
#    (the page man/NAME-without-the-underscores.3 leads to) or, when there
#    is no such file, in some page of section 3.
#  - Every page in man/ passes "mandoc -Tlint -W warning" without a message.
#    A link page is linted through its .so, from a directory in which man3/
#    is man/; mandoc's warning that .so is fragile is the one message
#    allowed there.
#  - man/local.am lists every page in man/ in FTHR_MAN_PAGES, and nothing
#    else.
# Prints one line per failure and a summary. Exit 0: all good; 1: a
# failure; 77 (skip): mandoc is not installed.
set -u
srcdir=${srcdir:-.}
man=$srcdir/man
exports=${EXPORTS:-$srcdir/tests/exports.txt}

if ! command -v mandoc >/dev/null 2>&1; then
	echo "SKIP: mandoc is not installed"
	exit 77
fi

failures=0
fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}
# Broken link pages are reported once, however often they are met.
reported=' '
fail_link() {
	case $reported in
	*" $1 "*) ;;
	*) reported="$reported$1 "; fail "$1: $2" ;;
	esac
}

if ! test -r "$exports"; then
	echo "FAIL: cannot read the symbol list $exports"
	exit 1
fi
if ! man_abs=$(cd "$man" 2>/dev/null && pwd); then
	echo "FAIL: no directory $man"
	exit 1
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
for d in 1 2 3 4 5 6 7 8 9; do
	ln -s "$man_abs" "$tmp/man$d"
done

# is_link FILE: the file is a .so link page.
is_link() {
	sed -n '1p' "$1" | grep -q '^\.so'
}

# link_target FILE: set target to the page a well-formed link page names
# (a file name in man/); fail if the link page is malformed.
link_target() {
	target=
	if test "$(sed -n '$=' "$1")" != 1 ||
	    ! grep -q '^\.so man[1-9]/[A-Za-z0-9_][A-Za-z0-9_.-]*\.[1-9]$' "$1"; then
		fail_link "$1" "is a link page, which must be exactly one line '.so manN/PAGE.N'"
		return 1
	fi
	target=$(sed -n 's|^\.so man[1-9]/||p' "$1")
}

# resolve FILE: set page to the real page FILE is or leads to; fail when a
# link is malformed or leads nowhere.
resolve() {
	page=
	if ! is_link "$1"; then
		page=$1
		return 0
	fi
	link_target "$1" || return 1
	if ! test -f "$man/$target"; then
		fail_link "$1" "links to man/$target, which does not exist"
		return 1
	fi
	if is_link "$man/$target"; then
		fail_link "$1" "links to man/$target, which is itself a link page"
		return 1
	fi
	page=$man/$target
}

# text FILE: the page's words, without the roff escapes that glue to them.
text() {
	sed -e 's/\\f[BIRP1-4]//g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\f\[[^]]*\]//g' \
	    -e 's/\\[&%:]//g' -e 's/\\-/-/g' "$1"
}

# name_section FILE: the NAME section of a page.
name_section() {
	text "$1" | awk '/^\.SH[ \t]+"?NAME"?[ \t]*$/ { f = 1; next }
			 /^\.S[Hh]/ { f = 0 }
			 f'
}

# ---- every exported symbol is documented ----
nsyms=0
syms=$(sed -e '/^[[:space:]]*#/d' -e 's/[[:space:]]//g' -e '/^$/d' "$exports")
set -f
for sym in $syms; do
	set +f
	nsyms=$((nsyms + 1))
	case $sym in
	__*)
		base=$(echo "$sym" | sed 's/^_*//')
		if test -f "$man/$base.3"; then
			resolve "$man/$base.3" || continue
			text "$page" | grep -qw -e "$sym" ||
				fail "$sym: not mentioned in $page, the page of $base"
		else
			found=
			for p in "$man"/*.3; do
				test -f "$p" || continue
				is_link "$p" && continue
				if text "$p" | grep -qw -e "$sym"; then
					found=$p
					break
				fi
			done
			test -n "$found" || fail "$sym: not mentioned in any page of section 3"
		fi
		;;
	*)
		if ! test -f "$man/$sym.3"; then
			fail "$sym: no man/$sym.3"
			continue
		fi
		resolve "$man/$sym.3" || continue
		name_section "$page" | grep -qw -e "$sym" ||
			fail "$sym: man/$sym.3 leads to $page, whose NAME section does not name it"
		;;
	esac
done
set +f

# ---- every page is clean under mandoc -Tlint -W warning ----
# Pages first; then the link pages, linted through their .so unless the
# page they lead to was reported already.
npages=0
nlinks=0
dirty=' '
for f in "$man"/*.[1-9]; do
	test -f "$f" || continue
	npages=$((npages + 1))
	is_link "$f" && continue
	out=$(mandoc -Tlint -W warning "$f" 2>&1)
	test $? -eq 0 || test -n "$out" || out="mandoc failed on $f"
	if test -n "$out"; then
		fail "$f: mandoc -Tlint -W warning reports:"
		echo "$out" | sed 's/^/    /'
		dirty="$dirty$f "
	fi
done
for f in "$man"/*.[1-9]; do
	test -f "$f" || continue
	is_link "$f" || continue
	nlinks=$((nlinks + 1))
	resolve "$f" || continue
	case $dirty in *" $page "*) continue ;; esac
	out=$(cd "$tmp" && mandoc -Tlint -W warning "man3/${f##*/}" 2>&1 |
	      grep -v 'WARNING: \.so is fragile, better use ln(1)')
	if test -n "$out"; then
		fail "$f: mandoc -Tlint -W warning (through its .so) reports:"
		echo "$out" | sed 's/^/    /'
	fi
done
test "$npages" -gt 0 || fail "no manual pages in $man"

# ---- man/local.am lists exactly the pages ----
if ! test -f "$man/local.am"; then
	fail "no man/local.am"
elif ! grep -q '^FTHR_MAN_PAGES[[:space:]]*=' "$man/local.am"; then
	fail "man/local.am does not define FTHR_MAN_PAGES"
else
	sed -n 's|^[[:space:]]*\(FTHR_MAN_PAGES[[:space:]]*=\)\{0,1\}[[:space:]]*man/\([^[:space:]\\]*\).*|\2|p' \
		"$man/local.am" | LC_ALL=C sort >"$tmp/listed"
	(cd "$man" && for f in *.[1-9]; do test -f "$f" && echo "$f"; done) |
		LC_ALL=C sort >"$tmp/present"
	for f in $(LC_ALL=C comm -13 "$tmp/listed" "$tmp/present"); do
		fail "man/$f is not listed in man/local.am"
	done
	for f in $(LC_ALL=C comm -23 "$tmp/listed" "$tmp/present"); do
		fail "man/local.am lists man/$f, which does not exist"
	done
fi

echo "manpages: $nsyms symbols from $exports, $npages pages ($nlinks links), $failures failures"
if test "$failures" -ne 0; then
	exit 1
fi
exit 0
