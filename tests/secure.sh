#!/bin/sh
# Secure-execution mode and the profile file's rules (man/fthr.7,
# "Security"). As root, tests/secure_prog.c is built linked with a copy of
# fthr and plain, installed setuid root, setgid root and with a file
# capability, and run as user nobody with every FTHR_* variable set: fthr
# must read none of them (no profile file, no report, no abort), and the
# same binary without the bit must honour them all. The plain binary runs
# the same way with fthr preloaded through /etc/ld.so.preload, simulated
# in a private mount namespace (an overlay on /etc that only this test's
# processes see; the machine's own file is left alone). Then the rules for
# the file FTHR_PROFILE names: symbolic links, other users' files, hard
# links, FIFOs, over-long names.
# Env: FTHR_LIB, FTHR_SRCDIR, CC. Prints "N passed, N failed"; exit 77
# (skip) when not root or without setpriv.
set -u
lib=${FTHR_LIB:?}
src=${FTHR_SRCDIR:-.}/tests/secure_prog.c
CC=${CC:-cc}
pass=0 fail=0 skip=0

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (setuid programs run as another user)"
	exit 77
fi
if ! command -v setpriv >/dev/null || ! id -u nobody >/dev/null 2>&1; then
	echo "SKIP: needs setpriv (util-linux) and user nobody"
	exit 77
fi
uid=$(id -u nobody) gid=$(id -g nobody)
# Everything under a directory nobody can traverse (not under /root).
tmp=$(mktemp -d /tmp/fthr-secure.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/lib" "$tmp/out" "$tmp/up" "$tmp/work"
chmod 1777 "$tmp/out"
cp "$lib" "$tmp/lib/libfthr.so.0" && chmod 755 "$tmp/lib" "$tmp/lib/libfthr.so.0" || exit 99
$CC -o "$tmp/linked" "$src" -L"$tmp/lib" -l:libfthr.so.0 -Wl,-rpath,"$tmp/lib" -ldl &&
	$CC -o "$tmp/plain" "$src" -ldl || { echo "FAIL: cannot build $src"; exit 1; }

ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() {
	fail=$((fail + 1)); echo "FAIL: $*"
	sed 's/^/    out| /' "$tmp/o"; sed 's/^/    err| /' "$tmp/e"; ls -la "$tmp/out" | sed 's/^/    ls| /'
}
expect() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
has() { grep -q -- "$1" "$tmp/${2:-e}"; }
none_written() { [ -z "$(ls -A "$tmp/out")" ]; }

ALL="FTHR_PROFILE=$tmp/out/prof.%p FTHR_PROFILE_TOP=5 FTHR_PROFILE_SIGUSR2=1 FTHR_CHECK=abort FTHR_WAIT=nap_us=999999"
# nobody VAR=VALUE...: $tmp/run as nobody with those variables (only it:
# not the commands that start it), bounded; sets rc, $tmp/o, $tmp/e
nobody() {
	$ns timeout 20 setpriv --reuid="$uid" --regid="$gid" --clear-groups \
		env "$@" "$tmp/run" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
}

# privileged HOW BINARY: BINARY made privileged one way, run as nobody with
# every variable set: nothing of fthr's may show; then, stripped of the
# privilege, it honours them.
privileged() {
	how=$1 bin=$2 pre=${3:-}
	rm -rf "$tmp/out"/* "$tmp/run"
	cp "$bin" "$tmp/run"
	case $how in
	setuid) chown root:root "$tmp/run" && chmod 4755 "$tmp/run" ;;
	setgid) chown root:root "$tmp/run" && chmod 2755 "$tmp/run" ;;
	capability) setcap cap_net_bind_service=ep "$tmp/run" 2>/dev/null ||
		{ skip=$((skip + 1)); echo "skip: $pre$how: setcap failed here"; return; } ;;
	esac
	nobody $ALL
	if ! has "AT_SECURE 1" o; then
		skip=$((skip + 1)); echo "skip: $pre$how: the kernel did not mark it AT_SECURE here (nosuid?)"
		return
	fi
	expect "$pre$how, as nobody, every FTHR_* set (FTHR_CHECK=abort): fthr loaded, no abort, no report" \
		'[ $rc = 0 ] && has "fthr loaded" o && has done o && ! has fthr-'
	nobody $ALL FTHR_CHECK=1
	expect "$pre$how, FTHR_CHECK=1: no report, no profile file" \
		'[ $rc = 0 ] && has done o && ! has fthr- && none_written'
	# the same binary, the privilege taken away
	chmod u-s,g-s "$tmp/run"
	[ "$how" = capability ] && setcap -r "$tmp/run"
	nobody $ALL
	expect "$pre$how bit removed: FTHR_CHECK=abort aborts at the inversion" \
		'[ $rc = 134 ] && has "AT_SECURE 0" o && has "lock-order inversion"'
	nobody $ALL FTHR_CHECK=1
	expect "$pre$how bit removed: FTHR_CHECK=1 reports, FTHR_PROFILE writes nobody's file" \
		'[ $rc = 0 ] && has "lock-order inversion" && [ -n "$(find "$tmp/out" -name "prof.*" -user nobody)" ] && grep -q fthr-profile "$tmp"/out/prof.*'
}

ns=
privileged setuid "$tmp/linked"
privileged setgid "$tmp/linked"
if command -v setcap >/dev/null; then
	privileged capability "$tmp/linked"
else
	skip=$((skip + 1)); echo "skip: capability: no setcap (libcap2-bin)"
fi

# /etc/ld.so.preload, in a mount namespace of its own: an overlay on /etc
# whose upper layer holds the file.
before=$(ls -l /etc/ld.so.preload 2>&1; cat /etc/ld.so.preload 2>/dev/null)
cat >"$tmp/ns.sh" <<'EOF'
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$NS_UP,workdir=$NS_WORK" /etc || exit 97
echo "$NS_LIB" >/etc/ld.so.preload || exit 97
exec "$@"
EOF
ns="env NS_UP=$tmp/up NS_WORK=$tmp/work NS_LIB=$tmp/lib/libfthr.so.0 unshare -m --propagation private sh $tmp/ns.sh"
if $ns true 2>/dev/null; then
	privileged setuid "$tmp/plain" "ld.so.preload, "
else
	skip=$((skip + 1)); echo "skip: ld.so.preload: no mount namespace with an overlay on /etc here"
fi
ns=
after=$(ls -l /etc/ld.so.preload 2>&1; cat /etc/ld.so.preload 2>/dev/null)
expect "the machine's /etc/ld.so.preload untouched" '[ "$before" = "$after" ]'

# ---- the profile file's rules, in a process that reads the variables ----
# profile PATH: the plain binary as root, fthr preloaded, FTHR_PROFILE=PATH
profile() {
	(cd "$tmp/out" && timeout 20 env FTHR_PROFILE="$1" LD_PRELOAD="$tmp/lib/libfthr.so.0" \
		"$tmp/plain" >"$tmp/o" 2>"$tmp/e" </dev/null)
	rc=$?
}
rm -rf "$tmp/out"/*
echo secret >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/out/link"
profile "$tmp/out/link"
expect "a symbolic link is not followed: its target untouched, the report on stderr saying why" \
	'[ $rc = 0 ] && [ "$(cat "$tmp/victim")" = secret ] && has "a symbolic link, not followed" && has "fthr-profile: pid"'
echo theirs >"$tmp/out/theirs" && chown nobody "$tmp/out/theirs"
profile "$tmp/out/theirs"
expect "another user's file is left as it is" \
	'[ "$(cat "$tmp/out/theirs")" = theirs ] && has "a regular file of another user" && has "fthr-profile: pid"'
echo mine >"$tmp/out/mine" && ln "$tmp/out/mine" "$tmp/out/mine2"
profile "$tmp/out/mine2"
expect "a file with another hard link is left as it is" \
	'[ "$(cat "$tmp/out/mine")" = mine ] && has "another hard link"'
rm -f "$tmp/out/mine2"
head -c 20000 /dev/zero | tr '\0' x >"$tmp/out/mine"
profile "$tmp/out/mine"
expect "the user's own file is truncated and holds the report" \
	'[ $rc = 0 ] && head -1 "$tmp/out/mine" | grep -q "^fthr-profile: pid" && ! grep -q xxx "$tmp/out/mine" && ! has fthr-'
mkfifo "$tmp/out/fifo"
profile "$tmp/out/fifo"
expect "a FIFO with no reader is not waited for" '[ $rc = 0 ] && has "a FIFO with no reader"'
long=$(head -c 300 /dev/zero | tr '\0' a)
rm -rf "$tmp/out"/*
profile "$long"
expect "an over-long name: no file under a shortened name, the report on stderr" \
	'[ $rc = 0 ] && none_written && has "longer than 255 bytes" && has "fthr-profile: pid"'
profile "$tmp/out/p.%p"
expect "%p becomes the pid" '[ $rc = 0 ] && ls "$tmp/out" | grep -qE "^p\.[0-9]+$"'

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
