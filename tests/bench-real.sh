#!/bin/bash
# bench/real/run.sh, the real-program harness, on a family of its own made
# here (bench/fthr-bench as "the program"): a good run passes with a ratio
# and CPU seconds; a run whose "fthr" is not fthr, a case that fails its own
# check, one that prints no figure, and a glibc run that ran on fthr each
# fail the harness, by name; the A/A control (BENCH_REAL_AA=1) adds the
# glibc/glibc ratios to the row and the CSV.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
b=${FTHR_BUILDDIR:-$top}
lib=$b/lib/.libs/libfthr.so.0
bin=$b/bench/fthr-bench
[ -x "$bin" ] && [ -f "$lib" ] || { echo "no $bin or $lib: make first"; exit 77; }
command -v cc >/dev/null || { echo "no cc"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cases"
cat >"$tmp/cases/fake.sh" <<EOT
#!/bin/sh
case \$1 in
setup) ;;
list) printf 'good\tmutex lock+unlock\tlo\t1\nbad\ta failed check\tlo\t1\nmute\tno figure\tlo\t1\nalways\tfthr always\tlo\t1\ncpus\tcpus usable\thi\t1\nquota\tcgroup quota\thi\t1\n' ;;
run)
	case \$2 in
	good) LD_PRELOAD="\$FTHR_PRELOAD" "$bin" uncontended mutex_normal mt 200000 | awk '{ print \$1, \$2, \$3 }' ;;
	bad) LD_PRELOAD="\$FTHR_PRELOAD" "$bin" uncontended mutex_normal mt 1000 >/dev/null; echo "RESULT 1 s"; echo "count 3, not 4" >&2; exit 1 ;;
	mute) LD_PRELOAD="\$FTHR_PRELOAD" "$bin" uncontended mutex_normal mt 1000 >/dev/null ;;
	always) LD_PRELOAD="$lib \$FTHR_PLAIN_PRELOAD" "$bin" uncontended mutex_normal mt 1000 | awk '{ print \$1, \$2, \$3 }' ;;
	cpus) LD_PRELOAD="\$FTHR_PRELOAD" "$bin" uncontended mutex_normal mt 1000 >/dev/null; echo "RESULT \$(nproc) cpus" ;;
	quota) LD_PRELOAD="\$FTHR_PRELOAD" "$bin" uncontended mutex_normal mt 1000 >/dev/null
		d=\$(awk -F: '\$2 ~ /(^|,)cpu(,|\$)/ { print \$3 }' /proc/self/cgroup)
		echo "RESULT \$(cat /sys/fs/cgroup/cpu\$d/cpu.cfs_quota_us) us" ;;
	esac ;;
esac
EOT
chmod +x "$tmp/cases/fake.sh"
fail=0
check() { # what expected-status grep-pattern command...
	local what=$1 want=$2 pat=$3 rc; shift 3
	"$@" >"$tmp/out" 2>&1; rc=$?
	if [ $rc != "$want" ] || ! grep -qE "$pat" "$tmp/out"; then
		echo "FAIL: $what (exit $rc, want $want; no /$pat/ in:)"; sed 's/^/    /' "$tmp/out"; fail=1
	else
		echo "ok: $what"
	fi
}
run() { # FTHR_LIB cases...
	FTHR_LIB=$1 BENCH_REAL_CASEDIR=$tmp/cases BENCH_REAL_CASES="$2" PAIRS=3 \
		BENCH_REAL_BUILD=$tmp/build bash "$top/bench/real/run.sh" "$tmp/res"
}
run_aa() { BENCH_REAL_AA=1 run "$@"; }
run_limit() { # LIMIT FTHR_LIB cases
	local rc
	export BENCH_REAL_LIMIT=$1; shift
	run "$@"; rc=$?
	unset BENCH_REAL_LIMIT
	return $rc
}
check "a good case: a row with its ratio and CPU seconds" 0 \
	'^\| fake: mutex lock\+unlock \| [0-9.e+]+ ns/op \| [0-9.e+]+ ns/op \| \*\*[0-9.]+\*\* \| [0-9.]+–[0-9.]+ \| [0-9.]+ / [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' \
	run "$lib" "fake:good"
grep -q '^fake,good,' "$tmp/res/real.csv" || { echo "FAIL: no CSV row"; fail=1; }
check "the A/A control: the row gains the glibc/glibc ratios" 0 \
	'^\| fake: mutex lock\+unlock \|.* \| [0-9.]+ \| [0-9.]+ \([0-9.]+–[0-9.]+\) \|$' \
	run_aa "$lib" "fake:good"
awk -F, '$1 == "fake" && $15 > 0 && $16 > 0 && $17 >= $16 { ok = 1 } END { exit !ok }' "$tmp/res/real.csv" ||
	{ echo "FAIL: no A/A figures in the CSV row"; fail=1; }
# a library that is not fthr, named like it: the witness sees glibc's calls
mkdir -p "$tmp/notfthr"
cc -shared -fPIC -o "$tmp/notfthr/libfthr.so.0" -x c /dev/null
check "a preload that is not fthr fails the witness" 1 'no process ran on fthr' run "$tmp/notfthr/libfthr.so.0" "fake:good"
check "a case that fails its own check fails the run" 1 'FAIL fake bad .*exit status 1' run "$lib" "fake:bad"
check "a case without a figure fails the run" 1 'FAIL fake mute .*no RESULT line' run "$lib" "fake:mute"
check "a glibc run on fthr fails the witness" 1 'a glibc run ran on fthr' run "$lib" "fake:always"
# BENCH_REAL_BASE: the baseline column runs that build, and must
check "BENCH_REAL_BASE: two fthr builds compared, named in the report" 0 'comparison of two fthr builds' \
	env BENCH_REAL_BASE="$lib" FTHR_LIB="$lib" BENCH_REAL_CASEDIR="$tmp/cases" BENCH_REAL_CASES=fake:good \
	PAIRS=3 BENCH_REAL_BUILD="$tmp/build" bash "$top/bench/real/run.sh" "$tmp/res"
check "BENCH_REAL_BASE that is not fthr fails the witness" 1 'no baseline process ran on fthr' \
	env BENCH_REAL_BASE="$tmp/notfthr/libfthr.so.0" FTHR_LIB="$lib" BENCH_REAL_CASEDIR="$tmp/cases" \
	BENCH_REAL_CASES=fake:good PAIRS=3 BENCH_REAL_BUILD="$tmp/build" bash "$top/bench/real/run.sh" "$tmp/res"
# BENCH_REAL_LIMIT: every run of both sides under the limit, and nothing
# of it left behind
check "pin1: every run sees one cpu" 0 '^\| fake: cpus usable \| 1 cpus \| 1 cpus \|' \
	run_limit pin1 "$lib" fake:cpus
grep -q "pinned to one cpu" "$tmp/out" || { echo "FAIL: pin1 not named in the report"; fail=1; }
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
	check "quota05: every run in a cgroup of half a cpu" 0 '^\| fake: cgroup quota \| 5e\+04 us \| 5e\+04 us \|' \
		run_limit quota05 "$lib" fake:quota
	ls -d /sys/fs/cgroup/cpu/fthr-bench-* 2>/dev/null && { echo "FAIL: a cgroup left behind"; fail=1; }
else
	echo "skip: quota05 (not root, or no writable cgroup v1 cpu controller)"
fi
hogs_before=$(pgrep -fc 'while :; do :; done' || true)
check "corunner: runs, named in the report" 0 'busy loop per cpu' \
	run_limit corunner "$lib" fake:good
[ "$(pgrep -fc 'while :; do :; done' || true)" = "$hogs_before" ] || { echo "FAIL: the busy loops outlived the run"; fail=1; }
check "an unknown limit is refused" 2 'pin1, quota1, quota05 or corunner' \
	run_limit pin2 "$lib" fake:good
exit $fail
