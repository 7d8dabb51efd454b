# bench/ir-by-object.awk: the self cost (Ir) of a callgrind.out file summed
# by object, one "object cost" line each; bench/run.sh uses it to count the
# instructions spent inside the thread library apart from the benchmark loop.
# fthr's Valgrind function wrappers (lib/diag_valgrind.c), loaded only
# under Helgrind and DRD, are summed apart, as the object
# "valgrind-wrappers".
function compressed(s, tab) { # "(n) name" defines n; "(n)" refers to it
	if (match(s, /^\([0-9]+\) /)) {
		tab[substr(s, 1, RLENGTH - 1)] = substr(s, RLENGTH + 1)
		return substr(s, RLENGTH + 1)
	}
	return (s in tab) ? tab[s] : s
}
/^ob=/ { ob = compressed(substr($0, 4), obs); next }
/^cob=/ { compressed(substr($0, 5), obs); next }
/^f[lie]=/ { fl = compressed(substr($0, 4), files); next }
/^cf[il]=/ { compressed(substr($0, 5), files); next }
/^calls=/ { skip = 1; next }
/^[0-9+*-]/ {
	if (skip) { skip = 0; next }
	cost[fl ~ /diag_valgrind\.c$/ ? "valgrind-wrappers" : ob] += $NF
}
END { for (o in cost) print o, cost[o] }
