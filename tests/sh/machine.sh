# The machine is the machine: hwloc variables never replace it in a run's
# rows; policy names of any length are recorded whole and found by --resume.
set -o pipefail
. "$(dirname "$0")/tap.bash"

# Rows of a plain run, then of runs under variables that would load another
# machine: the same topology, cores and pus, and one line saying so.
threadrun -q -o "$tmp/plain.csv" 1 t2accel -q -a md5 -s 16 -d 0.01 >/dev/null 2>&1
check "a plain run writes rows" test -s "$tmp/plain.csv"
want=$(results_get "$tmp/plain.csv" topology cores pus | sort -u)
lstopo-no-graphics -i 'package:2 core:4 pu:2' --of xml - >"$tmp/other.xml" 2>/dev/null
for var in "HWLOC_SYNTHETIC=package:2 core:4 pu:2" "HWLOC_XMLFILE=$tmp/other.xml" \
	   "HWLOC_FSROOT=/nonexistent" "HWLOC_THISSYSTEM=0"; do
	name=${var%%=*}
	f=$tmp/$name.csv
	env "$var" threadrun -q -o "$f" 1 t2accel -q -a md5 -s 16 -d 0.01 >/dev/null 2>"$tmp/err"
	st=$?
	check "$name: the run exits 0 (got $st)" [ $st -eq 0 ]
	got=$(results_get "$f" topology cores pus | sort -u)
	check "$name: rows record this machine ($got)" [ "$got" = "$want" ]
	check "$name: one line says it was ignored" \
		[ "$(grep -c "ignoring $name from the environment" "$tmp/err")" -eq 1 ]
	# t2accel on its own reads the machine itself: the same rule.
	env "$var" t2accel -q -a md5 -s 16 -d 0.01 -o "$tmp/direct-$name.csv" >/dev/null 2>"$tmp/err"
	got=$(results_get "$tmp/direct-$name.csv" topology cores pus | sort -u)
	check "$name: t2accel alone records this machine too" [ "$got" = "$want" ]
	check "$name: t2accel says it ignored it" grep -q "ignoring $name: a run measures this machine" "$tmp/err"
done

# list: policies longer than any fixed buffer (80 and 400 entries, PUs
# repeated so that the run fits any machine): recorded whole, and --resume
# recognises the combination.
pu=$(threadrun -n 1 2>/dev/null | awk '$1 == "0" { print $2 }')
check "the first usable PU is known ($pu)" [ -n "$pu" ]
for count in 80 400; do
	list="list:$(yes "$pu" | head -n "$count" | paste -sd, -)"
	f=$tmp/list$count.csv
	threadrun -q --sweep 1 -p "$list" -o "$f" -- true 2>"$tmp/err"
	st=$?
	check "list of $count: the sweep exits 0 (got $st)" [ $st -eq 0 ]
	check "list of $count: the row holds the whole name (${#list} characters)" \
		[ "$(results_get "$f" policy)" = "$list" ]
	threadrun --sweep 1 -p "$list" --resume -o "$f" -- true 2>"$tmp/err"
	check "list of $count: --resume skips it" grep -q '0 runs, 0 failed, 1 skipped' "$tmp/err"
done
