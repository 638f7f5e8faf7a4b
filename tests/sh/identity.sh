# The identity of a measurement: run, seq and config on every row; what
# makes rows the same series, point and repeat (resume, repeats, reruns,
# processes); old files; the row contract rate = ops|bytes / wall_s.
. "$(dirname "$0")/tap.bash"
set -o pipefail

# n of every point of FILE, "POLICY THREADS N" per line.
points() { threadreport -f tsv "$@" 2>/dev/null | awk -F'\t' 'NR > 1 { print $10, $11, $12 }'; }

# The header: the identity columns right after repeat.
threadrun -q -o "$tmp/h.csv" 1 t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
check "header: run seq config job rank ranks local_rank launcher cpuset start_sync follow repeat" \
	grep -q '^time,.*,repeat,run,seq,config,job,rank,ranks,local_rank,launcher,cpuset,start_sync,ops,' "$tmp/h.csv"

# One launch, one run: the program's rows and threadrun's share run, and
# seq counts the run's rows in the order written.
threadrun -q --monitor -o "$tmp/m.csv" 1 t2accel -q -a md5,sha1 -s 16 -d 0.05 >/dev/null 2>&1
rows=$(results_get "$tmp/m.csv" algorithm run seq config)
check "one launch: three rows share one run" \
	[ "$(cut -f2 <<<"$rows" | sort -u | wc -l)" = 1 -a "$(wc -l <<<"$rows")" = 3 ]
check "one launch: seq 0 1 2, threadrun's row last" \
	[ "$(cut -f1,3 <<<"$rows" | tr '\t\n' '  ')" = "md5 0 sha1 1 (run) 2 " ]
check "one launch: one config, output-only -q left out, long names" \
	[ "$(cut -f4 <<<"$rows" | sort -u)" = "t2accel --algorithm=md5,sha1 --size=16 --seconds=0.05" ]
t2accel -q -a md5 -s 16 -d 0.05 -o "$tmp/m.csv" >/dev/null
check "a workload run alone makes its own run id" \
	[ "$(results_get "$tmp/m.csv" run | sort -u | wc -l)" = 2 ]

# --resume matches the config: other arguments are measured.
threadrun -q --sweep 1 -o "$tmp/r.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
threadrun --sweep 1 --resume -o "$tmp/r.csv" -- t2accel -q -a sha1 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "--resume with other arguments measures" grep -q 'sweep done: 1 run, 0 failed, 0 skipped' "$tmp/err"
check "--resume with other arguments: sha1 is in the file" bash -c \
	"results_get '$tmp/r.csv' algorithm | grep -qx sha1"
threadrun --sweep 1 --resume -o "$tmp/r.csv" -- t2accel -a sha1 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "--resume with the same config (but -q) skips" grep -q 'sweep done: 0 runs, 0 failed, 1 skipped' "$tmp/err"

# set_rate FILE VALUE [WHICH]: the rate of FILE's first row (WHICH
# "every": of every row of a program's, threadrun's run rows aside;
# "falling": that, the rows then in falling order of run) set to VALUE.
set_rate() {
	python3 - "$@" <<'PY'
import csv, sys
path, value = sys.argv[1], sys.argv[2]
which = sys.argv[3] if len(sys.argv) > 3 else "first"
rows = list(csv.reader(open(path)))
h = rows[0]
for r in rows[1:2] if which == "first" else rows[1:]:
    if r[h.index("algorithm")] != "(run)" or which == "first":
        r[h.index("rate")] = value
if which == "falling":
    rows[1:] = sorted(rows[1:], key=lambda r: r[h.index("run")], reverse=True)
csv.writer(open(path, "w"), lineterminator="\n").writerows(rows)
PY
}

# --resume makes again a run whose own row is unreadable (an invalid
# value: the reader skips it), though its run row is whole; the report
# shows no stray run series for it.
threadrun -q --sweep 1 --repeat 2 -o "$tmp/d.csv" -- t2accel -q -a md5,sha1 -s 16 -d 0.05 >/dev/null
set_rate "$tmp/d.csv" abc
threadrun --sweep 1 --repeat 2 --resume -o "$tmp/d.csv" -- t2accel -q -a md5,sha1 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "--resume: a run that lost its row to damage is made again" \
	grep -q 'sweep done: 1 run, 0 failed, 1 skipped' "$tmp/err"
check "--resume: one line says so" \
	grep -qx 'threadrun: sweep: --resume: 1 finished run lost a row skipped above: made again' "$tmp/err"
check "the report: n = 2 in both series (the damaged run's other row gives way to the rerun's), no series of its run row" \
	[ "$(points "$tmp/d.csv" | tr '\n' ' ')" = "compact 1 2 compact 1 2 " ]
threadrun --sweep 1 --repeat 2 --resume -o "$tmp/d.csv" -- t2accel -q -a md5,sha1 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "--resume once more: nothing made again, nothing said of it" bash -c \
	"grep -q 'sweep done: 0 runs, 0 failed, 2 skipped' '$tmp/err' && ! grep -q 'made again' '$tmp/err'"
# A run whose only own row is unreadable: its run row is no measurement of
# the program's, so no "(run)" series stands in for it.
threadrun -q --sweep 1 -o "$tmp/d1.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
set_rate "$tmp/d1.csv" abc
threadreport "$tmp/d1.csv" >"$tmp/out" 2>"$tmp/err"
check "a run's only own row unreadable: no series of its run row, the row named" bash -c \
	"! grep -q '(run)' '$tmp/out' && grep -q \"d1.csv:2: column 'rate': 'abc'\" '$tmp/err'"
# Three such runs, their rows in falling order of run: each is known lost
# (the runs are looked up in a list sorted once the read ends).
for i in 1 2 3; do
	threadrun -q --sweep 1 -o "$tmp/d3.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
done
set_rate "$tmp/d3.csv" abc falling
threadreport "$tmp/d3.csv" >"$tmp/out" 2>"$tmp/err"
check "three runs' only rows unreadable, in falling order: no series of their run rows" bash -c \
	"! grep -q '(run)' '$tmp/out' && [ \$(grep -c \"column 'rate': 'abc'\" '$tmp/err') = 3 ]"
# One repeat lost twice (the run and its rerun each lost their row): one
# run is made again, and the line counts it once.
threadrun -q --sweep 1 -o "$tmp/d2.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
set_rate "$tmp/d2.csv" abc every
threadrun -q --sweep 1 --resume -o "$tmp/d2.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null 2>&1
set_rate "$tmp/d2.csv" abc every
threadrun --sweep 1 --resume -o "$tmp/d2.csv" -- t2accel -q -a md5 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "a repeat lost twice: made again once, counted once" bash -c \
	"grep -q 'sweep done: 1 run, 0 failed, 0 skipped' '$tmp/err' &&
	 grep -qx 'threadrun: sweep: --resume: 1 finished run lost a row skipped above: made again' '$tmp/err'"
# A row without its rate, in a run that did not fail, lost its measurement
# as surely: named, no run row stands in for it, and --resume makes it again.
threadrun -q --sweep 1 -o "$tmp/e.csv" -- t2accel -q -a md5 -s 16 -d 0.05 >/dev/null
set_rate "$tmp/e.csv" ""
threadreport "$tmp/e.csv" >"$tmp/out" 2>"$tmp/err"
check "a row without its rate: named, no series of its run row" bash -c \
	"! grep -q '(run)' '$tmp/out' && grep -qx \"threadreport: $tmp/e.csv:2: column 'rate' is empty in a run that did not fail, row skipped\" '$tmp/err'"
threadrun --sweep 1 --resume -o "$tmp/e.csv" -- t2accel -q -a md5 -s 16 -d 0.05 2>"$tmp/err" >/dev/null
check "--resume makes it again" \
	grep -q 'sweep done: 1 run, 0 failed, 0 skipped' "$tmp/err"

# --resume reruns a failed repeat, and the rerun replaces it in the report.
threadrun -q --sweep 1 -o "$tmp/f.csv" -- sh -c 'test -e "$0" || { : >"$0"; exit 1; }' "$tmp/mark" 2>/dev/null
threadrun -q --sweep 1 --resume -o "$tmp/f.csv" -- sh -c 'test -e "$0" || { : >"$0"; exit 1; }' "$tmp/mark"
check "--resume reruns the failed repeat (exit $?)" \
	[ "$(results_get "$tmp/f.csv" status | tr '\n' ' ')" = "1 0 " ]
check "the rerun replaces the failed row: n = 1" [ "$(points "$tmp/f.csv")" = "compact 1 1" ]

# Repeated single runs are repeats.
for i in 1 2 3; do
	threadrun -q -o "$tmp/s.csv" 2 t2accel -q -a sha256 -d 0.05 -s 1024 >/dev/null
done
check "three single runs: n = 3" [ "$(points "$tmp/s.csv")" = "compact 2 3" ]

# Two processes writing one file at once stay two.
threadrun -q -o "$tmp/p.csv" 1 t2accel -q -a md5 -s 16 -d 0.2 >/dev/null &
threadrun -q -o "$tmp/p.csv" 1 t2accel -q -a md5 -s 16 -d 0.2 >/dev/null
wait $!
check "two concurrent processes: n = 2" [ "$(points "$tmp/p.csv")" = "compact 1 2" ]

# A row read twice is one measurement: a file named twice, or copied into
# another, adds no repeats (it would reach the 3 a verdict needs); the
# rows skipped are said.  Two measurements of one run (seq) stay two.
cp "$tmp/s.csv" "$tmp/s2.csv"
check "a file named twice: n = 3" [ "$(points "$tmp/s.csv" "$tmp/s.csv")" = "compact 2 3" ]
threadreport -f tsv "$tmp/s.csv" "$tmp/s2.csv" 2>"$tmp/err" >/dev/null
check "a copy named beside it: one line says the rows read twice" \
	grep -qx "threadreport: 3 rows read twice (the same run, seq, time, t_start and rate), counted once; the first: .*s2.csv:2 repeats .*s.csv:2" "$tmp/err"
check "a copy named beside it: n = 3" [ "$(points "$tmp/s.csv" "$tmp/s2.csv")" = "compact 2 3" ]
printf '%s\n' host,workload,algorithm,threads,policy,repeat,run,seq,config,rate,unit,status \
	h,w,x,1,compact,0,z,0,w,5,ops/s,0 h,w,x,1,compact,0,z,1,w,6,ops/s,0 >"$tmp/seq.csv"
check "two measurements of one run (seq 0, 1): n = 2" [ "$(points "$tmp/seq.csv")" = "compact 1 2" ]
# seq counts one process's rows: a run of two processes (a script that
# runs the workload twice) has two rows of seq 0, and both are measurements.
printf '#!/bin/sh\nt2accel -q -a md5 -s 16 -d 0.05\nt2accel -q -a md5 -s 16 -d 0.05\n' >"$tmp/twice.sh"
chmod +x "$tmp/twice.sh"
threadrun -q --sweep 1 --repeat 2 -o "$tmp/tw.csv" -- "$tmp/twice.sh" >/dev/null
check "a run of two processes, each its seq 0: n = 4" [ "$(points "$tmp/tw.csv")" = "compact 1 4" ]
check "... and that file named twice: still 4" [ "$(points "$tmp/tw.csv" "$tmp/tw.csv")" = "compact 1 4" ]
threadreport "$tmp/tw.csv" "$tmp/tw.csv" 2>&1 >/dev/null | grep -q 'counted once: .*tw.csv named twice$'
check "... said as the file named twice ($?)" [ $? -eq 0 ]

# Only a rerun of a failed repeat supersedes.  Hand-made rows: repeat 0
# failed in run a and was rerun in run b; repeat 1 succeeded twice.
cat >"$tmp/re.csv" <<'EOF'
host,workload,algorithm,threads,policy,repeat,run,config,rate,unit,status
h,w,x,1,compact,0,a,w,5,ops/s,1
h,w,x,1,compact,0,b,w,100,ops/s,0
h,w,x,1,compact,1,c,w,110,ops/s,0
h,w,x,1,compact,1,d,w,120,ops/s,0
h,w,x,2,compact,0,e,w,7,ops/s,1
h,w,x,2,compact,0,e,w,200,ops/s,0
h2,w,x,1,compact,0,f,w,1,ops/s,0
h,w,x,1,compact,0,g,w2,9,ops/s,0
EOF
check "a failed repeat gives way to its rerun, successes all count (n 3)" bash -c \
	"threadreport -f tsv '$tmp/re.csv' 2>/dev/null | awk -F'\t' '\$2 == \"h\" && \$11 == 1 && \$12 == 3 && \$13 == 110' | grep -q ."
check "a failed row of the same run is not superseded, but a failed run's: in no cell (n 1, 200)" bash -c \
	"threadreport -f tsv '$tmp/re.csv' 2>/dev/null | awk -F'\t' '\$2 == \"h\" && \$11 == 2 && \$12 == 1 && \$13 == 200' | grep -q ."
check "the failed row not superseded is counted in one line (the one superseded is not)" bash -c \
	"threadreport -f tsv '$tmp/re.csv' 2>&1 >/dev/null | grep -qx 'threadreport: 1 row of a failed run (status not 0) skipped, not a measurement: .*re.csv:6 (status 1)'"
check "another host or another config is another series" \
	[ "$(threadreport -f tsv "$tmp/re.csv" 2>/dev/null | awk -F'\t' 'NR > 1 { print $1 }' | sort -u | wc -l)" = 3 ]
threadreport "$tmp/s.csv" "$tmp/r.csv" >"$tmp/out" 2>/dev/null
check "several configs: each series title names its config" bash -c \
	"grep -q '^== t2accel md5 / evp, 16 bytes, bytes/s, config t2accel --algorithm=md5 --size=16 --seconds=0.05\$' '$tmp/out' &&
	 grep -q '^== t2accel sha256 / evp, 1024 bytes, bytes/s, config t2accel --algorithm=sha256 --seconds=0.05 --size=1024\$' '$tmp/out'"

# Files of the previous header read, with one note; the writer refuses them.
old='time,host,cpu_model,topology,cores,pus,versions,workload,algorithm,backend,impl,size,size_unit,threads,policy,cpus,cpus_seen,repeat,ops,bytes,wall_s,user_s,sys_s,rate,unit,verified,checks,placement_ok,migrations,off_plan,steal_pct,sys_share,status,note'
{ echo "$old"; echo "2026-01-01T00:00:00Z,h,m,t,2,2,v,t2accel,md5,evp,i,16,bytes,1,compact,0,0,0,10,160,1,1,0,160,bytes/s,yes,1,yes,0,,,,0,"; } >"$tmp/old.csv"
threadreport "$tmp/old.csv" >"$tmp/out" 2>"$tmp/err"
check "old header: read (exit 0)" [ $? -eq 0 ]
check "old header: one note naming the new columns" bash -c \
	"[ \$(wc -l <'$tmp/err') = 1 ] && grep -q 'note: .*old.csv has no run seq config job rank ranks local_rank launcher cpuset start_sync t_start t_end others_pct lat_batch lat_n lat_p50_s lat_p90_s lat_p99_s lat_p999_s lat_max_s lat_workers counters task_clock_s ctx_switches cpu_migrations page_faults cycles instructions cache_refs cache_misses branch_misses events counted_pct cycles_per_byte cycles_per_op ipc flops_per_cycle ctr_workers seed policies stop column' '$tmp/err'"
check "old header: the row is reported" grep -q '^compact  *1  *160 B/s ' "$tmp/out"
check "old header: the new columns read empty" \
	[ "$(results_get "$tmp/old.csv" workload run seq config job rank)" = "$(printf 't2accel\t\t\t\t\t')" ]
threadrun -q -o "$tmp/old.csv" 1 true 2>"$tmp/err"
st=$?
check "old header: threadrun refuses to append (exit $st), says what to do" bash -c \
	"[ $st -eq 2 ] && grep -q 'an older version, without the run, seq and config columns); give a new file' '$tmp/err'"
check "old header: it still reads with threadreport, says so" \
	grep -q 'give a new file, it still reads with threadreport$' "$tmp/err"
head -1 "$tmp/h.csv" | tr -d '\n' >"$tmp/hdr.csv"
threadrun -q -o "$tmp/hdr.csv" 1 true
check "this version's header alone, without its newline: appended to (exit $?)" \
	[ "$(wc -l <"$tmp/hdr.csv")" = 2 -a "$(results_get "$tmp/hdr.csv" algorithm)" = "(run)" ]
printf '\001\377garbage\n' >"$tmp/bin.csv"
threadrun -q -o "$tmp/bin.csv" 1 true 2>"$tmp/err"
st=$?
check "not a results file: refused (exit $st), not said to read with threadreport" bash -c \
	"[ $st -eq 2 ] && grep -q \"header differs: not this version's columns); give a new file\$\" '$tmp/err'"

# A config that cannot be shown plainly is quoted in full, never cut.
nl=$(printf 'a\nb')
long=$(head -c 5000 /dev/zero | tr '\0' x)
threadrun -q -o "$tmp/q.csv" 1 sh -c 'exit 0' "$nl" "it's" "$long"
check "foreign program: newline, quote and a 5000-byte word quoted in full" \
	[ "$(results_get "$tmp/q.csv" config)" = "sh -c 'exit 0' \$'a\\nb' 'it'\\''s' $long" ]
check "a workload's own config: newline in a value quoted" \
	[ "$(t2accel --print-config -a md5 --token-label "$nl" -q | od -An -tx1 | tr -d ' \n')" = \
	  "$(printf "t2accel --algorithm=md5 \$'--token-label=a\\\\nb'\n" | od -An -tx1 | tr -d ' \n')" ]
check "--print-config: the results file its -o names after the config line, ended by a NUL" \
	[ "$(t2accel --print-config -a md5 -o "$nl" | od -An -tx1 | tr -d ' \n')" = \
	  "$(printf 't2accel --algorithm=md5\na\nb\0' | od -An -tx1 | tr -d ' \n')" ]
threadrun -q -o "$tmp/q2.csv" 1 t2accel -q -a md5 -s 16 -d 0.05 -o "$tmp/q2.csv" >/dev/null
check "under threadrun a workload's rows carry its own config" \
	[ "$(results_get "$tmp/q2.csv" config)" = "t2accel --algorithm=md5 --size=16 --seconds=0.05" ]

# threadrun asks only the project's workloads beside it for their config: a
# foreign program in the same directory (an installed bin/) is never run
# with an option it does not know.
mkdir -p "$tmp/pfx"
cp "$(command -v threadrun)" "$tmp/pfx/threadrun"
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/foo.args" >"$tmp/pfx/foo"
printf '#!/bin/sh\n[ "$1" = --print-config ] && { echo "linpack from-the-workload"; exit 0; }\nexit 0\n' >"$tmp/pfx/linpack"
chmod +x "$tmp/pfx/foo" "$tmp/pfx/linpack"
"$tmp/pfx/threadrun" -q -o "$tmp/own.csv" 1 foo bar >/dev/null 2>&1
"$tmp/pfx/threadrun" -q -o "$tmp/own.csv" 1 linpack 10 >/dev/null 2>&1
check "a foreign program beside threadrun: run once, never asked --print-config" \
	[ "$(cat "$tmp/foo.args")" = bar ]
check "a workload beside threadrun: asked for its config" \
	[ "$(results_get "$tmp/own.csv" config | tr '\n' '|')" = "foo bar|linpack from-the-workload|" ]

# The row contract: rate = bytes / wall_s, ops / wall_s, ops / wall_s / 1e6.
t2accel -q -a aes,md5,rsa -s 64 -k 1024 -d 0.05 -o "$tmp/c.csv" >/dev/null
OMP_NUM_THREADS=1 linpack -q -r 2 -o "$tmp/c.csv" 60 >/dev/null
stream -q -n 2000 -t 3 -k copy,triad -o "$tmp/c.csv" >/dev/null 2>&1
rows=$(results_get "$tmp/c.csv" algorithm unit ops bytes wall_s rate)
for alg in aes-128-cbc md5 rsa-sign lu-blocked copy triad; do
	check "row contract: $alg" bash -c "awk -F'\t' -v a='$alg' '
		\$1 == a { f++
			want = \$2 == \"bytes/s\" ? \$4 / \$5 : \$2 == \"MFLOPS\" ? \$3 / \$5 / 1e6 : \$3 / \$5
			d = want - \$6; if (d < 0) d = -d
			if (!(\$5 > 0 && d <= 1e-5 * \$6)) bad++ }
		END { exit !(f >= 1 && !bad) }' <<<'$rows'"
done
