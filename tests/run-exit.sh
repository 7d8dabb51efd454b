#!/bin/sh
# scripts/run check exits non-zero when any of its steps failed, and 0 when
# none did (issue 14: its helpers once overwrote the rc that remembered a
# failed 'make check', and it exited 0). The script runs in a scratch tree
# with fakes on PATH for make, autoreconf, git and dpkg-query and a fake
# scripts/aarch64-check, scripts/cross-check and scripts/glibc-tests: every step and its bookkeeping run, nothing is
# built or tested (a second or two). FAKE_FAIL names the steps that fail,
# as DIR:TARGET (DIR: tree, or fthr-variant-NAME for a build variant).
# RUN_SCRIPT=path tests another copy of scripts/run (e.g. an old one).
set -u
src=${FTHR_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
script=${RUN_SCRIPT:-$src/scripts/run}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fthr-run-exit.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/tree/scripts" "$tmp/var"

cat >"$tmp/bin/make" <<'EOF'
#!/bin/sh
# fake make: logs "DIR: ARGS", fails the targets FAKE_FAIL names (a failed
# check leaves a test-suite.log, unless FAKE_NO_SUITE_LOG is set)
where=$(basename "$PWD")
echo "$where: $*" >>"$FAKE_LOG"
targets=
for a; do
	case $a in -*|*=*) ;; *) targets="$targets $a" ;; esac
done
for t in ${targets:-all}; do
	case " ${FAKE_FAIL:-} " in *" $where:$t "*)
		echo "FAIL: fake $t"
		[ "$t" != check ] || [ -n "${FAKE_NO_SUITE_LOG:-}" ] || echo "FAIL: tests/fake" >test-suite.log
		exit 2 ;;
	esac
done
exit 0
EOF
printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/autoreconf"
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/git"
printf '#!/bin/sh\necho "install ok installed"\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/sh\nexit 0\n' >"$tmp/tree/configure"
cat >"$tmp/tree/scripts/aarch64-check" <<'EOF'
#!/bin/sh
echo "tree: aarch64-check" >>"$FAKE_LOG"
exit "${FAKE_AARCH64_RC:-0}"
EOF
# the rotating arch's check: --list as the real one's, one arch dir here
cat >"$tmp/tree/scripts/cross-check" <<'EOF'
#!/bin/sh
[ "$1" = --list ] && { echo "aarch64 s390x"; exit 0; }
echo "tree: cross-check $1" >>"$FAKE_LOG"
exit "${FAKE_CROSS_RC:-0}"
EOF
cat >"$tmp/tree/scripts/glibc-tests" <<'EOF'
#!/bin/sh
echo "tree: glibc-tests $*" >>"$FAKE_LOG"
exit "${FAKE_GLIBC_TESTS_RC:-0}"
EOF
mkdir -p "$tmp/tree/arch/s390x" && : >"$tmp/tree/arch/s390x/arch.h"
: >"$tmp/tree/Makefile"
cp "$script" "$tmp/tree/scripts/run"
chmod +x "$tmp/bin/"* "$tmp/tree/configure" "$tmp/tree/scripts/"*

failed=0
# case_ NAME 0|nonzero [VAR=value...]: scripts/run check with the fakes and
# the given environment must exit so; $ran: what the fakes saw, ';'-separated
case_() {
	name=$1; want=$2; shift 2
	: >"$tmp/make.log"; rm -f "$tmp/tree/test-suite.log"
	env PATH="$tmp/bin:$PATH" TMPDIR="$tmp/var" FAKE_LOG="$tmp/make.log" \
		FTHR_SKIP= FTHR_SKIP_DISTCHECK= FTHR_VARIANTS= "$@" \
		"$tmp/tree/scripts/run" check >"$tmp/out" 2>&1
	st=$?
	ran=$(tr '\n' ';' <"$tmp/make.log")
	case $want:$st in
	0:0 | nonzero:[1-9]*) echo "ok: $name (exit $st)" ;;
	*) echo "FAIL: $name: exit $st, wanted $want; make saw: $ran"
	   sed 's/^/	/' "$tmp/out" | tail -30; failed=$((failed + 1)) ;;
	esac
}
# every step ran, even after a failure
all_ran() {
	for s in 'tree: -s -j[0-9]* check;' 'tree: -s check-loaded;' 'tree: -s -j[0-9]* distcheck' \
		'tree: -s verify;' 'tree: aarch64-check;' 'tree: glibc-tests --subset ci' 'tree: cross-check s390x;' 'fthr-variant-invariants: -s -j[0-9]* check' \
		'fthr-variant-asan-ubsan: -s -j[0-9]* check' 'fthr-variant-tsan: -s -j[0-9]* check'; do
		echo "$ran" | grep -q -e "$s" ||
			{ echo "FAIL: $1: step '$s' did not run; make saw: $ran"; failed=$((failed + 1)); }
	done
}

case_ "nothing fails" 0; all_ran "nothing fails"
case_ "make check fails" nonzero FAKE_FAIL="tree:check"; all_ran "make check fails"
case_ "make check fails before a test ran" nonzero FAKE_FAIL="tree:check" FAKE_NO_SUITE_LOG=1
all_ran "make check fails before a test ran"
case_ "check-loaded fails" nonzero FAKE_FAIL="tree:check-loaded"
grep -q 'FAIL' "$tmp/tree/ci-results/tests/check-loaded.trs" 2>/dev/null ||
	{ echo "FAIL: check-loaded fails: ci-results/tests/check-loaded.trs does not say FAIL"; failed=$((failed + 1)); }
case_ "distcheck fails" nonzero FAKE_FAIL="tree:distcheck"
grep -q 'FAIL' "$tmp/tree/ci-results/tests/distcheck.trs" 2>/dev/null ||
	{ echo "FAIL: distcheck fails: ci-results/tests/distcheck.trs does not say FAIL"; failed=$((failed + 1)); }
case_ "verify fails" nonzero FAKE_FAIL="tree:verify"
case_ "aarch64-check fails" nonzero FAKE_AARCH64_RC=1
case_ "the rotating arch's check fails" nonzero FAKE_CROSS_RC=1
case_ "glibc-tests fails" nonzero FAKE_GLIBC_TESTS_RC=1; all_ran "glibc-tests fails"
grep -q 'FAIL' "$tmp/tree/ci-results/tests/glibc-tests.trs" 2>/dev/null ||
	{ echo "FAIL: glibc-tests fails: ci-results/tests/glibc-tests.trs does not say FAIL"; failed=$((failed + 1)); }
case_ "glibc-tests skips (no glibc source)" 0 FAKE_GLIBC_TESTS_RC=77
case_ "the first variant fails" nonzero FAKE_FAIL="fthr-variant-invariants:check"
case_ "the last variant fails" nonzero FAKE_FAIL="fthr-variant-tsan:check"
case_ "a skipped step cannot fail" 0 FTHR_SKIP="glibc-tests check-loaded distcheck verify aarch64 arches variants" \
	FAKE_FAIL="tree:check-loaded tree:distcheck tree:verify fthr-variant-invariants:check" FAKE_AARCH64_RC=1 \
	FAKE_CROSS_RC=1 FAKE_GLIBC_TESTS_RC=1
case $ran in *glibc-tests* | *check-loaded* | *distcheck* | *verify* | *aarch64* | *cross-check* | *variant*)
	echo "FAIL: FTHR_SKIP: skipped steps ran: $ran"; failed=$((failed + 1)) ;; esac

[ $failed = 0 ] && echo "scripts/run check: every exit status as expected"
[ $failed = 0 ]
