# threadplot draws what the report knows about each point: its min..max
# over the repeats as error bars, and the points threadreport flags (busy,
# oversubscribed, unverified, superlinear) ringed, one legend entry per kind.  A gnuplot
# that keeps a copy of what it was given lets the test read the data files.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
real=$(command -v gnuplot) || { skip "gnuplot not installed"; exit 0; }
mkdir -p "$tmp/bin" "$tmp/keep" "$tmp/out"
cat >"$tmp/bin/gnuplot" <<EOS
#!/usr/bin/env bash
cp -- *.dat *.gp "$tmp/keep/" 2>/dev/null
exec "$real" "\$@"
EOS
chmod +x "$tmp/bin/gnuplot"
PATH=$tmp/bin:$PATH plot/threadplot tests/data/flagged.csv -o "$tmp/out" >"$tmp/log" 2>&1
st=$?
check "threadplot draws tests/data/flagged.csv (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ -s "$2/speedup.svg" ] && [ -s "$2/size.svg" ]' _ $st "$tmp/out"
k=$tmp/keep
# 1024 bytes, compact: 1 thread 96..104 (median 100); 2 threads 150..196
# (median 190): speedup 1.9, bars the paired speedup's 95% interval
# (speedup_lo..speedup_hi: 1.44231..2.04167; the scaled min..max would be
# 1.5..1.96).  Columns: threads median speedup efficiency lo hi.
check "speedup points carry their interval: $(sed -n 2p "$k/s0p0.dat" 2>/dev/null)" \
	awk 'NR == 2 { found = $1 == 2 && $3 == 1.9 && $5 == 1.44231 && $6 == 2.04167 } END { exit !found }' "$k/s0p0.dat"
check "the speedup figure draws them as error bars" grep -q "s0p0.dat' using 1:3:5:6 with yerrorlines" "$k/speedup.gp"
# The unverified row sits at 2 threads, 4 threads are past the 2 PUs.
check "the unverified point is ringed: $(cat "$k/f0_unverified.dat" 2>/dev/null)" \
	test "$(cat "$k/f0_unverified.dat")" = "2 1.9"
check "the oversubscribed point is ringed: $(cat "$k/f0_oversubscribed.dat" 2>/dev/null)" \
	test "$(cat "$k/f0_oversubscribed.dat")" = "4 2"
check "no busy marker where nothing was busy" test ! -e "$k/f0_busy.dat"
check "each kind has its legend entry" \
	bash -c 'grep -q "flagged: not verified" "$1/speedup.svg" && grep -q "flagged: oversubscribed" "$1/speedup.svg" && ! grep -q "flagged: busy" "$1/speedup.svg"' _ "$tmp/out"
# The size figure: the 4-thread points (size median min max) with bars.
check "size points carry their min..max: $(head -n 1 "$k/z1b1.dat" 2>/dev/null)" \
	test "$(head -n 1 "$k/z1b1.dat")" = "1024 200 120 205"
check "the size figure draws error bars and rings the flagged points" \
	bash -c 'grep -q "z1b1.dat. using 1:2:3:4 with yerrorlines" "$1/size.gp" && grep -q "g1_oversubscribed.dat" "$1/size.gp"' _ "$k"
check "the heat map marks a flagged cell: 0.95!" grep -q "0.95!" "$k/h0.dat"

# The machine's drift (threadreport's warning) is in the panel's title;
# a steady machine's is not.
PATH=$tmp/bin:$PATH plot/threadplot tests/data/drift-step.csv -o "$tmp/drift" >"$tmp/log" 2>&1
check "a drifted series' panel says so: machine drift -30%" grep -q "machine drift -30%" "$tmp/drift/speedup.svg"
PATH=$tmp/bin:$PATH plot/threadplot tests/data/drift-none.csv -o "$tmp/steady" >"$tmp/log" 2>&1
check "a steady series' panel does not" bash -c '[ -s "$1" ] && ! grep -q "machine drift" "$1"' _ "$tmp/steady/speedup.svg"
# A point above linear (tests/data/verdicts.csv: rsa-sign, scatter, 2 threads
# at 3.44x on 2 PUs) is ringed as superlinear, with its legend entry.
rm -f "$k"/*.dat
PATH=$tmp/bin:$PATH plot/threadplot tests/data/verdicts.csv -o "$tmp/out2" >/dev/null 2>&1
check "the superlinear point is ringed: $(cat "$k/f0_superlinear.dat" 2>/dev/null)" \
	bash -c 'awk "\$1 == 2 && \$2 > 3.4" "$1" | grep -q .' _ "$k/f0_superlinear.dat"
check "... with its legend entry" grep -qF "flagged: above linear (speedup > 1.15 x PUs)" "$tmp/out2/speedup.svg"
# A policy has one colour in the PNG and on the HTML page: compact and
# scatter, the first two lines of rsa-sign, are the page's first two.
threadreport -f html tests/data/verdicts.csv >"$tmp/v.html" 2>/dev/null
check "the page draws compact and scatter in #0072b2 and #d55e00" \
	bash -c 'grep -q "#0072b2" "$1" && grep -q "#d55e00" "$1"' _ "$tmp/v.html"
check "... and so does threadplot (SVG: rgb(0, 114, 178) and rgb(213, 94, 0))" \
	bash -c 'tr -d " " <"$1" | grep -q "rgb(0,114,178)" && tr -d " " <"$1" | grep -q "rgb(213,94,0)"' _ "$tmp/out2/speedup.svg"
