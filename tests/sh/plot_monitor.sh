# plot/monitorplot's picture: a sample covers the interval before it, a CPU
# sample without data is left blank (never drawn busy), and both panels
# share one time axis (the same range, the same place on the page).  Read
# from the SVG gnuplot writes: the plot borders, the boxes inside the top
# one and their colours, the tic labels of each time axis.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
command -v gnuplot >/dev/null || { skip "gnuplot not installed"; exit 0; }

# The facts of a figure, one per line:
#   border LEFT RIGHT TOP BOTTOM    each panel's plot border, top panel first
#   box FILL LEFT RIGHT             each box inside the top panel's border
#   xtics Y LABEL@X ...             each row of tic labels along a time axis
svg_facts() {
	awk '
	match($0, /d=.M[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ L[0-9.]+,[0-9.]+ Z/) {
		s = substr($0, RSTART + 3, RLENGTH - 3); gsub(/[ML]/, "", s); split(s, p, /[ ,]+/)
		# Drawn down the left side first: a plot border (the colour box
		# is drawn along its bottom first).
		if (p[1] == p[3] && p[5] == p[7] && !((p[1] " " p[5] " " p[2]) in seen)) {
			seen[p[1] " " p[5] " " p[2]] = 1; nb++
			bl[nb] = p[1] + 0; br[nb] = p[5] + 0; bt[nb] = p[2] + 0; bb[nb] = p[4] + 0
			print "border", p[1], p[5], p[2], p[4]
		}
	}
	/<polygon fill = / {
		f = $0; sub(/.*fill = \047/, "", f); sub(/\047.*/, "", f); gsub(/ /, "", f)
		s = $0; sub(/.*points = \047/, "", s); sub(/\047.*/, "", s); split(s, p, /[ ,]+/)
		nq++; qf[nq] = f; qx1[nq] = p[1] + 0; qx2[nq] = p[3] + 0; qy[nq] = p[2] + 0
	}
	/translate\(/ { s = $0; sub(/.*translate\(/, "", s); sub(/\).*/, "", s); split(s, xy, ","); tx = xy[1]; ty = xy[2] }
	/<text>/ { s = $0; sub(/.*<text> */, "", s); sub(/<\/text>.*/, "", s); row[ty] = row[ty] " " s "@" tx; cnt[ty]++ }
	END {
		for (i = 1; i <= nq; i++)
			if (nb && qx1[i] >= bl[1] - 1 && qx2[i] <= br[1] + 1 && qy[i] <= bb[1] && qy[i] >= bt[1])
				print "box", qf[i], qx1[i], qx2[i]
		for (y in row) if (cnt[y] > 1 && row[y] ~ /^ [0-9.]+@/) print "xtics", y, row[y]
	}' "$1"
}

# A run as an older threadrun wrote it: a first sample at t = 0 with every
# share 0 (an interval of no length), then one with no shares (no tick
# counted), then samples of idle CPUs; two threads, one missing a sample.
mon=$tmp/m.monitor.csv
{
	echo "t_s,kind,id,name,cpu,planned,usr_pct,sys_pct,irq_pct,idle_pct,steal_pct,intr,utime_s,stime_s,vcsw,ivcsw"
	echo "# run 2 threads, list:0,1, repeat 0"
	echo "0.000,cpu,0,,0,-1,0.0,0.0,0.0,0.0,0.0,0,,,,"
	echo "0.000,cpu,1,,1,-1,0.0,0.0,0.0,0.0,0.0,0,,,,"
	echo "0.000,thread,100,threadrun,1,-1,,,,,,,0.00,0.00,0,0"
	echo "0.250,cpu,0,,0,-1,,,,,,3,,,,"
	echo "0.250,cpu,1,,1,-1,0.0,0.0,0.0,100.0,0.0,3,,,,"
	echo "0.250,thread,100,w-w0,1,-1,,,,,,,0.00,0.00,0,0"
	for t in 0.500 0.750 1.000; do
		echo "$t,cpu,0,,0,-1,0.0,0.0,0.0,100.0,0.0,3,,,,"
		echo "$t,cpu,1,,1,-1,0.0,0.0,0.0,100.0,0.0,3,,,,"
		[ $t = 0.750 ] || echo "$t,thread,100,w-w0,0,0,,,,,,,0.00,0.00,1,0"
		echo "$t,thread,101,w-w1,1,1,,,,,,,0.00,0.00,1,0"
	done
} >"$mon"
plot/monitorplot "$mon" -o "$tmp/fig" >/dev/null 2>"$tmp/err"
st=$?
check "monitorplot draws the run (exit $st)" bash -c '[ "$1" -eq 0 ] && [ -s "$2" ] && [ ! -s "$3" ]' _ $st "$tmp/fig/monitor.svg" "$tmp/err"
svg_facts "$tmp/fig/monitor.svg" >"$tmp/facts"
boxes=$(grep -c '^box ' "$tmp/facts")
check "a box per CPU sample with data, 7 (got $boxes): none for t = 0 or for the sample without shares" [ "$boxes" -eq 7 ]
check "every box has an idle CPU's colour: no sample without data drawn busy ($(grep '^box ' "$tmp/facts" | cut -d' ' -f2 | sort -u | tr '\n' ' '))" \
	bash -c '! grep "^box " "$1" | grep -qv "^box rgb(247,247,247) "' _ "$tmp/facts"
read -r _ left right _ <<<"$(grep -m1 '^border ' "$tmp/facts")"
check "the boxes cover the run from its start to its last sample, edge to edge ($left..$right)" \
	awk -v l="$left" -v r="$right" '$1 == "box" { if (!n++ || $3 < lo) lo = $3; if ($4 > hi) hi = $4 }
		END { exit !(n && lo - l < 1 && l - lo < 1 && hi - r < 1 && r - hi < 1) }' "$tmp/facts"
check "both panels' borders span the same x on the page ($(grep '^border ' "$tmp/facts" | cut -d' ' -f2,3 | sort -u | tr '\n' ';'))" \
	bash -c '[ "$(grep "^border " "$1" | wc -l)" -eq 2 ] && [ "$(grep "^border " "$1" | cut -d" " -f2,3 | sort -u | wc -l)" -eq 1 ]' _ "$tmp/facts"
check "both time axes carry the same tics at the same places" \
	bash -c '[ "$(grep -c "^xtics " "$1")" -eq 2 ] && [ "$(grep "^xtics " "$1" | cut -d" " -f3- | sort -u | wc -l)" -eq 1 ]' _ "$tmp/facts"
