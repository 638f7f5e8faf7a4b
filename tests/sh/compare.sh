# threadreport --compare and threadplot --compare: before and after.  Two
# real t2accel runs with different settings (-b evp, -b pkcs11), then
# hand-made files for exact ratios, one-side-only configurations, files
# that share nothing, bad input and hostile names, in every format.
. "$(dirname "$0")/tap.bash"
set -o pipefail
export TMPDIR=$tmp
d=tests/data
B=$d/compare-before.csv A=$d/compare-after.csv
# tcol FILE.tsv COLUMN...: those columns of a tsv table, by name.
tcol() {
	awk -F'\t' -v want="${*:2}" 'NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; for (i = 1; i <= n; i++) if (!(w[i] in c)) exit 2; next }
		{ for (i = 1; i <= n; i++) printf "%s%s", $(c[w[i]]), i < n ? "\t" : "\n" }' "$1"
}
export -f tcol

# --- Two runs with two settings: the ratio table and the summary line.
for b in evp pkcs11; do
	threadrun -q -o "$tmp/$b.csv" --sweep 1 -p compact --repeat 2 -- \
		t2accel -q -b $b -a sha256 -s 16,1024,8192 -d 0.1 >/dev/null 2>"$tmp/err"
	st=$?
	check "threadrun t2accel -b $b -a sha256 at 3 sizes: exit 0 (got $st)" [ $st -eq 0 ]
done
threadreport --compare "$tmp/evp.csv" "$tmp/pkcs11.csv" >"$tmp/out" 2>"$tmp/err"
st=$?
check "--compare evp.csv pkcs11.csv: exit 0 (got $st)" [ $st -eq 0 ]
check "one ratio row per size, n 2+2 each" \
	[ "$(grep -cE '^(16|1024|8192) bytes +compact +1 .* [0-9]+\.[0-9]{2} +[0-9.]+\.\.[0-9.]+ +[0-9]+\.[0-9]{2} +~ p=[01]\.[0-9]{3} n=2\+2$' "$tmp/out")" -eq 3 ]
check "the sides say what they ran" bash -c "grep -q '^   before: evp' '$tmp/out' && grep -q '^   after: pkcs11' '$tmp/out'"
# A side whose file holds its rows twice: still 2 repeats, said once.
{ cat "$tmp/pkcs11.csv"; tail -n +2 "$tmp/pkcs11.csv"; } >"$tmp/twice.csv"
threadreport --compare "$tmp/evp.csv" "$tmp/twice.csv" >"$tmp/out" 2>"$tmp/err"
check "a side's rows twice: n 2+2, one line says they counted once" bash -c \
	"[ \$(grep -cE ' n=2\+2\$' '$tmp/out') -eq 3 ] && grep -q 'rows read twice .*counted once; the first: .*twice.csv' '$tmp/err'"
check "one summary line for sha256: 2+2 repeats can show no significant change" \
	grep -qx '  summary: no significant change (3 configurations)' "$tmp/out"
threadreport -f tsv --compare "$tmp/evp.csv" "$tmp/pkcs11.csv" >"$tmp/real.tsv" 2>/dev/null
st=$?
check "tsv: exit 0 and three configurations measured on both sides" bash -c \
	"[ $st -eq 0 ] && [ \"\$(tcol '$tmp/real.tsv' measured before_backend after_backend | sort | uniq -c | awk '{print \$1, \$2, \$3, \$4}')\" = '3 both evp pkcs11' ]"
# Each ratio is after / before of the medians the normal report prints.
cat "$tmp/evp.csv" >"$tmp/merged.csv"
tail -n +2 "$tmp/pkcs11.csv" >>"$tmp/merged.csv"
threadreport -f tsv --compare-by backend "$tmp/merged.csv" >"$tmp/by.tsv" 2>/dev/null
st=$?
check "--compare-by backend on the merged file: exit 0, the same ratios as the two files" bash -c \
	"[ $st -eq 0 ] && [ \"\$(tcol '$tmp/by.tsv' size ratio ratio_min ratio_max)\" = \"\$(tcol '$tmp/real.tsv' size ratio ratio_min ratio_max)\" ] && [ \$(wc -l <'$tmp/by.tsv') -eq 4 ]"
threadreport -f tsv "$tmp/evp.csv" "$tmp/pkcs11.csv" >"$tmp/normal.tsv" 2>/dev/null
tcol "$tmp/normal.tsv" backend size policy median |
	awk -F'\t' '$3 == "compact" { m[$1 "," $2] = $4 } END { for (z = 16; z <= 8192; z *= 8) if (z != 128) printf "%.6g\n", m["pkcs11," z] / m["evp," z] }' >"$tmp/want"
tcol "$tmp/real.tsv" ratio | awk '{ printf "%.6g\n", $1 }' >"$tmp/got"
check "the ratios are the medians' quotients (pkcs11 / evp at 16, 1024, 8192)" bash -c \
	"[ \$(wc -l <'$tmp/got') -eq 3 ] && cmp -s '$tmp/want' '$tmp/got'"
if command -v gnuplot >/dev/null; then
	mkdir -p "$tmp/fig"
	plot/threadplot --compare "$tmp/evp.csv" "$tmp/pkcs11.csv" -o "$tmp/fig" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadplot --compare: exit 0, ratio.png and ratio.svg drawn (got $st)" bash -c \
		"[ $st -eq 0 ] && [ -s '$tmp/fig/ratio.png' ] && [ -s '$tmp/fig/ratio.svg' ] && [ ! -e '$tmp/fig/speedup.png' ]"
	check "the figure: a panel for sha256, a line for compact 1 thread, 1.0 marked" bash -c \
		"grep -q 't2accel sha256, bytes/s' '$tmp/fig/ratio.svg' && grep -q 'compact 1 thread' '$tmp/fig/ratio.svg' && grep -q 'no change (1.0)' '$tmp/fig/ratio.svg'"
else
	skip "no gnuplot: threadplot --compare"
	skip "no gnuplot: threadplot --compare figure"
fi

# --- Hand-made files: exact ratios and ranges, one-side-only configurations.
threadreport --compare $B $A >"$tmp/out" 2>/dev/null
st=$?
check "hand-made: exit 0 (got $st)" [ $st -eq 0 ]
check "16 bytes: medians 100 and 120, ratio 1.20, range 110/110 .. 130/90" \
	grep -qE '^16 bytes +compact +1 +100 B/s ±10% +120 B/s ±8% +1\.20 +1\.00\.\.1\.44 +1\.20 +~ p=0\.121 n=3\+3$' "$tmp/out"
check "8192 bytes: ratio 3.40, range 3.30..3.50, not significant at 3+3" \
	grep -qE '^8192 bytes +compact +1 +1\.00 kB/s ±0% +3\.40 kB/s ±3% +3\.40 +3\.30\.\.3\.50 +3\.40 +~ p=0\.064 n=3\+3$' "$tmp/out"
check "the summary counts significant changes only: none" grep -qx '  summary: no significant change (2 configurations)' "$tmp/out"
check "a summary per algorithm (md5 has one configuration)" grep -qx '  summary: no significant change (1 configuration)' "$tmp/out"
check "configurations of one side are listed, not dropped" bash -c \
	"grep -qx '  before only: t2accel sha256, 1024 bytes, scatter, 2 threads: median 400 B/s, n 1' '$tmp/out' &&
	 grep -qx '  after only: t2accel sha256, 1024 bytes, scatter, 4 threads: median 900 B/s, n 1' '$tmp/out'"
check "weak and overlapping ratios are warned of" bash -c \
	"grep -q 'warning: 1 configuration has fewer than 3 repeats' '$tmp/out' && grep -q 'warning: 1 configuration has a ratio range that includes 1.00' '$tmp/out'"
threadreport -f tsv --compare $B $A >"$tmp/h.tsv" 2>/dev/null
check "tsv: every configuration, one side's cells empty where it measured none" bash -c \
	"[ \"\$(tcol '$tmp/h.tsv' measured algorithm size threads ratio ratio_min ratio_max before_n after_n smallest largest | tr '\t' ' ')\" = \"\$(printf '%s\n' \
	 'both md5 64 1 2 2 2 1 1 yes yes' 'both sha256 16 1 1.2 1 1.444444444 3 3 yes no' \
	 'before sha256 1024 2    1  no no' 'after sha256 1024 4     1 no no' 'both sha256 8192 1 3.4 3.3 3.5 3 3 no yes')\" ]"
threadreport -f csv --compare $B $A >"$tmp/h.csv" 2>/dev/null
st=$?
check "csv: the tsv's table with commas (no field here needs quoting)" bash -c \
	"[ $st -eq 0 ] && [ \$(wc -l <'$tmp/h.csv') -eq 6 ] && [ \"\$(tr '\t' , <'$tmp/h.tsv')\" = \"\$(cat '$tmp/h.csv')\" ]"
threadreport -f json --compare $B $A >"$tmp/h.json" 2>/dev/null
check "json: the ratios, the summary, the one-side configurations and the warnings as objects" bash -c \
	"[ \"\$(jq -r '[.groups[1].summary.smallest.ratio, .groups[1].summary.largest.size, (.groups[1].configurations | map(.measured) | join(\"+\")), .groups[1].configurations[2].before, .warnings[0].kind, .warnings[1].kind, .warnings[2].kind, .warnings[3].kind] | map(tostring) | join(\" \")' '$tmp/h.json')\" = '1.2 8192 both+before+after+both null few_repeats no_difference no_test weak_test' ]"
threadreport -f markdown --compare $B $A >"$tmp/h.md" 2>/dev/null
check "markdown renders two tables of 9 cells a row (cmark-gfm)" bash -c \
	"cmark-gfm -e table '$tmp/h.md' | awk '/<table>/ {t++} /<tr>/ {n = 0; rows++} /<t[dh]/ {n++} /<\/tr>/ && n != 10 {bad = 1} END {exit bad || t != 2 || rows != 5}'"
check "markdown: the summary and the one-side list as items" bash -c \
	"grep -qx -- '- summary: no significant change (2 configurations)' '$tmp/h.md' &&
	 grep -qx -- '- after only: t2accel sha256, 1024 bytes, scatter, 4 threads: median 900 B/s, n 1' '$tmp/h.md'"

# --- The test: 5+5 repeats, a clear change, the same rates, one repeat a side.
SB=$d/compare-sig-before.csv SA=$d/compare-sig-after.csv
threadreport --compare $SB $SA >"$tmp/out" 2>/dev/null
st=$?
check "significance: exit 0 (got $st)" [ $st -eq 0 ]
check "a clear change (100..104 to 120..124): p=0.008, +19.6%, medians with intervals" \
	grep -qE '^16 bytes +compact +1 +102 B/s ±2% +122 B/s ±2% +1\.20 +1\.15\.\.1\.24 +1\.20 +\+19\.6% p=0\.008 n=5\+5$' "$tmp/out"
check "the same rates in another order: ~, p=1.000, paired by repeat 1.00" \
	grep -qE '^1024 bytes +compact +1 +520 B/s ±4% +520 B/s ±4% +1\.00 +0\.93\.\.1\.08 +1\.00 +~ p=1\.000 n=5\+5$' "$tmp/out"
check "one repeat a side: no p-value, and why" bash -c \
	"grep -qE '^8192 bytes +compact +1 .* 0\.90 +~ p=n/a n=1\+1$' '$tmp/out' &&
	 grep -qx '  warning: 1 configuration has one repeat on a side: no p-value, a rank test needs 2 or more on each' '$tmp/out'"
check "the summary counts the significant change only" grep -qx \
	'  summary: 1 of 3 configurations changed significantly: 1.20x at 16 bytes (compact, 1 thread)' "$tmp/out"
threadreport -f csv --compare $SB $SA 2>/dev/null | tr , '\t' >"$tmp/sig.tsv"
check "csv: intervals, paired ratio, p and significant by name" bash -c \
	"[ \"\$(tcol '$tmp/sig.tsv' size before_lo before_hi after_lo after_hi ratio_paired p significant | tr '\t' ' ')\" = '16 100 104 120 124 1.196078431 0.007936507937 yes
1024 500 540 500 540 1 1 no
8192 1000 1000 900 900 0.9  ' ]"
threadreport -f json --compare $SB $SA 2>/dev/null >"$tmp/sig.json"
check "json: significant true, false, null; the summary's count" bash -c \
	"[ \"\$(jq -r '[.groups[0].configurations[].significant, .groups[0].summary.significant] | map(tostring) | join(\" \")' '$tmp/sig.json')\" = 'true false null 1' ]"
# Paired only where both sides ran the same repeats.
grep -v ',1024,bytes,1,compact,4,' $SA >"$tmp/sa4.csv"
threadreport -f csv --compare $SB "$tmp/sa4.csv" 2>/dev/null | tr , '\t' >"$tmp/sig4.tsv"
check "4 repeats against 5: no paired ratio there, the ratio of medians stays" bash -c \
	"[ \"\$(tcol '$tmp/sig4.tsv' size ratio ratio_paired | sed -n 2p | tr '\t' ' ')\" = '1024 1.009615385 ' ]"
threadreport --compare $SB $SB >"$tmp/out" 2>/dev/null
check "a file against itself: ~ everywhere, no significant change" bash -c \
	"[ \$(grep -cE ' ~ p=' '$tmp/out') -eq 3 ] && grep -qx '  summary: no significant change (3 configurations)' '$tmp/out'"

# --- Sides chosen by a column of any files.
cat $B >"$tmp/ab.csv"
tail -n +2 $A >>"$tmp/ab.csv"
threadreport --compare-by host=h1,host=h2 "$tmp/ab.csv" >"$tmp/out" 2>/dev/null
st=$?
check "--compare-by host=h1,host=h2: exit 0, the same ratios as the files" bash -c \
	"[ $st -eq 0 ] && grep -q '^== before: host=h1' '$tmp/out' && grep -qE '^8192 bytes +compact +1 +1\.00 kB/s ±0% +3\.40 kB/s ±3% +3\.40 ' '$tmp/out'"
threadreport --compare-by impl='SoftHSM2 token,OpenSSL default' "$tmp/ab.csv" >"$tmp/out" 2>/dev/null
st=$?
check "--compare-by impl=A,B names the sides in that order: the inverse ratio" bash -c \
	"[ $st -eq 0 ] && grep -qE '^8192 bytes +compact +1 +3\.40 kB/s ±3% +1\.00 kB/s ±0% +0\.29 ' '$tmp/out'"
# A library switched under the same backend: the versions column tells the
# sides apart (it is never part of a series, so the rows are one series in
# the normal report).
printf '%s\n' 'workload,algorithm,backend,versions,size,threads,policy,repeat,rate' \
	'w,sha256,evp,lib 1.0,16,1,compact,0,100' 'w,sha256,evp,lib 1.1,16,1,compact,0,250' \
	'w,sha256,evp,lib 1.0,16,1,compact,1,100' 'w,sha256,evp,lib 1.1,16,1,compact,1,250' >"$tmp/v.csv"
threadreport --compare-by versions "$tmp/v.csv" >"$tmp/out" 2>/dev/null
st=$?
check "--compare-by versions: lib 1.0 before, lib 1.1 after, ratio 2.50, n 2+2" bash -c \
	"[ $st -eq 0 ] && grep -qx '== before: versions=lib 1.0' '$tmp/out' && grep -qE '^16 bytes +compact +1 +100 ±0% +250 ±0% +2\.50 +2\.50\.\.2\.50 +2\.50 +~ p=0\.194 n=2\+2$' '$tmp/out'"
# A library upgrade measured through both backends: each side holds evp and
# pkcs11 (backend is then part of a configuration), and evp's impl names
# the new OpenSSL; evp matches evp and pkcs11 pkcs11 all the same.
printf '%s\n' 'workload,algorithm,backend,impl,size,threads,policy,rate' \
	'w,sha256,evp,OpenSSL 3.0,16,1,compact,100' 'w,sha256,pkcs11,SoftHSM2,16,1,compact,40' >"$tmp/up0.csv"
printf '%s\n' 'workload,algorithm,backend,impl,size,threads,policy,rate' \
	'w,sha256,evp,OpenSSL 3.5,16,1,compact,300' 'w,sha256,pkcs11,SoftHSM2,16,1,compact,20' >"$tmp/up1.csv"
threadreport -f tsv --compare "$tmp/up0.csv" "$tmp/up1.csv" >"$tmp/out" 2>/dev/null
st=$?
check "evp and pkcs11 on both sides, a new OpenSSL: evp 3.00, pkcs11 0.50" bash -c \
	"[ $st -eq 0 ] && [ \"\$(tcol '$tmp/out' measured before_backend after_backend after_impl ratio | tr '\t' ' ')\" = \"\$(printf '%s\n' 'both evp evp OpenSSL 3.5 3' 'both pkcs11 pkcs11 SoftHSM2 0.5')\" ]"
# One side holding two hosts: the host is then part of a configuration.
sed 's/^h2,/h1,/' $A >"$tmp/a1.csv"
tail -n +2 $A >>"$tmp/a1.csv"
threadreport -f tsv --compare $B "$tmp/a1.csv" >"$tmp/out" 2>/dev/null
check "a side of two hosts: matched host by host, the other host's configurations after only" bash -c \
	"[ \"\$(tcol '$tmp/out' measured after_host | sort | uniq -c | awk '{print \$1 \$2 \$3}' | tr '\n' ' ')\" = '1afterh1 4afterh2 1before 3bothh1 ' ]"

# --- Bad input: one line, exit 2.
bad() { # NAME EXPECTED-TEXT ARGS...
	local name=$1 want=$2
	shift 2
	threadreport "$@" >"$tmp/out" 2>"$tmp/err"
	local st=$?
	check "$name: exit 2, '$want' (got $st: $(head -c 200 "$tmp/err"))" bash -c \
		"[ $st -eq 2 ] && [ ! -s '$tmp/out' ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF -- \"\$1\" '$tmp/err'" _ "$want"
}
bad "files that share no configuration" "share no configuration" --compare $B $d/compare-none.csv
bad "a missing file" "cannot read '/nonexistent.csv'" --compare $B /nonexistent.csv
bad "an empty file" "is empty" --compare $d/empty.csv $A
bad "three files" "3 files given, allowed exactly two" --compare $B $A $A
bad "one file" "1 file given, allowed exactly two" --compare $B
bad "a column not known" "column 'cpus' not known, choices are: host backend impl versions" --compare-by cpus $B
bad "a column of one value" "column 'backend' has only one value" --compare-by backend $B
sed 's/,evp,/,kernel,/' $B >"$tmp/third.csv"
bad "a column of three values" "has more than two values ('evp', 'pkcs11', 'kernel', ...)" --compare-by backend "$tmp/ab.csv" "$tmp/third.csv"
bad "a value no row has" "no row has impl 'nope'" --compare-by impl=nope,impl=SoftHSM2\ token "$tmp/ab.csv"
bad "one value twice" "names one value twice" --compare-by host=h1,h1 "$tmp/ab.csv"
bad "--cutoffs with --compare" "give one of them" --cutoffs --compare $B $A
printf 'workload,threads,rate,backend\nw,1,10,"a\nb"\nw,1,20,c\nw,1,30,d\n' >"$tmp/nl.csv"
bad "three values, one holding a newline: still one line" "('a\\nb', 'c', 'd', ...)" --compare-by backend "$tmp/nl.csv"
printf 'workload,threads,rate\nw,1,fast\n' >"$tmp/norows.csv"
threadreport --compare "$tmp/norows.csv" $A >"$tmp/out" 2>"$tmp/err"
st=$?
check "a file without a usable row: exit 2, the row named, then the side (got $st)" bash -c \
	"[ $st -eq 2 ] && [ ! -s '$tmp/out' ] && grep -q 'norows.csv:2: column .rate.: .fast.' '$tmp/err' &&
	 grep -qF \"threadreport: compare: before '$tmp/norows.csv' has no usable rows\" '$tmp/err'"
# A median of 0 before: no ratio, never inf.
printf 'workload,threads,rate,size\nw,1,0,16\nw,1,5,32\n' >"$tmp/z0.csv"
printf 'workload,threads,rate,size\nw,1,7,16\nw,1,10,32\n' >"$tmp/z1.csv"
threadreport --compare "$tmp/z0.csv" "$tmp/z1.csv" >"$tmp/out" 2>/dev/null
st=$?
check "a median of 0 before: ratio n/a, the summary from the others" bash -c \
	"[ $st -eq 0 ] && grep -qE '^16 bytes +- +1 +0 +7\.00 ±0% +n/a +n/a\.\.n/a' '$tmp/out' && grep -qx '  summary: no significant change (1 configuration)' '$tmp/out' && ! grep -q inf '$tmp/out'"
threadreport -f json --compare "$tmp/z0.csv" "$tmp/z1.csv" 2>/dev/null | jq -e '.groups[0].configurations[0].ratio == null' >/dev/null
check "json: that ratio is null" [ $? -eq 0 ]

# --- Hostile names: data in every format, never code.
threadreport -f csv --compare-by backend $d/compare-hostile.csv >"$tmp/out" 2>/dev/null
st=$?
check "csv: formulas guarded, commas quoted (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ \$(grep -cF \",t2accel,'=1+2,bytes/s,\" '$tmp/out') -eq 2 ] && [ \$(grep -cF ',\"c,d\",' '$tmp/out') -eq 2 ]"
check "csv: @ guarded in a backend" grep -qF ",'@cmd," "$tmp/out"
threadreport -f tsv --raw --compare-by backend $d/compare-hostile.csv >"$tmp/out" 2>/dev/null
check "tsv --raw: the names exactly" bash -c "cut -f4 '$tmp/out' | grep -qx '=1+2'"
threadreport -f markdown --compare-by backend $d/compare-hostile.csv 2>/dev/null | cmark-gfm -e table |
	awk '/<tr>/ {n = 0; rows++} /<t[dh]/ {n++} /<\/tr>/ && n != 10 {bad = 1} END {exit bad || rows != 3}'
check "markdown: a '|' in a policy keeps 10 cells a row" [ $? -eq 0 ]
printf 'workload,threads,rate,backend\n"w\377x",1,10,a\n"w\377x",1,20,b\n' >"$tmp/utf.csv"
threadreport -f json --compare-by backend "$tmp/utf.csv" 2>/dev/null | jq -r '.groups[0].workload, .groups[0].configurations[0].ratio, .warnings[-1].kind' | tr '\n' ' ' >"$tmp/out"
check "json: a bad byte replaced and counted, valid JSON" [ "$(cat "$tmp/out")" = $'w\xef\xbf\xbdx 2 encoding ' ]
if command -v gnuplot >/dev/null; then
	mkdir -p "$tmp/hfig"
	sed "s|CANARY|$tmp/PWNED|" $d/compare-hostile.csv >"$tmp/hostile.csv"
	plot/threadplot --compare-by backend "$tmp/hostile.csv" -o "$tmp/hfig" >/dev/null 2>"$tmp/err"
	st=$?
	check "threadplot --compare-by on hostile names: drawn (got $st), nothing ran" bash -c \
		"[ $st -eq 0 ] && [ -s '$tmp/hfig/ratio.png' ] && [ ! -e '$tmp/PWNED' ] && grep -q '=1+2' '$tmp/hfig/ratio.svg'"
	# Ten thread counts, nine of them at two sizes: the 8 lines drawn are
	# those with the most sizes, and the rest is said.
	{ echo 'workload,threads,rate,size'; for t in 1 2 3 4 5 6 7 8 9 10; do
		echo "w,$t,10,16"; [ $t -eq 10 ] || echo "w,$t,10,32"; done; } >"$tmp/l0.csv"
	sed 's/,10,\([0-9]*\)$/,20,\1/' "$tmp/l0.csv" >"$tmp/l1.csv"
	plot/threadplot --compare "$tmp/l0.csv" "$tmp/l1.csv" -o "$tmp/hfig" >/dev/null 2>"$tmp/err"
	st=$?
	check "threadplot --compare, 10 lines: 8 drawn, said on stderr, the one-size line left out" bash -c \
		"[ $st -eq 0 ] && grep -q '10 policy x thread lines; drawing the 8 measured at the most sizes' '$tmp/err' &&
		 grep -q -- '- 8 threads' '$tmp/hfig/ratio.svg' && ! grep -q -- '- 10 threads' '$tmp/hfig/ratio.svg'"
	plot/threadplot --compare $B $d/compare-none.csv -o "$tmp/hfig" >/dev/null 2>"$tmp/err"
	st=$?
	check "threadplot --compare, nothing shared: exit 2 with threadreport's line" bash -c \
		"[ $st -eq 2 ] && grep -q 'share no configuration' '$tmp/err'"
else
	skip "no gnuplot: hostile names in the ratio figure"
	skip "no gnuplot: nothing shared"
	skip "no gnuplot: ten lines"
fi
