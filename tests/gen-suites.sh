#!/bin/sh
# tests/gen-suites.sh: writes, on its output, tests/suites.am, the automake
# variables of every Check suite, from tests/suites.list (its head says
# what a line holds). Usage: sh tests/gen-suites.sh [LIST] >tests/suites.am
# The output depends on the list alone, so tests/suites-current.sh can
# compare it with the committed file.
set -eu
list=${1:-$(dirname "$0")/suites.list}
if ! test -r "$list"; then
	echo "gen-suites.sh: cannot read $list" >&2
	exit 1
fi

# The list's lines without comments and blank lines.
entries()
{
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list"
}

# Items given one a line, as the lines of a variable's continued value.
continued()
{
	sed -e 's/^/	/' -e '$!s/$/ \\/'
}

echo "# tests/suites.am: written by tests/gen-suites.sh from tests/suites.list;"
echo "# edit the list, then: sh tests/gen-suites.sh >tests/suites.am"
entries | while read -r name how extra; do
	p=tests_t_$name
	echo
	echo "${p}_SOURCES = tests/t_$name.c${extra:+ $extra} \$(HARNESS)"
	case $how in
	both)
		echo "${p}_LDADD = \$(LINKED)"
		echo "${p}_plain_SOURCES = \$(${p}_SOURCES)"
		;;
	inside)
		echo "${p}_CPPFLAGS = \$(AM_CPPFLAGS) \$(LIB_CPPFLAGS)"
		echo "${p}_LDADD = \$(LINKED)"
		;;
	*)
		echo "gen-suites.sh: $list: suite $name: 'both' or 'inside', not '$how'" >&2
		exit 1
		;;
	esac
done

echo
echo "if HAVE_CHECK"
echo "check_PROGRAMS += \\"
entries | while read -r name how extra; do
	case $how in
	both) echo "tests/t_$name tests/t_${name}_plain" ;;
	*) echo "tests/t_$name" ;;
	esac
done | continued
echo "endif"

echo
echo "PRELOAD_TESTS = \\"
entries | while read -r name how extra; do
	test "$how" != both || echo "tests/t_${name}_pre.preload"
done | continued

echo
echo "# The Check suites, linked and preloaded."
echo "SUITE_TESTS = \\"
{
	entries | while read -r name how extra; do
		echo "tests/t_$name"
	done
	echo '$(PRELOAD_TESTS)'
} | continued
