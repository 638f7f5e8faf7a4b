# threadrun --metric: any program's own figure is the row's rate (group 1
# of the last output line its regex matches), swept and reported like a
# workload's; the output still reaches the terminal or the sweep's log.
. "$(dirname "$0")/tap.bash"
set -o pipefail

# Bad regexes are usage errors: one line naming them, exit 2, nothing run.
threadrun -q -o "$tmp/b.csv" --metric 'Triad: +([0-9.]+' --sweep 1 -- omp_triad 2>"$tmp/b.err"
check "bad regex: exit 2 ($?), one line naming it and PCRE2's reason" \
	bash -c "[ $? -eq 2 ] && [ \$(wc -l <'$tmp/b.err') -eq 1 ] && grep -q \"^threadrun: metric: 'Triad: +(\[0-9.\]+' is not a Perl-compatible regex (PCRE2): missing closing parenthesis at offset 16\$\" '$tmp/b.err' && [ ! -e '$tmp/b.csv' ]"
threadrun -q -o "$tmp/b.csv" --metric 'Triad: +[0-9.]+' --sweep 1 -- omp_triad 2>"$tmp/b.err"
check "regex without a group: exit 2 ($?), said, nothing run" \
	bash -c "[ $? -eq 2 ] && [ \$(wc -l <'$tmp/b.err') -eq 1 ] && grep -q 'has no capture group' '$tmp/b.err' && [ ! -e '$tmp/b.csv' ]"

# The tests' own OpenMP triad (tests/progs/omp_triad.c), swept 1-2 (in that
# order: the checks read the rows in it).
threadrun -q --order fixed --metric 'Triad: +([0-9.]+)' --unit MB/s --sweep 1-2 -o "$tmp/t.csv" -- omp_triad
check "triad sweep: exit 0" [ $? -eq 0 ]
results_get "$tmp/t.csv" algorithm threads unit rate status >"$tmp/t.rows"
check "triad sweep: rows read back" [ $? -eq 0 ]
check "triad sweep: one MB/s row per thread count, named metric" \
	[ "$(awk -F'\t' '$1 == "metric" && $3 == "MB/s" && $4 > 0 && $5 == 0 {print $2}' "$tmp/t.rows" | tr '\n' ' ')" = "1 2 " ]
want=$(grep '^Triad:' "$tmp/t.csv.log" | awk '{print $2}' | tr '\n' ' ')
got=$(awk -F'\t' '$1 == "metric" {print $4}' "$tmp/t.rows" | tr '\n' ' ')
check "triad sweep: the rates are the figures printed ($got / $want)" [ -n "$got" ] && [ "$got" = "$want" ]
threadreport --exact "$tmp/t.csv" >"$tmp/t.report" 2>/dev/null
check "threadreport: exit 0" [ $? -eq 0 ]
check "threadreport: MB/s, not runs/s" bash -c "grep -q '^== omp_triad metric .*MB/s' '$tmp/t.report' && ! grep -q 'runs/s' '$tmp/t.report'"
check "threadreport: a speedup for 2 threads" \
	awk '$1 == "policy" { for (i = 1; i <= NF; i++) if ($i == "speedup") col = i }
	     col && $1 == "compact" && $2 == 2 && $col ~ /^[0-9]+\.[0-9]+$/ { found = 1 }
	     END { exit !found }' "$tmp/t.report"

# Several metrics, named, one unit each; unnamed ones are metric1, metric2.
threadrun -q --metric 'Triad=Triad: +([0-9.]+)' --metric 'Threads=^Threads: ([0-9]+)$' \
	--unit MB/s --unit threads --sweep 1-2 -o "$tmp/n.csv" -- omp_triad
check "named metrics: exit 0" [ $? -eq 0 ]
results_get "$tmp/n.csv" algorithm threads unit rate >"$tmp/n.rows"
check "named metrics: Triad in MB/s twice" [ "$(grep -c '^Triad	[12]	MB/s	' "$tmp/n.rows")" = 2 ]
check "named metrics: Threads is each run's own thread count" \
	[ "$(awk -F'\t' '$1 == "Threads" && $3 == "threads" && $4 == $2' "$tmp/n.rows" | wc -l)" = 2 ]
threadrun -q -o "$tmp/u.csv" --metric 'a: ([0-9]+)' --metric 'b: ([0-9]+)' --unit s 1 \
	sh -c 'echo a: 1; echo b: 2' >/dev/null
check "unnamed metrics: exit 0" [ $? -eq 0 ]
check "unnamed metrics: metric1 and metric2, the one unit for both" \
	[ "$(results_get "$tmp/u.csv" algorithm unit rate | grep -v '^(run)' | tr '\t\n' ', ')" = "metric1,s,1 metric2,s,2 " ]

# The last matching line counts; a last line without a newline is read.
threadrun -q -o "$tmp/l.csv" --metric 'T=rate ([0-9.e]+)' 1 \
	sh -c 'echo rate 1; echo rate 2.5; printf "rate 3e2"' >/dev/null
check "last match: exit 0, default unit 'value'" \
	[ "$?:$(results_get "$tmp/l.csv" algorithm rate unit | grep '^T')" = "0:T	3e2	value" ]

# The output still goes where it went: stdout and stderr apart on a single
# run, both into FILE.log in a sweep.
threadrun -q -o "$tmp/o.csv" --metric 'x ([0-9]+)' 1 sh -c 'echo out x 1; echo err x 2 >&2' \
	>"$tmp/o.out" 2>"$tmp/o.err"
check "single run: stdout still on stdout" [ "$(cat "$tmp/o.out")" = "out x 1" ]
check "single run: stderr still on stderr" [ "$(cat "$tmp/o.err")" = "err x 2" ]
check "single run: stderr is scanned too" [ "$(results_get "$tmp/o.csv" algorithm rate | grep '^metric')" = "metric	2" ]
check "sweep: the program's output is in the log" \
	[ "$(grep -c '^Threads: [12]$' "$tmp/t.csv.log")" = 2 ]

# No match: that row fails with a note naming the metric and the regex,
# the sweep counts the run failed and goes on.
# The 2-thread run finds its figure only once "$tmp/fixed" exists: the same
# command then resumes (another command would be another configuration).
triad2='if [ "$OMP_NUM_THREADS" = 2 ]; then [ -e "$0" ] && echo "Triad: 6"; else echo "Triad: 5"; fi; true'
# --order fixed: the checks name the runs by their place (run 2 of 2).
threadrun --order fixed --metric 'Triad: +([0-9.]+)' --sweep 1-2 -o "$tmp/f.csv" -- \
	sh -c "$triad2" "$tmp/fixed" 2>"$tmp/f.err"
check "no match: the sweep exits 1" [ $? -eq 1 ]
check "no match: the sweep goes on (2 runs, 1 failed)" grep -q 'sweep done: 2 runs, 1 failed' "$tmp/f.err"
check "no match: said on stderr" grep -q "run 2 of 2 (2 threads, compact, repeat 0) failed: metric 'metric': no line of the output matched 'Triad: +(\[0-9.\]+)'" "$tmp/f.err"
results_get "$tmp/f.csv" algorithm threads rate status note >"$tmp/f.rows"
check "no match: 1 thread measured" grep -q '^metric	1	5	0	' "$tmp/f.rows"
check "no match: the 2-thread row failed, no rate, the note names metric and regex" \
	grep -qF "metric	2		1	metric 'metric': no line of the output matched 'Triad: +([0-9.]+)'" "$tmp/f.rows"
check "no match: the run row says failed, so --resume reruns it" grep -q '^(run)	2	.*	1	' "$tmp/f.rows"
: >"$tmp/fixed"
threadrun -q --resume --order fixed --metric 'Triad: +([0-9.]+)' --sweep 1-2 -o "$tmp/f.csv" -- sh -c "$triad2" "$tmp/fixed"
check "no match, --resume: the failed run is made again, the other skipped" \
	[ "$?:$(results_get "$tmp/f.csv" algorithm threads rate status | grep '^metric' | tr '\t\n' ', ')" = "0:metric,1,5,0 metric,2,,1 metric,2,6,0 " ]
threadrun -q -o "$tmp/s.csv" --metric 'Triad: +([0-9.]+)' 1 true 2>"$tmp/s.err"
check "no match, single run: exit 1" [ $? -eq 1 ]
check "no match, single run: one line naming it" \
	[ "$(cat "$tmp/s.err")" = "threadrun: metric 'metric': no line of the output matched 'Triad: +([0-9.]+)'" ]
threadrun -q -o "$tmp/s2.csv" --metric 'A=a: ([0-9]+)' --metric 'B=b: ([0-9]+)' --metric 'C=c: ([0-9]+)' \
	1 sh -c 'echo b: 2' >/dev/null 2>"$tmp/s2.err"
check "two metrics without a figure: exit 1 ($?), one line naming the first and counting the other" \
	[ "$?:$(cat "$tmp/s2.err")" = "1:threadrun: metric 'A': no line of the output matched 'a: ([0-9]+)'; and 1 more metric without a figure (the rows' notes say why)" ]
check "two metrics without a figure: the third is measured" \
	[ "$(results_get "$tmp/s2.csv" algorithm rate status | grep -v '^(run)' | tr '\t\n' ', ')" = "A,,1 B,2,0 C,,1 " ]

# A run without its figure is never a measurement in the report: no point,
# no speedup, no runs/s row in its place, and one line counts it.
half='if [ "$OMP_NUM_THREADS" = 2 ]; then echo none; else echo "Triad: 5"; fi'
threadrun -q -o "$tmp/r.csv" --metric 'Triad: +([0-9.]+)' 1 sh -c "$half" >/dev/null 2>&1
threadrun -q -o "$tmp/r.csv" --metric 'Triad: +([0-9.]+)' 2 sh -c "$half" >/dev/null 2>&1
threadreport "$tmp/r.csv" >"$tmp/r.out" 2>"$tmp/r.err"
check "no figure, threadreport: exit 0 ($?), the 1-thread point only, no runs/s" bash -c \
	"grep -Eq '^compact +1 +5\.00 ' '$tmp/r.out' && ! grep -Eq '^compact +2 ' '$tmp/r.out' && ! grep -q 'runs/s' '$tmp/r.out'"
check "no figure, threadreport: one line, the row of a failed run skipped (not 'malformed')" \
	[ "$(cat "$tmp/r.err")" = "threadreport: 1 row of a failed run (status not 0) skipped, not a measurement: $tmp/r.csv:4 (status 1)" ]

# What the group captured must be a plain non-negative decimal number.
for text in fast -5 1,5 0x10 inf 1e19; do
	threadrun -q -o "$tmp/x.csv" --metric 'Triad: +([^ ]+)' 1 sh -c "echo 'Triad: $text MB/s'" >/dev/null 2>"$tmp/x.err"
	st=$?
	check "capture '$text': exit 1 ($st), named" bash -c "[ $st -eq 1 ] && grep -qF \"metric 'metric': '$text' (group 1 of 'Triad: +([^ ]+)') is not a plain non-negative decimal number\" '$tmp/x.err'"
done
check "non-numbers: failed rows with empty rates" \
	[ "$(results_get "$tmp/x.csv" algorithm rate status | grep -c '^metric		1$')" = 6 ]

# The program failed: its figure is no measurement.
threadrun -q -o "$tmp/e.csv" --metric 'Triad: +([0-9.]+)' 1 sh -c 'echo "Triad: 9"; exit 3' >/dev/null
check "failed program: its status" [ $? -eq 3 ]
check "failed program: the row has its status and no rate" \
	[ "$(results_get "$tmp/e.csv" algorithm rate status | grep '^metric')" = "metric		3" ]

# A huge line (4 MiB, no newline for most of it) passes through whole; it is
# matched in its first 64 KiB only, and memory stays bounded.
cat >"$tmp/huge.sh" <<'EOF'
printf 'Triad: 1.5 '; head -c 4194304 /dev/zero | tr '\0' 'x'; printf ' Triad: 9.9\n'
head -c 200000 /dev/zero | tr '\0' 'y'; printf ' Other: 7\n'
EOF
threadrun -q -o "$tmp/h.csv" --metric 'A=Triad: ([0-9.]+)' --metric 'B=Other: ([0-9]+)' 1 \
	bash "$tmp/huge.sh" >"$tmp/h.out" 2>"$tmp/h.err"
st=$?
check "huge line: exit 1 ($st), no crash" [ "$st" -eq 1 ]
check "huge line: every byte reached stdout" [ "$(wc -c <"$tmp/h.out")" -eq $((11 + 4194304 + 12 + 200000 + 10)) ]
check "huge line: matched in its first part" [ "$(results_get "$tmp/h.csv" algorithm rate | grep '^A')" = "A	1.5" ]
check "huge line: a match past the bound is not read" grep -q "metric 'B': no line of the output matched" "$tmp/h.err"

# A process that leaves the program's group and keeps its output open does
# not hold threadrun: what the pipes hold when the program ends counts.
timeout 4 threadrun -q -o "$tmp/d.csv" --metric 'v ([0-9]+)' 1 \
	sh -c 'echo v 4; setsid sleep 6 >/dev/stdout 2>&1 </dev/null & exit 0' >/dev/null
check "a lingering child: threadrun ends ($?)" [ $? -eq 0 ]
check "a lingering child: the figure is read" [ "$(results_get "$tmp/d.csv" algorithm rate | grep '^metric')" = "metric	4" ]

# A reader that goes away (| head -1): the program meets the broken pipe as
# it would without threadrun in between, and nothing hangs.
timeout 10 threadrun -q -o "$tmp/p.csv" --metric 'x ([0-9]+)' 1 sh -c 'yes "x 1"' | head -1 >/dev/null
st=("${PIPESTATUS[@]}")
check "broken pipe: the program dies of SIGPIPE, threadrun says so (${st[*]})" [ "${st[0]}" -eq 141 ]
check "broken pipe: the row has its status" [ "$(results_get "$tmp/p.csv" algorithm status | grep '^metric')" = "metric	141" ]

# The matcher costs what grep costs.  Two 64 KiB lines of digits that do not
# match: glibc's regexec took 8 to 20 s on each (it retried from every byte),
# PCRE2 a millisecond.  6 s is a bound for a hang, not a speed asserted.
cat >"$tmp/long.sh" <<'EOF2'
l=$(head -c 65530 /dev/zero | tr '\0' 1)' MB/x s'
printf '%s\n%s\nTriad 2.5 MB/s\n' "$l" "$l"
EOF2
timeout -s KILL 6 threadrun -q -o "$tmp/g.csv" --metric 'T=([0-9.]+) MB/s' 1 bash "$tmp/long.sh" >"$tmp/g.out"
st=$?
check "long lines without a match: done in 6 s with the figure ($st)" \
	[ "$st:$(results_get "$tmp/g.csv" algorithm rate | grep '^T')" = "0:T	2.5" ]
check "long lines without a match: grep -E agrees" \
	[ "$(grep -E -c '([0-9.]+) MB/s' "$tmp/g.out")" = 1 ]

# The output is passed on while it is matched: the program sees its long
# line reach threadrun's stdout before it prints the figure (it waits 5 s;
# before, the line was held back while glibc's regexec went over it).
cat >"$tmp/seen.sh" <<'EOF2'
l=$(head -c 65530 /dev/zero | tr '\0' 1)' MB/x s'
printf '%s\n' "$l"
for i in $(seq 50); do
	[ "$(wc -c <"$1")" -ge 65537 ] && { echo 'Triad 3 MB/s'; exit 0; }
	sleep 0.1
done
echo 'held back'; exit 1
EOF2
threadrun -q -o "$tmp/w.csv" --metric 'T=([0-9.]+) MB/s' 1 bash "$tmp/seen.sh" "$tmp/w.out" >"$tmp/w.out"
check "output passed on while matching: the program saw its line go out ($?)" \
	[ "$?:$(results_get "$tmp/w.csv" algorithm rate | grep '^T')" = "0:T	3" ]

# SIGTERM while the tap matches such lines: threadrun ends at once (128+15),
# and the program with it.
cat >"$tmp/loop.sh" <<'EOF2'
echo $$ >"$1"
l=$(head -c 65530 /dev/zero | tr '\0' 1)' MB/x s'
while :; do printf '%s\n' "$l"; done
EOF2
threadrun -q -o "$tmp/k.csv" --metric 'T=([0-9.]+) MB/s' 1 bash "$tmp/loop.sh" "$tmp/k.pid" >/dev/null 2>&1 &
trpid=$!
for i in $(seq 100); do [ -s "$tmp/k.pid" ] && break; sleep 0.1; done
sleep 1
kill -TERM "$trpid"
for i in $(seq 60); do kill -0 "$trpid" 2>/dev/null || break; sleep 0.1; done
stuck=
kill -0 "$trpid" 2>/dev/null && { stuck=stuck; kill -KILL "$trpid"; }
wait "$trpid"
st=$?
check "SIGTERM while matching: threadrun ends within 6 s, status 143 ($st $stuck)" [ "$st:$stuck" = "143:" ]
prog=$(cat "$tmp/k.pid" 2>/dev/null)
for i in $(seq 50); do kill -0 "$prog" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM while matching: the program is stopped too" bash -c "[ -n '$prog' ] && ! kill -0 '$prog' 2>/dev/null"

# NUL bytes are read as grep -a reads them: the whole line is matched, the
# figure on the last matching line wins; a NUL inside the capture is no number.
threadrun -q -o "$tmp/z.csv" --metric 'rate ([0-9]+)' --metric 'ab=a.b ([0-9]+)' 1 \
	printf 'rate 1 a-b 3\nid\0rate 2\0\na\0b 4\n' >"$tmp/z.out"
check "NUL: exit 0 ($?)" [ $? -eq 0 ]
check "NUL: the figure after a NUL on the last matching line wins" \
	[ "$(results_get "$tmp/z.csv" algorithm rate | grep -v '^(run)' | tr '\t\n' ', ')" = "metric1,2 ab,4 " ]
check "NUL: grep -a matches those lines too" \
	[ "$(grep -a -c -E 'rate ([0-9]+)' "$tmp/z.out"):$(grep -a -o -E 'a.b ([0-9]+)' "$tmp/z.out" | tail -n 1 | tr '\0' '@')" = "2:a@b 4" ]
threadrun -q -o "$tmp/z2.csv" --metric 'v (.+)' 1 printf 'v 1\0002\n' >/dev/null 2>"$tmp/z2.err"
check "NUL in the capture: exit 1 ($?), no figure, shown as '?'" \
	bash -c "[ $? -eq 1 ] && grep -qF \"metric 'metric': '1?2' (group 1 of 'v (.+)') is not a plain\" '$tmp/z2.err'"

# A line the matcher gives up on (a regex that backtracks without end) after
# the last match: the figure is not known, and the note says why.
threadrun -q -o "$tmp/bt.csv" --metric 'v ([0-9]+)|^(x+x+)+y' 1 \
	sh -c 'echo v 3; echo xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >/dev/null 2>"$tmp/bt.err"
check "past the matcher's limits: exit 1 ($?), said in one line" \
	bash -c "[ $? -eq 1 ] && [ \$(wc -l <'$tmp/bt.err') -eq 1 ] && grep -qF \"metric 'metric': a line of 40 bytes after the last match took 'v ([0-9]+)|^(x+x+)+y' past the matcher's limits\" '$tmp/bt.err'"
check "past the matcher's limits: the row has no rate" \
	[ "$(results_get "$tmp/bt.csv" algorithm rate status | grep '^metric')" = "metric		1" ]
