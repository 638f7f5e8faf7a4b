# threadreport's cluster measurements on crafted files: rows of one job
# and different ranks are one measurement; its rate is all ranks' work over
# the longest rank's wall time, shown only when the ranks' windows
# overlapped >= 90%, n/a with the reason otherwise; speedup against 1 rank;
# per-host per-rank rates naming the slowest host; threadplot's figure.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
report=${THREADREPORT:-bin/threadreport}
[[ $report == /* ]] || report=$PWD/$report

head=host,workload,algorithm,backend,size,size_unit,threads,policy,repeat,run,config,job,rank,ranks,start_sync,ops,wall_s,t_start,t_end,rate,unit,status
T0=1700000000000000
# row HOST POLICY THREADS REPEAT JOB RANK RANKS SYNC OPS WALL START_US END_US
# (START and END relative to T0; rate = ops / wall, as the row contract says)
row() {
	local rate
	rate=$(awk -v o="$9" -v w="${10}" 'BEGIN { printf "%.6g", o / w }')
	echo "$1,t2accel,rsa-sign,evp,2048,bits,$3,$2,$4,run-$5-$6,t2accel -a rsa,$5,$6,$7,$8,$9,${10},$((T0 + ${11})),$((T0 + ${12})),$rate,ops/s,0"
}
# col NAME: the column of that name in a TSV on stdin (with its header);
# clu FILE NAME: that column of threadreport --cluster on FILE.
col() { awk -F'\t' -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } c { print $c }'; }
clu() { "$report" --raw -f tsv --cluster "$1" 2>/dev/null | col "$2"; }

# A complete, synchronised 2-rank job: 1900 ops in 1.9 s and 3000 in 2.0 s.
# Cluster rate 4900 / 2.0 = 2450, not the sum of rates 1000 + 1500 = 2500;
# overlap 1.9 / 2.0 = 95%.
{ echo $head; row h0 compact 2 0 J1 0 2 yes 1900 1.9 0 1900000; row h1 compact 2 0 J1 1 2 yes 3000 2.0 0 2000000; } >"$tmp/sync.csv"
check "complete 2-rank job: cluster rate 4900 / 2.0 = 2450 (got '$(clu "$tmp/sync.csv" rate)')" \
	test "$(clu "$tmp/sync.csv" rate)" = 2450
check "complete 2-rank job: overlap 0.95, 1 measurement with a rate, none without" \
	test "$(clu "$tmp/sync.csv" overlap_min) $(clu "$tmp/sync.csv" n) $(clu "$tmp/sync.csv" na)" = "0.95 1 0"
"$report" "$tmp/sync.csv" >"$tmp/out" 2>"$tmp/err"
st=$?
check "text report: a cluster section with the rate 2.45 k ops/s and 95% overlap (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^== cluster: t2accel rsa-sign / evp, 2048 bits, ops/s" "$2" &&
		grep -Eq "^compact +2 +2 +2\.45 k ops/s .* 95% " "$2"' _ $st "$tmp/out"
# The figures with all their digits (--exact), where no rounding can hide the sum.
"$report" --exact "$tmp/sync.csv" >"$tmp/out" 2>"$tmp/err"
check "the sum of per-rank rates (2500) is printed nowhere, the cluster rate is" \
	bash -c 'grep -q " 2450 " "$1" && ! grep -q 2500 "$1"' _ "$tmp/out"
check "the single-machine section keeps every rank's row (no rank collapses into another)" \
	bash -c '"$1" -f tsv "$2" 2>/dev/null | awk -F"\t" "NR > 1 { n += \$12 } END { exit n != 2 }"' _ "$report" "$tmp/sync.csv"

# An incomplete job: 2 of 4 ranks.
{ echo $head; row h0 compact 2 0 J2 0 4 yes 1000 1.0 0 1000000; row h0 compact 2 0 J2 1 4 yes 1000 1.0 0 1000000; } >"$tmp/inc.csv"
check "incomplete job: no rate, reason '2 of 4 ranks' (got '$(clu "$tmp/inc.csv" reason)')" \
	test "$(clu "$tmp/inc.csv" rate)|$(clu "$tmp/inc.csv" reason)|$(clu "$tmp/inc.csv" na)" = "|2 of 4 ranks|1"
"$report" "$tmp/inc.csv" >"$tmp/out" 2>/dev/null
check "incomplete job: the text says n/a and why" grep -Eq "^compact +2 +4 +n/a .*2 of 4 ranks" "$tmp/out"

# Ranks that never ran together: overlap (1.0 - 0.9) / 2.0 = 5%.
{ echo $head; row h0 compact 2 0 J3 0 2 "" 1000 1.0 0 1000000; row h1 compact 2 0 J3 1 2 "" 1100 1.1 900000 2000000; } >"$tmp/skew.csv"
check "overlap 5%: n/a, reason 'ranks overlapped 5%: run under threadrun-mpi' (got '$(clu "$tmp/skew.csv" reason)')" \
	test "$(clu "$tmp/skew.csv" rate)|$(clu "$tmp/skew.csv" reason)" = "|ranks overlapped 5%: run under threadrun-mpi"
"$report" "$tmp/skew.csv" >"$tmp/out" 2>/dev/null
check "overlap 5%: the text says n/a, no cluster rate and no sum (2000)" \
	bash -c 'grep -Eq "^compact +2 +2 +n/a .*ranks overlapped 5%: run under threadrun-mpi" "$1" && ! grep -q 2000 "$1"' _ "$tmp/out"
check "overlap 5%: a warning names the overlap" \
	grep -q "warning: 1 cluster measurement whose ranks did not run together (overlap under 90%, the least 5%)" "$tmp/out"

# threadrun's own rows of a foreign program (runs/s, ops 1): 2 runs / 0.5 s.
{ echo $head; row h0 compact 1 0 J9 0 2 "" 1 0.48 0 480000 | sed 's/,rsa-sign,evp,2048,bits,/,(run),threadrun,,,/; s/,ops\/s,/,runs\/s,/'
	row h1 compact 1 0 J9 1 2 "" 1 0.5 0 500000 | sed 's/,rsa-sign,evp,2048,bits,/,(run),threadrun,,,/; s/,ops\/s,/,runs\/s,/'; } >"$tmp/run.csv"
check "threadrun's run rows of 2 ranks: one 2-rank measurement, 1 + 1 runs / 0.5 s = 4 runs/s (got '$(clu "$tmp/run.csv" ranks) $(clu "$tmp/run.csv" rate)')" \
	test "$(clu "$tmp/run.csv" ranks) $(clu "$tmp/run.csv" rate) $(clu "$tmp/run.csv" unit)" = "2 4 runs/s"

# A rank that failed: no rate, the rank and its status named.
{ echo $head; row h0 compact 2 0 J10 0 2 yes 1000 1.0 0 1000000; row h1 compact 2 0 J10 1 2 yes 1000 1.0 0 1000000 | sed 's/,0$/,1/'; } >"$tmp/fail.csv"
check "a rank failed: n/a, 'rank 1 failed (status 1)' (got '$(clu "$tmp/fail.csv" reason)')" \
	test "$(clu "$tmp/fail.csv" rate)|$(clu "$tmp/fail.csv" reason)" = "|rank 1 failed (status 1)"

# A rank twice: one line on stderr naming it, the measurement incomplete.
{ echo $head; row h0 compact 2 0 J4 0 2 yes 1000 1.0 0 1000000; row h1 compact 2 0 J4 0 2 yes 1000 1.0 0 1000000; } >"$tmp/dup.csv"
"$report" "$tmp/dup.csv" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a rank twice: exit 0, one line on stderr naming it and both lines (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(grep -c "rank 0 twice" "$2")" = 1 ] &&
		grep -q "dup.csv:3: job .J4., rsa-sign, compact 2 threads, repeat 0: rank 0 twice (also .*dup.csv:2); the cluster measurement is incomplete" "$2"' _ $st "$tmp/err"
check "a rank twice: no rate, reason says it" \
	test "$(clu "$tmp/dup.csv" rate)|$(clu "$tmp/dup.csv" reason)" = "|incomplete: rank 0 twice"

# A rank out of 0..ranks-1.
{ echo $head; row h0 compact 2 0 J5 0 2 yes 1000 1.0 0 1000000; row h1 compact 2 0 J5 2 2 yes 1000 1.0 0 1000000; } >"$tmp/out.csv"
"$report" "$tmp/out.csv" >/dev/null 2>"$tmp/err"
check "a rank out of range: named on stderr, no rate" \
	bash -c 'grep -q "rank 2 is out of range, allowed 0..1; the cluster measurement is incomplete" "$1" && [ -z "$2" ]' \
	_ "$tmp/err" "$(clu "$tmp/out.csv" rate)"

# Rows of an older version: no t_start or t_end columns.
{ echo "${head/,t_start,t_end/}"; row h0 compact 2 0 J6 0 2 "" 1000 1.0 0 1000000 | cut -d, -f1-17,20-;
	row h1 compact 2 0 J6 1 2 "" 1000 1.0 0 1000000 | cut -d, -f1-17,20-; } >"$tmp/old.csv"
check "rows without t_start: n/a, 'no measurement windows: rows from an older version' (got '$(clu "$tmp/old.csv" reason)')" \
	test "$(clu "$tmp/old.csv" rate)|$(clu "$tmp/old.csv" reason)" = "|no measurement windows: rows from an older version"

# An inverted window (t_end before t_start, rank 1 on line 3) is named with
# its file and line, not taken for rows of an older version.
{ echo $head; row h0 compact 2 0 J8 0 2 yes 1000 1.0 0 1000000; row h1 compact 2 0 J8 1 2 yes 1000 1.0 2000000 1000000; } >"$tmp/inv.csv"
check "t_end before t_start: n/a, reason 't_end before t_start at line 3 of FILE' (got '$(clu "$tmp/inv.csv" reason)')" \
	test "$(clu "$tmp/inv.csv" rate)|$(clu "$tmp/inv.csv" reason)" = "|t_end before t_start at line 3 of $tmp/inv.csv"
"$report" --cluster "$tmp/inv.csv" >"$tmp/out" 2>"$tmp/err"
check "t_end before t_start: one line on stderr names FILE:3" \
	grep -qxF "threadreport: $tmp/inv.csv:3: t_end before t_start (rank 1): no cluster rate for its measurement" "$tmp/err"

# start_sync no is named (host, rank, file and line); the overlap still decides.
{ echo $head; row h0 compact 2 0 J7 0 2 yes 1000 1.0 0 1000000; row h1 compact 2 0 J7 1 2 no 1000 1.0 0 1000000; } >"$tmp/nosync.csv"
"$report" "$tmp/nosync.csv" >"$tmp/out" 2>/dev/null
check "start_sync no: the row is named" \
	grep -q "1 row not synchronised (start_sync no.*host h1 rank 1, compact 2 threads (.*nosync.csv:3)" "$tmp/out"
check "start_sync no: counted in --cluster's unsynced" test "$(clu "$tmp/nosync.csv" unsynced)" = 1

# Four ranks on two hosts, host b at half the rate: b is the slowest host.
{ echo $head; row a compact 4 0 J8 0 4 yes 2000 1.0 0 1000000; row a compact 4 0 J8 1 4 yes 2100 1.0 0 1000000
	row b compact 4 0 J8 2 4 yes 1000 1.0 0 1000000; row b compact 4 0 J8 3 4 yes 1050 1.0 0 1000000; } >"$tmp/hosts.csv"
"$report" --exact "$tmp/hosts.csv" >"$tmp/out" 2>/dev/null
check "two hosts: the per-host table names b the slowest host" \
	bash -c 'grep -q "^  slowest host: b (median per-rank rate 1025, 0.50x the fastest host.s)" "$1" &&
		grep -Eq "^  b +2 +1000 +1025 +1050  slowest" "$1"' _ "$tmp/out"
check "two hosts: --cluster's slowest_host is b, the rate 6150 / 1.0" \
	test "$(clu "$tmp/hosts.csv" slowest_host) $(clu "$tmp/hosts.csv" rate)" = "b 6150"
"$report" --raw -f tsv --hosts "$tmp/hosts.csv" >"$tmp/h.tsv" 2>/dev/null
check "--hosts: a row per host, b slowest with min 1000, median 1025, max 1050" \
	test "$(col host <"$tmp/h.tsv" | tr '\n' ' ')$(awk -F'\t' '$12 == "b" { print $13, $14, $15, $16, $17 }' "$tmp/h.tsv")" = "a b 2 1000 1025 1050 yes"

# 1, 2 and 4 ranks (jobs of their own), two repeats each: speedup and
# efficiency against 1 rank; scatter has no 1-rank point: n/a.
{
	echo $head
	for r in 0 1; do
		row n0 compact 1 $r K1$r 0 1 yes 1000 1.0 0 1000000
		for k in 0 1; do row n$k compact 1 $r K2$r $k 2 yes 950 1.0 0 1000000; done
		for k in 0 1 2 3; do row n$k compact 1 $r K4$r $k 4 yes 900 1.0 0 1000000; done
		for k in 0 1; do row n$k scatter 1 $r S2$r $k 2 yes 950 1.0 0 1000000; done
	done
} >"$tmp/scale.csv"
"$report" --raw -f tsv --cluster "$tmp/scale.csv" 2>/dev/null |
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ print $c["policy"], $c["ranks"], $c["n"], $c["rate"], $c["speedup"], $c["efficiency"] }' >"$tmp/scale"
check "1, 2, 4 ranks: rates 1000 1900 3600, speedup 1 1.9 3.6, efficiency 1 0.95 0.9, 2 repeats each" \
	test "$(grep compact "$tmp/scale" | tr '\n' ';')" = "compact 1 2 1000 1 1;compact 2 2 1900 1.9 0.95;compact 4 2 3600 3.6 0.9;"
check "no 1-rank point (scatter): no speedup or efficiency, never invented" \
	test "$(grep scatter "$tmp/scale")" = "scatter 2 2 1900  "
"$report" "$tmp/scale.csv" >"$tmp/out" 2>/dev/null
check "text: speedup 3.60, efficiency 0.90 at 4 ranks; the missing 1-rank point said" \
	bash -c 'grep -Eq "^compact +1 +4 +3\.60 k ops/s +3\.60 k ops/s +3\.60 k ops/s +2 +100% +3.60 +0.90" "$1" && grep -q "no 1-rank point for some policy" "$1"' _ "$tmp/out"

# Markdown and JSON carry the section too; csv and tsv keep it apart.
"$report" -f markdown "$tmp/sync.csv" >"$tmp/md" 2>/dev/null
check "markdown: a cluster table with the rate" \
	bash -c 'grep -q "^### Cluster: t2accel rsa-sign / evp" "$1" && grep -q "^| compact | 2 | 2 | 2.45 k ops/s |" "$1"' _ "$tmp/md"
"$report" -f json "$tmp/sync.csv" >"$tmp/json" 2>/dev/null
check "json: valid, cluster[0].cells[0] has rate 2450 and hosts h0, h1" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["cluster"][0]["cells"][0]
sys.exit(not (c["rate"] == 2450 and c["ranks"] == 2 and [h["host"] for h in c["hosts"]] == ["h0", "h1"]))' "$tmp/json"
"$report" -f json --cluster "$tmp/skew.csv" >"$tmp/json" 2>/dev/null
check "json --cluster: rate null and the reason" \
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["cluster"][0]["cells"][0]
sys.exit(not (c["rate"] is None and c["reason"].startswith("ranks overlapped 5%")))' "$tmp/json"
check "csv: the cell table is unchanged (no cluster columns)" \
	bash -c '"$1" -f csv "$2" 2>/dev/null | head -n 1 | grep -q "^series,host,workload,.*,busy,lat_batch,lat_p50_s,lat_p90_s,lat_p99_s,lat_p999_s,lat_max_s,cycles_per_byte,cycles_per_op,ipc,flops_per_cycle,worker_spread_pct,median_lo,median_hi,ci_coverage,speedup_of_medians,speedup_lo,speedup_hi,speedup_pairs,drift_pct$"' _ "$report" "$tmp/sync.csv"
"$report" -f csv --cluster tests/data/cutoff.csv >"$tmp/out" 2>"$tmp/err"
st=$?
check "--cluster on a file without jobs: exit 0, the header only, a note (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "no cluster measurements" "$3"' _ $st "$tmp/out" "$tmp/err"
"$report" --cluster --cutoffs "$tmp/sync.csv" >/dev/null 2>"$tmp/err"
st=$?
check "--cluster with --cutoffs: exit 2, one line (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "give one of them" "$2"' _ $st "$tmp/err"

# Every column of --cluster and --hosts is documented.
cols=$("$report" --raw -f csv --cluster "$tmp/sync.csv" 2>/dev/null | head -n 1 | tr , ' ')
hcols=$("$report" --raw -f csv --hosts "$tmp/sync.csv" 2>/dev/null | head -n 1 | tr , ' ')
missing=$(for c in $cols $hcols; do grep -qF "\`$c\`" docs/machine-output.md || echo "$c"; done)
check "every column of --cluster and --hosts is on docs/machine-output.md${missing:+ (missing: $(echo $missing))}" \
	bash -c '[ -n "$1" ] && [ -n "$2" ] && [ -z "$3" ]' _ "$cols" "$hcols" "$missing"

# threadplot: the cluster figure from threadreport --cluster, only rated
# cells; a policy name that is gnuplot code stays a name.
if ! command -v gnuplot >/dev/null; then
	skip "gnuplot not installed: no cluster figure"
	skip "gnuplot not installed: no cluster figure (all n/a)"
else
	awk -v p="x'; system('touch $tmp/PWNED'); '" '{ gsub(/,scatter,/, "," p ","); print }' "$tmp/scale.csv" >"$tmp/plot.csv"
	mkdir -p "$tmp/p" "$tmp/q"
	plot/threadplot "$tmp/plot.csv" -o "$tmp/p" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadplot draws cluster.png and .svg, a line per policy x threads, nothing run (exit $st)" \
		bash -c '[ "$1" -eq 0 ] && [ -s "$2/cluster.png" ] && grep -q "compact 1 thread" "$2/cluster.svg" &&
			grep -q "Cluster rate against ranks" "$2/cluster.svg" && [ ! -e "$3/PWNED" ]' _ $st "$tmp/p" "$tmp"
	plot/threadplot "$tmp/skew.csv" -o "$tmp/q" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadplot: every cluster measurement n/a: no cluster figure, said (exit $st)" \
		bash -c '[ "$1" -eq 0 ] && [ ! -e "$2/cluster.png" ] && grep -q "no cluster measurement has a rate" "$3"' \
		_ $st "$tmp/q" "$tmp/out"
fi
