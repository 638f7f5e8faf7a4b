# t2accel under threadrun on this machine: every algorithm verified and
# placed, the wrap-around case, the fault switch, and SIGINT.
. "$(dirname "$0")/tap.bash"
f=$tmp/all.csv

threadrun -q -o "$f" 2 t2accel -q -a all -d 0.1 >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadrun 2 t2accel -a all exits 0 (got $st)" [ $st -eq 0 ]
rows=$(results_get "$f" algorithm | wc -l)
# From the algorithm table: 6 default sizes per sized algorithm, one row per
# label of a signature (sign, verify) or key agreement.
want=$(t2accel --list | awk -F'\t' '$3 != "sign" && $3 != "derive" {n += 6}
	$3 == "sign" || $3 == "derive" {n += split($2, l, " ")} END {print n + 0}')
check "one row per measurement: each sized algorithm x 6 sizes + each signature's sign and verify ($rows, want $want)" \
	[ "$rows" -eq "$want" -a "$want" -gt 0 ]
check "every row verified" bash -c "! results_get '$f' verified | grep -v '^yes$'"
check "every row placement honoured on CPUs 0,1" bash -c \
	"! results_get '$f' placement_ok cpus cpus_seen | grep -v \$'^yes\t0,1\t0,1$'"
check "rates are positive" bash -c "results_get '$f' rate | awk '\$1 <= 0 {exit 1}'"
check "rows carry provenance" bash -c "results_get '$f' host cpu_model versions | grep -q 'OpenSSL 3'"
check "des ran (legacy provider)" grep -q '^des-cbc ' "$tmp/out"

threadrun -q -o "$tmp/wrap.csv" -c 1 16 t2accel -q -a rsa -k 1024 -d 0.2 >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadrun -c 1 16 t2accel -a rsa exits 0 (got $st)" [ $st -eq 0 ]
check "wrap-around warning shown" grep -q 'warning: 16 workers on 2 PUs of policy c1: wrapping' "$tmp/err"
check "16 workers, sign and verify rows, verified" bash -c \
	"[ \"\$(results_get '$tmp/wrap.csv' algorithm threads verified placement_ok | sort -u | tr '\n' ' ')\" = \$'rsa-sign\t16\tyes\tyes rsa-verify\t16\tyes\tyes ' ]"

threadrun -q -o "$tmp/list.csv" -p list:1,0 2 t2accel -q -a sha1 -s 64 -d 0.1 >/dev/null 2>&1
check "list:1,0 planned and seen in that order" bash -c \
	"[ \"\$(results_get '$tmp/list.csv' cpus cpus_seen)\" = \$'1,0\t1,0' ]"

# The fault switch: worker 1 flips a bit of one checked output, for every
# algorithm of the table.
algos=$(t2accel --list | cut -f1)
check "t2accel --list names the algorithms" [ -n "$algos" ]
for a in $algos; do
	T2ACCEL_FAULT_WORKER=1 threadrun -q -o "$tmp/fault.csv" 2 t2accel -q -a $a -s 64 -k 1024 -d 0.2 \
		>/dev/null 2>"$tmp/err"
	st=$?
	if [ $st -eq 1 ] && grep -q "failed: .* worker 1 on CPU [0-9]: .*\(does not\|differs\)" "$tmp/err"; then
		ok "corrupted $a output detected, named, exit 1"
	else
		notok "corrupted $a output" "exit $st" "$(cat "$tmp/err")"
	fi
done
check "the failed measurements are rows marked unverified" bash -c \
	"[ \"\$(results_get '$tmp/fault.csv' verified status | sort -u)\" = \$'no\t1' ]"

# SIGINT in the middle of the second measurement: the first row is kept, no
# partial row, exit 130, a table of what was measured.
threadrun -q -o "$tmp/int.csv" 2 t2accel -a md5 -s 16,64,256 -d 1 >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1.6
kill -INT $pid
wait $pid
st=$?
check "SIGINT: exit 130 (got $st)" [ $st -eq 130 ]
check "SIGINT: exactly the finished measurement kept, file well-formed" bash -c \
	"[ \"\$(results_get '$tmp/int.csv' algorithm size)\" = \$'md5\t16' ]"
check "SIGINT: what was measured is printed" grep -q '^md5 ' "$tmp/out"
check "SIGINT: said so" grep -q 'interrupted by signal 2' "$tmp/err"

# --latency: percentiles in every row and in the table, per worker and
# merged; batches for tiny operations, said in the row; count-based too.
threadrun -q -o "$tmp/lat.csv" 2 t2accel -a rsa,aes -k 1024 -s 16,8192 --latency -d 0.2 \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "threadrun 2 t2accel -a rsa,aes -s 16,8192 --latency exits 0 (got $st)" [ $st -eq 0 ]
results_get "$tmp/lat.csv" algorithm size ops checks lat_batch lat_n lat_p50_s lat_p90_s lat_p99_s \
	lat_p999_s lat_max_s lat_workers note >"$tmp/lat.tsv"
check "4 rows, each with latency figures p50 <= p90 <= p99 <= p99.9 <= max, all > 0" awk -F'\t' '
	$6 < 1 || !($7 > 0 && $7 <= $8 && $8 <= $9 && $9 <= $10 && $10 <= $11) { bad = 1 }
	END { exit bad || NR != 4 }' "$tmp/lat.tsv"
check "lat_workers: each of the 2 workers' p50/p99/max, ordered" awk -F'\t' '
	{ if (split($12, w, ",") != 2) bad = 1
	  for (i in w) if (split(w[i], v, "/") != 3 || !(v[1] > 0 && v[1] <= v[2] && v[2] <= v[3])) bad = 1 }
	END { exit bad || NR != 4 }' "$tmp/lat.tsv"
# (RSA signing is timed one operation each, on any machine; RSA verifying
# and 8192-byte AES too where a clock read is cheap: where it costs 80 ns, as
# on a Sapphire Rapids VM, they come in batches of 2.)
check "one operation per timed value: every timed operation recorded (lat_n = ops - checks)" awk -F'\t' '
	$5 == 1 { n++; if ($6 != $3 - $4) bad = 1 } END { exit bad || n < 1 }' "$tmp/lat.tsv"
check "RSA signing is timed one operation each (lat_batch 1)" awk -F'\t' '
	$1 == "rsa-sign" { found = $5 == 1 } END { exit !found }' "$tmp/lat.tsv"
check "16-byte AES timed in batches, the note says per batch / batch" awk -F'\t' '
	$1 == "aes-128-cbc" && $2 == 16 { found = $5 > 1 && index($13, "per batch of " $5 " operations, figures are per batch / " $5) }
	END { exit !found }' "$tmp/lat.tsv"
check "the table prints the latency of each measurement and worker" bash -c \
	"grep -q '^Latency per operation' '$tmp/out' && grep -c '^  worker [01] ' '$tmp/out' | grep -qx 8 &&
	 grep -Eq '^aes-128-cbc 16 bytes +[0-9]+ +[0-9]+ +[0-9.]+[num]?s ' '$tmp/out'"
threadrun -q -o "$tmp/latr.csv" 2 t2accel -q -a rsa -k 1024 --latency -r 40 >/dev/null 2>&1
# (A sanitizer's slow clock may batch RSA-1024's verify: every timed
# operation is in one of the lat_n values, a batch or one cut short.)
check "--latency with -r: 40 operations each, every timed one recorded" bash -c \
	"[ \"\$(results_get '$tmp/latr.csv' ops | sort -u)\" = 40 ] &&
	 results_get '$tmp/latr.csv' ops checks lat_batch lat_n | awk -F'\t' '
		\$3 < 1 || \$4 < (\$1 - \$2) / \$3 || \$4 > \$1 - \$2 {bad = 1} END {exit bad || NR != 2}'"
t2accel -q -o "$tmp/latb.csv" -a sha256 -s 64 --latency --latency-batch 4 -r 1000 >/dev/null 2>&1
check "--latency-batch 4: batches of 4, each timed one in a batch" bash -c \
	"results_get '$tmp/latb.csv' ops checks lat_batch lat_n | awk -F'\t' '\$3 != 4 || \$4 < (\$1 - \$2) / 4 || \$4 > \$1 - \$2 {bad = 1} END {exit bad || NR != 1}'"
check "without --latency the latency columns are empty" bash -c \
	"[ \"\$(results_get '$f' lat_batch lat_n lat_p50_s lat_workers | sort -u)\" = \$'\t\t\t' ]"
