# threadrun --repeat auto (issue 27): each point repeats until the 95%
# interval of its median, or of its paired ratio to the 1-thread point,
# is within --precision, or until MAX; threadrun's run rows say why in the
# stop column, and --resume carries on from them.
. "$(dirname "$0")/tap.bash"
# The run rows' threads, policy, repeat and stop, one line each, sorted.
stops() { results_get "$1" algorithm threads policy repeat stop | awk -F'\t' '$1 == "(run)"' |
	cut -f2- | sort; }

printf 'echo "rate: $((100 * THREADRUN_THREADS))"\n' >"$tmp/const.bash"
threadrun -q -o "$tmp/c.csv" --sweep 1,2 -p compact,scatter --repeat auto --metric 'rate: (\S+)' -- \
	bash "$tmp/const.bash" >/dev/null 2>&1
check "constant rate: exit 0, every point stops at 3 repeats, 12 runs" \
	[ "$?:$(stops "$tmp/c.csv" | wc -l)" = "0:12" ]
check "constant rate: the third repeat's rows say 'precision 0.0%', the others go on" \
	[ "$(stops "$tmp/c.csv" | awk -F'\t' '($3 == 2) != ($4 == "precision 0.0%")' | wc -l)" = 0 ]
check "the rows record the sweep's -p list" \
	[ "$(results_get "$tmp/c.csv" policies | sort -u)" = "compact,scatter" ]
threadrun -o "$tmp/c.csv" --resume --sweep 1,2 -p compact,scatter --repeat auto --metric 'rate: (\S+)' -- \
	bash "$tmp/const.bash" >/dev/null 2>"$tmp/c.err"
check "--resume of a settled sweep runs nothing" grep -q 'sweep done: 0 runs' "$tmp/c.err"

# --resume: the third repeat's rows lost (an interrupted sweep) are made again.
head -n 17 "$tmp/c.csv" >"$tmp/r.csv"
threadrun -o "$tmp/r.csv" --resume --sweep 1,2 -p compact,scatter --repeat auto --metric 'rate: (\S+)' -- \
	bash "$tmp/const.bash" >/dev/null 2>"$tmp/r.err"
check "--resume after 2 repeats: the third repeat's 4 runs, then every point stops" \
	bash -c "grep -q 'sweep done: 4 runs, 0 failed, 8 skipped' '$tmp/r.err' && [ \$(results_get '$tmp/r.csv' stop | grep -c '^precision 0.0%') = 4 ]"

# A rate noisy by +-20% never gets within 2%: MAX repeats, and the rows say so.
# The noise is a fixed sequence per repeat, different at 2 threads so the
# paired ratio is noisy too: random draws settled by chance about once in
# 500 sweeps (three within 1% of each other), and CI met one.
cat >"$tmp/noisy.bash" <<'PROG'
awk -v n="$THREADRUN_THREADS" -v r="$THREADRUN_REPEAT" 'BEGIN { split(n == 1 ? "0.8 1.2 1.0 0.9" : "1.2 0.8 1.0 1.1", f, " "); printf "rate: %.3f\n", 100 * n * f[r % 4 + 1] }'
PROG
threadrun -q -o "$tmp/n.csv" --sweep 1,2 --repeat auto:4 --metric 'rate: (\S+)' -- \
	bash "$tmp/noisy.bash" >/dev/null 2>&1
check "noisy rate: every point runs 4 times, the last rows say 'max 4'" \
	[ "$(stops "$tmp/n.csv" | awk -F'\t' '{ print $1, $3, $4 }' | tr '\n' ,)" = "1 0 ,1 1 ,1 2 ,1 3 max 4,2 0 ,2 1 ,2 2 ,2 3 max 4," ]
threadrun -q -o "$tmp/f.csv" --sweep 1 --repeat 2 -- true
check "--repeat N: the rows say fixed" [ "$(results_get "$tmp/f.csv" stop | sort -u)" = fixed ]

# Wider than the noise: a 1-thread point at +-20% settles with --precision 90.
threadrun -q -o "$tmp/w.csv" --sweep 1 --repeat auto --precision 90 --metric 'rate: (\S+)' -- \
	bash "$tmp/noisy.bash" >/dev/null 2>&1
check "--precision 90: the noisy point stops at 3 repeats" \
	[ "$(stops "$tmp/w.csv" | cut -f3 | tr '\n' ,)" = "0,1,2," ]

# Under a cluster launcher every rank must run the same repeats.
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 threadrun -q -o "$tmp/m.csv" --sweep 1 --repeat auto -- true 2>"$tmp/m.err"
check "--repeat auto under a launcher: exit 2, one line" \
	bash -c "[ $? = 2 ] && [ \$(wc -l <'$tmp/m.err') = 1 ] && grep -q 'not under a cluster launcher' '$tmp/m.err'"
