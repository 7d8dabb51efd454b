#!/bin/bash
# fthr's real-program benchmarks: unmodified programs (sysbench, OpenJDK,
# Ruby, LMDB, Node, the multithreaded compressors) run on plain glibc and
# with fthr preloaded, alternating (glibc first in odd pairs, fthr first in
# even ones), PAIRS pairs per case. Each case is a line of a family script,
# bench/real/cases/FAMILY.sh (the interface: bench/real/README.md); it does
# a fixed amount of work, checks its own result (exact counts, bit-exact
# output) and prints its figure. This script measures the CPU seconds of the
# whole process tree of every run, and checks with a witness preloaded into
# every process (bench/real/mapped.c) that the fthr runs ran on fthr and the
# glibc runs on glibc.
#
# Usage: bench/real/run.sh [OUTDIR]
# Env:   FTHR_LIB (libfthr.so.0, required), BENCH_REAL_QUICK=1 (the quick
#        subset, shorter work: scripts/run demo), PAIRS (default 5),
#        BENCH_REAL_AA=1 (an A/A control: each pair also runs glibc a
#        second time, and the table gains the glibc/glibc ratios, the
#        case's null distribution: a fthr ratio inside it is noise),
#        BENCH_REAL_FAMILIES (default: every family), BENCH_REAL_CASES
#        ("family:id ..." to run just those), BENCH_REAL_CASEDIR (the
#        families' directory; default bench/real/cases),
#        BENCH_REAL_LIMIT (the cpus every run may use, glibc's and fthr's
#        alike: none, the default; pin1, its affinity set to one cpu;
#        quota1 and quota05, a cgroup CPU quota of one cpu and of half a
#        cpu, as a container's (cgroup v1's cpu controller, or v2's
#        cpu.max; root); corunner, a busy loop per cpu in another
#        process for the whole run; exit 77 when the limit cannot be set),
#        BENCH_REAL_BASE (another libfthr.so.0: the glibc column runs with
#        it preloaded, a before/after comparison of two fthr builds)
# Output: a Markdown table on stdout, OUTDIR/real.csv, OUTDIR/real.png
#        (gnuplot), progress on stderr;
#        exit 1 if a case failed its check or its witness.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cases=${BENCH_REAL_CASEDIR:-$here/cases}
out=${1:-bench/results}
lib=${FTHR_LIB:?FTHR_LIB must name libfthr.so.0}
quick=${BENCH_REAL_QUICK:-0}
base=${BENCH_REAL_BASE:-}
pairs=${PAIRS:-5}
aa=${BENCH_REAL_AA:-0}
mkdir -p "$out"
out=$(cd "$out" && pwd)
csv=$out/real.csv
build=${BENCH_REAL_BUILD:-$out/real-build}
mkdir -p "$build"
export BENCH_REAL_QUICK=$quick
failed=0

# ---- the cpus the runs may use (BENCH_REAL_LIMIT) ----
limit=${BENCH_REAL_LIMIT:-none}
cg= hogs=
limit_end() {
	[ -z "$hogs" ] || kill $hogs 2>/dev/null
	if [ -n "$cg" ]; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.2; done
	fi
}
trap limit_end EXIT
case $limit in
none) ;;
pin1)
	command -v taskset >/dev/null || { echo "pin1 needs taskset (util-linux)" >&2; exit 77; }
	pin_cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status) ;;
quota1 | quota05)
	quota=100000; [ "$limit" = quota05 ] && quota=50000
	if [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
		cg=/sys/fs/cgroup/cpu/fthr-bench-$$
		mkdir "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" && echo $quota >"$cg/cpu.cfs_quota_us"
	elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		cg=/sys/fs/cgroup/fthr-bench-$$
		mkdir "$cg" && echo "$quota 100000" >"$cg/cpu.max"
	else
		false
	fi || { echo "$limit needs a writable cgroup cpu controller (root)" >&2; exit 77; } ;;
corunner)
	for _ in $(seq "$(nproc)"); do
		bash -c 'while :; do :; done' &
		hogs="$hogs $!"
	done ;;
*) echo "BENCH_REAL_LIMIT: none, pin1, quota1, quota05 or corunner" >&2; exit 2 ;;
esac
# in the subshell of one run, before the case starts
limit_enter() {
	case $limit in
	pin1) taskset -pc "$pin_cpu" $BASHPID >/dev/null ;;
	quota1 | quota05) echo $BASHPID >"$cg/cgroup.procs" ;;
	esac
}

cc -O2 -shared -fPIC -o "$build/mapped.so" "$here/mapped.c" -ldl ||
	{ echo "cannot build the witness" >&2; exit 1; }
witness=$build/mapped.so

. "$here/../median.sh"
# the last line of bash's `times` (the waited children): "1m2.5s 0m0.1s" -> 62.6
cpu_of() { tail -1 | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); s += a[1] * 60 + a[2] } print s }'; }

# one FAMILY ID fthr|glibc: prints "value unit cpu" or fails
one() {
	local fam=$1 id=$2 how=$3 maps line cpu pre rc=0
	maps=$(mktemp)
	if [ "$how" = fthr ]; then pre="$lib $witness"; else pre="${base:+$base }$witness"; fi
	line=$(
		export FTHR_PRELOAD=$pre FTHR_PLAIN_PRELOAD=$witness FTHR_REAL_MAPS=$maps BUILD=$build/$fam
		limit_enter
		"$cases/$fam.sh" run "$id" 2>"$maps.err" | grep '^RESULT' | tail -1
		echo "RC ${PIPESTATUS[0]}"
		times # in this subshell, which waited for the run
	) || rc=1
	cpu=$(echo "$line" | cpu_of)
	rc=$(echo "$line" | awk '/^RC/ { print $2 }')
	line=$(echo "$line" | grep '^RESULT')
	local fail=
	[ "$rc" = 0 ] || fail="exit status $rc"
	[ -n "$line" ] || fail="${fail:-no RESULT line}"
	# the witness: every process on the expected library, at least one seen
	if [ -z "$fail" ]; then
		if ! [ -s "$maps" ]; then fail="the witness saw no process"
		elif [ "$how" = fthr ] && ! grep -q 'fthr=1' "$maps"; then fail="no process ran on fthr"
		elif [ "$how" = glibc ] && [ -z "$base" ] && grep -q 'fthr=1' "$maps"; then fail="a glibc run ran on fthr"
		elif [ "$how" = glibc ] && [ -n "$base" ] && ! grep -q 'fthr=1' "$maps"; then fail="no baseline process ran on fthr"
		fi
	fi
	if [ -n "$fail" ]; then
		echo "FAIL $fam $id ($how): $fail" >&2
		tail -5 "$maps.err" >&2
		rm -f "$maps" "$maps.err"
		return 1
	fi
	rm -f "$maps" "$maps.err"
	echo "$line" | awk -v c="$cpu" '{ print $2, $3, c }'
}

echo "# fthr vs glibc: real programs, $(date -u +%Y-%m-%d), $(uname -m), $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), glibc $(ldd --version | head -1 | awk '{ print $NF }')"
echo
[ -z "$base" ] || echo "The glibc column runs $base preloaded: a comparison of two fthr builds."
[ "$limit" = none ] || echo "CPUs limited: $(case $limit in pin1) echo "every run pinned to one cpu" ;; quota1) echo "every run in a cgroup with a CPU quota of one cpu" ;; quota05) echo "every run in a cgroup with a CPU quota of half a cpu" ;; corunner) echo "a busy loop per cpu in another process" ;; esac) (BENCH_REAL_LIMIT=$limit)."
echo
echo "Medians of $pairs alternating glibc/fthr pairs$([ "$quick" = 1 ] && echo ', quick subset'). 'fthr vs glibc' is the median of the per-pair ratios, > 1 means fthr is better; spread is their min–max; CPU s is user+sys of the whole process tree; 'per CPU s' is the median per-pair ratio of work done per CPU second (every case does a fixed amount of work: glibc's CPU seconds over fthr's); 'glibc max/min' is the case's own noise, its glibc runs' largest figure over their smallest."
echo
if [ "$aa" = 1 ]; then
	echo
	echo "A/A control: every pair also ran glibc a second time; 'glibc vs glibc' is the median (min–max) of those runs' ratios to the pair's first glibc run, the case's null distribution."
	echo
	echo "| program: case | glibc | fthr | fthr vs glibc | spread | CPU s glibc / fthr | per CPU s | glibc max/min | glibc vs glibc |"
	echo "|---|---|---|---|---|---|---|---|---|"
else
	echo "| program: case | glibc | fthr | fthr vs glibc | spread | CPU s glibc / fthr | per CPU s | glibc max/min |"
	echo "|---|---|---|---|---|---|---|---|"
fi
echo "family,case,label,unit,better,glibc,fthr,ratio_median,ratio_min,ratio_max,cpu_glibc,cpu_fthr,cpu_ratio,glibc_maxmin,aa_median,aa_min,aa_max" >"$csv"

families=${BENCH_REAL_FAMILIES:-$(cd "$cases" && ls *.sh | sed 's/\.sh$//')}
for fam in $families; do
	script=$cases/$fam.sh
	mkdir -p "$build/$fam"
	BUILD=$build/$fam "$script" setup >"$build/$fam.setup.log" 2>&1
	case $? in
	0) ;;
	77) echo "  $fam: skipped (setup: $(tail -1 "$build/$fam.setup.log"))" >&2; continue ;;
	*) echo "  $fam: setup FAILED" >&2; tail -20 "$build/$fam.setup.log" >&2; failed=1; continue ;;
	esac
	while IFS=$'\t' read -r id label better q; do
		[ -n "$id" ] || continue
		[ "$quick" = 1 ] && [ "$q" != 1 ] && continue
		if [ -n "${BENCH_REAL_CASES:-}" ]; then
			case " $BENCH_REAL_CASES " in *" $fam:$id "*) ;; *) continue ;; esac
		fi
		printf '  %-50s' "$fam: $label" >&2
		gv=() fv=() gc=() fc=() ratios=() cr=() aar=() ok=1
		for ((i = 0; i < pairs; i++)); do
			if ((i % 2 == 0)); then
				g=$(one "$fam" "$id" glibc) && f=$(one "$fam" "$id" fthr) || ok=0
			else
				f=$(one "$fam" "$id" fthr) && g=$(one "$fam" "$id" glibc) || ok=0
			fi
			if [ $ok = 1 ] && [ "$aa" = 1 ]; then
				a=$(one "$fam" "$id" glibc) || ok=0
			fi
			[ $ok = 1 ] || break
			read -r gval unit gcpu <<<"$g"
			read -r fval _ fcpu <<<"$f"
			gv+=("$gval"); fv+=("$fval"); gc+=("$gcpu"); fc+=("$fcpu")
			ratios+=("$(awk -v g="$gval" -v f="$fval" -v b="$better" 'BEGIN { print (b == "hi") ? f / g : g / f }')")
			cr+=("$(awk -v g="$gcpu" -v f="$fcpu" 'BEGIN { print (f > 0) ? g / f : 1 }')")
			if [ "$aa" = 1 ]; then
				read -r aval _ _ <<<"$a"
				aar+=("$(awk -v g="$gval" -v f="$aval" -v b="$better" 'BEGIN { print (b == "hi") ? f / g : g / f }')")
			fi
			printf '.' >&2
		done
		if [ $ok = 0 ]; then failed=1; echo " FAILED" >&2
			echo "| $fam: $label | | | FAILED | | | | |$([ "$aa" = 1 ] && echo ' |')"; continue; fi
		gm=$(printf '%s\n' "${gv[@]}" | median); fm=$(printf '%s\n' "${fv[@]}" | median)
		rmed=$(printf '%s\n' "${ratios[@]}" | median)
		rmin=$(printf '%s\n' "${ratios[@]}" | sort -g | head -1); rmax=$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)
		gcm=$(printf '%s\n' "${gc[@]}" | median); fcm=$(printf '%s\n' "${fc[@]}" | median)
		crm=$(printf '%s\n' "${cr[@]}" | median)
		# the case's own noise: glibc's runs alone (a two-valued program,
		# such as the JVM's monitor spinning, shows here)
		gnoise=$(printf '%s\n' "${gv[@]}" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (lo > 0) ? hi / lo : 0 }')
		amed= amin= amax= acol=
		if [ "$aa" = 1 ]; then
			amed=$(printf '%s\n' "${aar[@]}" | median)
			amin=$(printf '%s\n' "${aar[@]}" | sort -g | head -1); amax=$(printf '%s\n' "${aar[@]}" | sort -g | tail -1)
			acol=$(printf ' %.2f (%.2f–%.2f) |' "$amed" "$amin" "$amax")
		fi
		printf ' %s x%.2f%s\n' "$unit" "$rmed" "${amed:+ (A/A x$(printf %.2f "$amed"))}" >&2
		printf '| %s: %s | %.4g %s | %.4g %s | **%.2f** | %.2f–%.2f | %.2f / %.2f | %.2f | %.2f |%s\n' \
			"$fam" "$label" "$gm" "$unit" "$fm" "$unit" "$rmed" "$rmin" "$rmax" "$gcm" "$fcm" "$crm" "$gnoise" "$acol"
		echo "$fam,$id,${label//,/;},$unit,$better,$gm,$fm,$rmed,$rmin,$rmax,$gcm,$fcm,$crm,$gnoise,$amed,$amin,$amax" >>"$csv"
	done < <(BUILD=$build/$fam "$script" list)
done

awk -F, 'NR > 1 { n++; s += log($8); if ($8 < 0.97) { low++; if ($16 != "" && $8 < $16) out++ } } END {
	if (n) printf "\nGeometric mean of the %d ratios: **%.2f**; below 0.97: %d%s.\n", n, exp(s / n), low,
		aa ? sprintf(", of which below their A/A control'"'"'s minimum: %d", out) : "" }' aa=$([ "$aa" = 1 ] && echo 1 || echo 0) "$csv"
if command -v gnuplot >/dev/null && [ "$(wc -l <"$csv")" -gt 1 ]; then
	awk -F, 'NR > 1 { print "\"" $1 ": " $2 "\"", $8, $13 }' "$csv" >"$out/real.dat"
	gnuplot <<EOF
set terminal png size 1000,560
set output "$out/real.png"
set title "Real programs: fthr vs glibc (median of the per-pair ratios; > 1: fthr better)"
set style data histograms; set style fill solid 0.6; set xtics rotate by -40 font ",8"
set ylabel "ratio"; set yrange [0:*]; set arrow from graph 0, first 1 to graph 1, first 1 nohead
plot "$out/real.dat" using 2:xtic(1) title "figure", "" using 3 title "work per CPU second"
EOF
	printf '\nPlot: %s/real.png\n' "$out"
fi
exit $failed
