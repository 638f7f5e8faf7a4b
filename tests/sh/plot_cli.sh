# The plot scripts' command line: --help prints the header's help and no
# line of code, -o DIR is made when missing (one line and exit 2 when it
# cannot be), and a missing gnuplot exits 3, the code the help lists.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
mon=$tmp/in/m.monitor.csv
mkdir -p "$tmp/in" "$tmp/nogp"
{
	echo "t_s,kind,id,name,cpu,planned,usr_pct,sys_pct,irq_pct,idle_pct,steal_pct,intr,utime_s,stime_s,vcsw,ivcsw"
	echo "# run 1 threads, repeat 0"
	for t in 0.25 0.50; do
		echo "$t,cpu,0,,0,-1,50.0,1.0,0.0,40.0,0.0,10,,,,"
		echo "$t,thread,100,w,0,0,,,,,,,0.10,0.00,1,0"
	done
} >"$mon"
touch "$tmp/file"
# A PATH with what the scripts run before they look for gnuplot, and no gnuplot.
for c in dirname head grep awk sed mkdir; do ln -s "$(command -v $c)" "$tmp/nogp/$c"; done
have_gp=$(command -v gnuplot)

for s in threadplot monitorplot; do
	case $s in threadplot) in=tests/data/handmade.csv want=speedup.svg ;; monitorplot) in=$mon want=monitor.svg ;; esac
	plot/$s --help >"$tmp/help" 2>"$tmp/err"
	st=$?
	check "$s --help exits 0 with nothing on stderr (exit $st)" bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ $st "$tmp/err"
	check "$s --help holds no line of code: $(grep -E '=|pipefail|^set ' "$tmp/help" | head -n 1)" \
		bash -c '! grep -Eq "^set |pipefail|^[a-z_]+=\"" "$1"' _ "$tmp/help"
	check "$s --help starts with its name and ends with the exit status" \
		bash -c 'head -n 1 "$1" | grep -q "^$2: " && grep -q "^Exit status: 0 " "$1" && tail -n 1 "$1" | grep -q "3 gnuplot missing"' _ "$tmp/help" $s

	if [ -n "$have_gp" ]; then
		out=$tmp/$s/new/deep
		plot/$s "$in" -o "$out" >/dev/null 2>"$tmp/err"
		st=$?
		check "$s -o makes a missing DIR and draws there (exit $st)" \
			bash -c '[ "$1" -eq 0 ] && [ -s "$2/$3" ]' _ $st "$out" $want
	else
		skip "gnuplot not installed"
	fi
	plot/$s "$in" -o "$tmp/file/sub" >/dev/null 2>"$tmp/err"
	st=$?
	check "$s -o under a regular file: exit 2, one line naming it (exit $st: $(head -c 200 "$tmp/err"))" \
		bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "file/sub" "$2"' _ $st "$tmp/err"

	PATH=$tmp/nogp "$BASH" plot/$s "$in" -o "$tmp/$s/nogp" >/dev/null 2>"$tmp/err"
	st=$?
	check "$s without gnuplot: exit 3, one line (exit $st: $(head -c 200 "$tmp/err"))" \
		bash -c '[ "$1" -eq 3 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "gnuplot not found" "$2"' _ $st "$tmp/err"
done

# The latency figure: drawn where rows carry latency (p50 and p99 per
# policy, batches said in the title), not drawn where none does.
if [ -n "$have_gp" ]; then
	plot/threadplot tests/data/latency.csv -o "$tmp/lat" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadplot: latency rows draw latency.svg with p50 and p99 lines (exit $st)" bash -c \
		'[ "$1" -eq 0 ] && grep -q "wrote .*/latency.png" "$2" && grep -q "c1 p50" "$3/latency.svg" &&
		 grep -q "c1 p99" "$3/latency.svg" && grep -q "timed in batches of 160" "$3/latency.svg"' _ $st "$tmp/out" "$tmp/lat"
	plot/threadplot tests/data/handmade.csv -o "$tmp/nolat" >/dev/null 2>&1
	check "threadplot: no latency rows, no latency figure" bash -c '[ -s "$1/speedup.svg" ] && [ ! -e "$1/latency.svg" ]' _ "$tmp/nolat"
else
	skip "gnuplot not installed"
	skip "gnuplot not installed"
fi
