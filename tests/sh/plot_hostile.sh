# Hostile names through plot/threadplot and plot/monitorplot: every field of
# a results or monitor file is data.  Nothing in one may run a command (the
# canary), write outside the output directory or stop a figure, and the
# names still show as text.
. "$(dirname "$0")/tap.bash"
set -o pipefail
canary=$tmp/PWNED           # touched if a field ran as code
dcanary=$tmp/PWNED_DIR      # touched if -o DIR or TMPDIR ran as code
# Each tries a way out of a gnuplot string (single or double quoted, with a
# newline ending the command), an awk program, a shell, a format or a path.
hostile=(
	"x'.system('touch $canary').'"
	"\"; system(\"touch $canary\"); \""
	"\`touch $canary\`"
	"\$(touch $canary)"
	'back\slash\'
	"@canary"
	$'line\nsystem(\'touch '"$canary"$'\')'
	'a,b,"c"'
	"../../../../..$canary"
	"%s%n%x"
	"=1+2"
	"-x"
)
nh=${#hostile[@]}
csv() { local s=${1//\"/\"\"}; printf '"%s"' "$s"; }
h() { csv "${hostile[$(($1 % nh))]}"; }

# Every hostile name in every text field: series I has workload I, algorithm
# I+1, backend I+2, impl I+3, policies I+4 and I+5 and host I+6; with
# latency figures, so the latency figure draws them too.
res=$tmp/res.csv
echo "host,workload,algorithm,backend,impl,size,size_unit,threads,policy,repeat,rate,unit,cores,pus,lat_batch,lat_p50_s,lat_p99_s" >"$res"
for ((i = 0; i < nh; i++)); do
	for p in 4 5; do
		for t in 1 2; do
			echo "$(h $((i + 6))),$(h $i),$(h $((i + 1))),$(h $((i + 2))),$(h $((i + 3))),16,bytes,$t,$(h $((i + p))),0,$((t * 100 - p)),bytes/s,2,4,$t,${t}e-06,$((t + p))e-06"
		done
	done
done >>"$res"
# The size figure: a family of hostile names, two hostile backends that
# cross (a cutoff), a hostile policy.
sz=$tmp/size.csv
echo "host,workload,algorithm,backend,size,size_unit,threads,policy,rate,unit" >"$sz"
for row in "1 16 100" "1 1024 1000" "1 65536 5000" "3 16 50" "3 1024 1200" "3 65536 9000"; do
	set -- $row
	echo "$(h 7),$(h 0),$(h 2),$(h "$1"),$2,bytes,1,$(h 4),$3,bytes/s"
done >>"$sz"

# The issue's example, alone, in a file whose name holds quotes too.
one=$tmp/$'r\'$(touch PWNED)`touch PWNED`\n.csv'
printf 'workload,threads,rate,policy\n%s,1,10,compact\n%s,2,19,compact\n' \
	"$(csv "x'.system('touch $canary.1').'")" "$(csv "x'.system('touch $canary.1').'")" >"$one"
# A monitor series: a hostile run title, thread names quoted (commas, quotes
# and newlines inside) and one unquoted with commas as threadrun wrote it;
# rows with a hostile id, CPU or time are skipped.
mon=$tmp/m=1.monitor.csv
{
	echo "t_s,kind,id,name,cpu,planned,usr_pct,sys_pct,irq_pct,idle_pct,steal_pct,intr,utime_s,stime_s,vcsw,ivcsw"
	echo "# run 2 threads, ${hostile[0]} ${hostile[2]} ${hostile[4]}, repeat 0"
	for t in 0.00 0.25 0.50; do
		for c in 0 1; do echo "$t,cpu,$c,,$c,-1,50.0,1.0,0.0,40.0,0.0,10,,,,"; done
		for ((i = 0; i < nh; i++)); do
			echo "$t,thread,$((100 + i)),$(h $i),$((i % 2)),$((i % 2)),,,,,,,0.10,0.00,1,0"
		done
		echo "$t,thread,200,a,b,unquoted,1,1,,,,,,,0.10,0.00,1,0"
		echo "$t,thread,../x,evil,0,0,,,,,,,0.10,0.00,1,0"
		echo "$t,thread,201,evil,system('touch $canary'),0,,,,,,,0.10,0.00,1,0"
		echo "system('touch $canary'),cpu,0,,0,-1,50.0,1.0,0.0,40.0,0.0,10,,,,"
	done
} >"$mon"
# An output directory and a TMPDIR with quotes, a command and a newline.
out=$tmp/$'o\'"`touch '"$dcanary"'`$(touch '"$dcanary"$')\nx'
tdir=$tmp/$'t\'"$(touch '"$dcanary"')'
plain=$tmp/plain
mkdir -p "$out" "$tdir" "$plain"

touch "$tmp/mark"

plot/threadplot "$res" -o "$plain" >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadplot: $nh hostile names in every field, exit 0 (got $st)" [ $st -eq 0 ]
check "threadplot: no field ran as code (no canary)" [ ! -e "$canary" ]
for fig in speedup efficiency latency; do
	check "threadplot: $fig.png is a PNG" bash -c "head -c 8 \"\$1\" | od -An -c | grep -q 'P   N   G'" _ "$plain/$fig.png"
	check "threadplot: $fig.svg is written" [ -s "$plain/$fig.svg" ]
done
check "threadplot: a quote and a backquote in names show as text" bash -c \
	"grep -qF \"x'.system('touch\" \"\$1\" && grep -qF '\`touch' \"\$1\"" _ "$plain/speedup.svg"
check "threadplot: policy names are the heat map's labels" bash -c \
	"grep -qF 'back\\slash\\' \"\$1\" && grep -qF '%s%n%x' \"\$1\"" _ "$plain/efficiency.svg"
check "threadplot: nothing on stderr" [ ! -s "$tmp/err" ]

plot/threadplot "$sz" -o "$plain" >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadplot: the size figure with hostile names, exit 0 (got $st)" [ $st -eq 0 ]
check "threadplot: size.png is a PNG" bash -c "head -c 8 \"\$1\" | od -An -c | grep -q 'P   N   G'" _ "$plain/size.png"
check "threadplot: the cutoff is marked" grep -q 'cutoff ~' "$plain/size.svg"
# The hostile names reach the cutoff table too; its cutoff is the label.
cut=$("${THREADREPORT:-bin/threadreport}" --raw -f tsv --cutoffs "$sz" 2>/dev/null |
	awk -F'\t' 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {printf "%.0f\n", $c["cutoff"]}')
check "threadplot: the label is threadreport's cutoff with hostile names (${cut:-none})" \
	bash -c '[ -n "$1" ] && grep -qF "cutoff ~$1 B" "$2"' _ "$cut" "$plain/size.svg"
check "threadplot: still no canary" [ ! -e "$canary" ]

top=$PWD
(cd "$tmp" && "$top/plot/threadplot" "$one" -o "$plain" >/dev/null 2>"$tmp/err")
st=$?
check "threadplot: the issue's workload x'.system(...).' draws (exit $st) and runs nothing" \
	bash -c '[ "$1" -eq 0 ] && [ ! -e "$2" ] && [ ! -e "$3" ]' _ $st "$canary.1" "$tmp/PWNED"

plot/monitorplot "$mon" -o "$plain" >"$tmp/out" 2>"$tmp/err"
st=$?
check "monitorplot: $nh hostile thread names and a hostile title, exit 0 (got $st)" [ $st -eq 0 ]
check "monitorplot: no field ran as code (no canary)" [ ! -e "$canary" ]
check "monitorplot: monitor.png is a PNG" bash -c "head -c 8 \"\$1\" | od -An -c | grep -q 'P   N   G'" _ "$plain/monitor.png"
check "monitorplot: names show as text, a newline as a space" bash -c \
	"grep -qF \"x'.system('touch\" \"\$1\" && grep -qF 'line system(' \"\$1\" && grep -qF 'a,b,\"c\" (107)' \"\$1\"" _ "$plain/monitor.svg"
check "monitorplot: an unquoted name with commas keeps its thread" grep -qF 'a,b,unquoted (200)' "$plain/monitor.svg"
check "monitorplot: rows with a bad id or CPU are skipped" bash -c "[ -s \"\$1\" ] && ! grep -qF 'evil' \"\$1\"" _ "$plain/monitor.svg"
check "monitorplot: nothing on stderr" [ ! -s "$tmp/err" ]

check "nothing written outside the output directory" bash -c \
	"! find \"\$1\" \\( -path \"\$2\" -o -path \"\$3\" \\) -prune -o -newer \"\$1/mark\" ! -type d ! -name out ! -name err -print | grep -q ." \
	_ "$tmp" "$out" "$plain"

# -o DIR and TMPDIR are the user's, yet never code either.
for script in threadplot monitorplot; do
	input=$res; [ $script = threadplot ] || input=$mon
	TMPDIR=$tdir plot/$script "$input" -o "$out" >/dev/null 2>"$tmp/err"
	st=$?
	check "$script: -o DIR and TMPDIR with quotes, commands and a newline (exit $st)" \
		bash -c '[ "$1" -eq 0 ] && [ ! -e "$2" ] && [ ! -s "$3" ]' _ $st "$dcanary" "$tmp/err"
done
check "the figures are in that DIR" bash -c 'for f in speedup efficiency monitor; do [ -s "$1/$f.png" ] && [ -s "$1/$f.svg" ] || exit 1; done' _ "$out"

# Not a regular file: refused at once, not read (a FIFO would block).
mkfifo "$tmp/fifo"
timeout 10 plot/monitorplot "$tmp/fifo" -o "$out" 2>"$tmp/err"
check "monitorplot: a FIFO is refused (exit $?)" grep -q 'a regular file is needed' "$tmp/err"
