# threadreport -f html: one page, valid HTML5 (Debian's python3-html5lib
# parses it without an error), its tables the csv's numbers, nothing from
# outside it, and data never markup: hostile names stay text.
. "$(dirname "$0")/tap.bash"
set -o pipefail
d=tests/data
py=/usr/bin/python3
if ! $py -c 'import html5lib' 2>/dev/null; then
	skip "python3-html5lib is not installed (sh src/install-deps check)"
	exit 0
fi

# The checker: page.py PAGE.html CSV [hostile]: the parse's errors, each
# series table against the csv's rows of that series, the elements and
# attributes against the page's own, no outside resource.  One line per
# problem on stdout; nothing when all is well.
cat >"$tmp/page.py" <<'EOF'
import csv, re, sys
import html5lib

page, table = sys.argv[1], sys.argv[2]
raw = open(page, 'rb').read()
p = html5lib.HTMLParser(strict=False, namespaceHTMLElements=False)
doc = p.parse(raw)
for pos, err, extra in p.errors:
    print('parse error at %s: %s %s' % (pos, err, extra))

# Only the page's own elements and attributes, whatever the data held.
tags = set('html head meta title style body main h1 h2 h3 p section div table thead tbody tr th td '
           'ul li a pre figure figcaption svg desc text line rect polyline circle g'.split())
attrs = set('lang charset name content id class href scope data-value width height viewbox role x y '
            'x1 y1 x2 y2 text-anchor fill stroke stroke-width points cx cy r transform'.split())
def local(t):
    return t.split('}')[-1]
for el in doc.iter():
    if not isinstance(el.tag, str):
        continue
    if local(el.tag) not in tags:
        print('element from nowhere: <%s>' % local(el.tag))
    for a, v in el.attrib.items():
        if local(a).lower() not in attrs:
            print('attribute from nowhere: %s=%r on <%s>' % (a, v, local(el.tag)))
        if local(a) == 'href' and not re.fullmatch(r'#series-[0-9]+', v):
            print('a link outside the page: %r' % v)
for st in doc.iter('style'):
    if re.search(r'url\(|@import', st.text or ''):
        print('the style loads something')
if len(sys.argv) < 4 and re.search(rb'https?://|src=', raw):
    print('a reference to outside the page')

# Each series' table: the csv's rows of that series, in order, with the
# same values where a column heads both (data-value: the exact number).
rows = list(csv.DictReader(open(table, newline='')))
sections = [s for s in doc.iter('section') if re.fullmatch(r'series-[0-9]+', s.get('id', ''))]
series = sorted({int(r['series']) for r in rows})
if [int(s.get('id')[7:]) for s in sections] != series:
    print('series sections %s, csv series %s' % ([s.get('id') for s in sections], series))
checked = 0
for s in sections:
    t = s.find('.//table')
    if t is None:
        print('%s has no table' % s.get('id'))
        continue
    head = [''.join(th.itertext()) for th in t.iter('th')]
    want = [r for r in rows if r['series'] == s.get('id')[7:]]
    got = t.findall('./tbody/tr')
    if len(got) != len(want):
        print('%s: %d rows, csv %d' % (s.get('id'), len(got), len(want)))
    for tr, r in zip(got, want):
        for h, td in zip(head, tr.findall('td')):
            if h not in r:
                continue
            v = td.get('data-value')
            v = ''.join(td.itertext()) if v is None else v
            if r[h] == '' and v in ('n/a', '-', ''):
                continue
            if v != r[h]:
                print('%s %s %s: html %r, csv %r' % (s.get('id'), r['policy'], h, v, r[h]))
            checked += 1
print('checked %d' % checked, file=sys.stderr)
if not checked:
    print('no value compared')
EOF

# Real files of every kind: verdicts, flags, latency, counters, cluster
# ranks, cutoffs, drift, markup, hostile names of --compare.
for f in verdicts busy flagged latency counters cluster-ranks cutoff drift-step handmade published-scale markup compare-hostile; do
	threadreport -f html "$d/$f.csv" >"$tmp/$f.html" 2>"$tmp/err"
	st=$?
	threadreport --raw -f csv "$d/$f.csv" >"$tmp/$f.csv" 2>/dev/null
	case $f in markup | compare-hostile) hostile=hostile ;; *) hostile= ;; esac
	$py "$tmp/page.py" "$tmp/$f.html" "$tmp/$f.csv" $hostile >"$tmp/problems" 2>"$tmp/checked"
	check "$f.csv: exit 0 (got $st), a page that parses without an error, tables as the csv's ($(cat "$tmp/checked"))" \
		bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ $st "$tmp/problems"
	[ -s "$tmp/problems" ] && sed 's/^/# /' "$tmp/problems" | head -5
done

page=$tmp/verdicts.html
check "the page: doctype, lang, charset, viewport, a title" bash -c \
	'head -c 15 "$1" | grep -qx "<!DOCTYPE html>" && grep -q "<html lang=\"en\">" "$1" && grep -q "<meta charset=\"utf-8\">" "$1" &&
	 grep -q "name=\"viewport\"" "$1" && grep -q "<title>threadreport: " "$1"' _ "$page"
check "the page: its style inline, with print and narrow-screen rules, and no script" bash -c \
	'grep -q "<style>" "$1" && grep -q "@media print" "$1" && grep -q "@media (max-width" "$1" && ! grep -qi "<script" "$1"' _ "$page"
check "the page: summary, overview, series, warnings, machine" bash -c \
	'for id in summary overview series warnings machine; do grep -q "<section id=\"$id\">" "$1" || exit 1; done' _ "$page"
# A speedup figure per series with a speedup, a line where none has one.
read -r nall nsp < <(threadreport --raw -f csv $d/verdicts.csv 2>/dev/null |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { s[$1] = 1 } $(c["speedup"]) != "" { sp[$1] = 1 }
		END { print length(s), length(sp) }')
check "a speedup figure per series with a speedup ($nsp of $nall), with its title and caption" bash -c \
	'[ "$(grep -c "<svg[^>]*role=\"img\"><title>Speedup against threads: " "$1")" -eq "$2" ] &&
	 [ "$(grep -c "<figcaption>Speedup against" "$1")" -eq "$2" ] && [ "$(grep -c "<p>No speedup figure: " "$1")" -eq "$(($3 - $2))" ]' \
	_ "$page" "$nsp" "$nall"
check "verdicts.csv: a heat map per policy where they planned apart somewhere" bash -c \
	'[ "$(grep -o "<title>Efficiency of [^<]*" "$1" | tr "\n" ";")" = "<title>Efficiency of compact, series x threads;<title>Efficiency of scatter, series x threads;<title>Efficiency of none, series x threads;" ]' _ "$page"
awk -F, 'NR == 1 || $3 == "rsa-sign"' $d/verdicts.csv >"$tmp/same.csv"
check "compact and scatter planning the same PUs in every series: one heat map" bash -c \
	'[ "$(threadreport -f html "$1" 2>/dev/null | grep -o "<title>Efficiency of [^<]*")" = "<title>Efficiency of compact = scatter, series x threads" ]' _ "$tmp/same.csv"
check "flagged.csv: a flagged point is marked ! in the overview" grep -qE '>[0-9.]+!</text>' "$tmp/flagged.html"
check "cutoff.csv: the cutoffs are on the page" grep -q 'cutoffs between backends' "$tmp/cutoff.html"
check "latency.csv: the latency table is on the page" grep -q '<th scope="col">p99.9</th>' "$tmp/latency.html"
check "busy.csv: a rate cell carries its unit" grep -q '<td data-value="90">90.0 B/s</td>' "$tmp/busy.html"
check "verdicts.csv: every row read is one the tables count: no 'of N read'" bash -c \
	'grep -q "<p>4 series from 38 rows\. " "$1" && ! grep -q " read: " "$1"' _ "$tmp/verdicts.html"
threadrun -q --sweep 1 --repeat 2 -o "$tmp/sw.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
check "a sweep's file: the first line counts the 2 rows its tables count, of the 4 read (threadrun's run rows left out)" \
	bash -c 'threadreport -f html "$1" 2>/dev/null | grep -q "<p>1 series from 2 rows (of 4 read: threadrun.s whole-run rows where the program wrote its own"' _ "$tmp/sw.csv"

# Hostile names in every text column the page shows, the machine's and the
# versions' too (sh/plot_hostile's, and markup: tags, handlers, quotes,
# control characters, bytes that are not UTF-8).
hostile=(
	"<script>alert(1)</script>"
	"<img src=x onerror=alert(2)>"
	"\"><svg onload=alert(3)>"
	"' onmouseover='alert(4)"
	"x'.system('touch CANARY').'"
	"\`touch CANARY\` \$(touch CANARY)"
	$'line\nbreak\ttab\x1b[31mred\x07'
	"</title></svg></table><iframe src=//x>"
	"&amp; &lt;b&gt; &#60;i&#62;"
	$'bad \xff\xfe utf-8 \xc2\x9b'
	"%s%n%x =1+2 back\\slash\\"
	"<!-- --> <![CDATA[ ]]> <?php ?>"
)
nh=${#hostile[@]}
q() { local s=${1//\"/\"\"}; printf '"%s"' "$s"; }
h() { q "${hostile[$(($1 % nh))]}"; }
res=$tmp/hostile.csv
echo "host,cpu_model,topology,versions,workload,algorithm,backend,impl,size,size_unit,threads,policy,repeat,rate,unit,cores,pus,verified" >"$res"
for ((i = 0; i < nh; i++)); do
	for p in 4 5; do
		for t in 1 2; do
			for r in 0 1 2; do
				echo "$(h $((i + 6))),$(h $((i + 7))),$(h $((i + 8))),$(h $((i + 9))),$(h $i),$(h $((i + 1))),$(h $((i + 2))),$(h $((i + 3))),16,bytes,$t,$(h $((i + p))),$r,$((t * 100 - p + r)),bytes/s,2,4,yes"
			done
		done
	done
done >>"$res"
threadreport -f html "$res" >"$tmp/h.html" 2>"$tmp/err"
st=$?
threadreport --raw -f csv "$res" >"$tmp/h.csv" 2>/dev/null
$py "$tmp/page.py" "$tmp/h.html" "$tmp/h.csv" hostile >"$tmp/problems" 2>"$tmp/checked"
check "$nh hostile names in every field: exit 0 (got $st), parses, no element or attribute of theirs, tables as the csv's" \
	bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ $st "$tmp/problems"
[ -s "$tmp/problems" ] && sed 's/^/# /' "$tmp/problems" | head -5
check "the names show as text: <script> and onerror= as entities" bash -c \
	'grep -qF "&lt;script&gt;alert(1)&lt;/script&gt;" "$1" && grep -qF "&lt;img src=x onerror=alert(2)&gt;" "$1" && grep -qF "&quot;&gt;&lt;svg onload" "$1"' _ "$tmp/h.html"
check "the machine section names the hostile CPU model and versions as text" bash -c \
	'sed -n "/<section id=\"machine\">/,/<\/section>/p" "$1" | grep -qF "&lt;/title&gt;&lt;/svg&gt;"' _ "$tmp/h.html"
check "control characters and bad bytes are shown, not written" bash -c \
	'! LC_ALL=C grep -q "[[:cntrl:]]" <(tr -d "\n\t" <"$1") && grep -qF "\\x1b[31mred" "$1" && grep -qF "\\xff" "$1"' _ "$tmp/h.html"

# The page is the report's view: the other views refuse it.
for v in --cutoffs --cluster --hosts; do
	threadreport -f html $v $d/cutoff.csv >/dev/null 2>"$tmp/err"
	st=$?
	check "-f html $v: exit 2 (got $st), naming what it takes" bash -c '[ "$1" -eq 2 ] && grep -q "html is the whole report" "$2"' _ $st "$tmp/err"
done
threadreport -f html --compare $d/compare-before.csv $d/compare-after.csv >/dev/null 2>"$tmp/err"
check "-f html --compare: exit 2 (got $?)" grep -q "html is the whole report" "$tmp/err"
