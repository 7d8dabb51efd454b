# bench/ir-by-object.awk: the self cost (Ir) of a callgrind.out file summed
# by object, one "object cost" line each; bench/run.sh uses it to count the
# instructions spent inside the thread library apart from the benchmark loop.
function obname(s) {
	if (match(s, /^\([0-9]+\) /)) {
		name[substr(s, 1, RLENGTH - 1)] = substr(s, RLENGTH + 1)
		return substr(s, RLENGTH + 1)
	}
	return (s in name) ? name[s] : s
}
/^ob=/ { ob = obname(substr($0, 4)); next }
/^cob=/ { obname(substr($0, 5)); next }
/^calls=/ { skip = 1; next }
/^[0-9+*-]/ { if (skip) { skip = 0; next } cost[ob] += $NF }
END { for (o in cost) print o, cost[o] }
