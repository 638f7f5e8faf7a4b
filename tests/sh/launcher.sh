# Identity from the launcher's environment, no MPI needed: rows of a rank
# say its job, rank, ranks, local_rank, launcher, the PUs it was given and
# when it ran (t_start, t_end); a bad environment is one warning and a
# single-machine run; threadrun -n says which rank it is and the PUs it was
# given, and tells a rank given too few PUs how to get more.  Launchers are
# faked with their variables (tests/unit/test_launcher.c has the table).
. "$(dirname "$0")/tap.bash"
set -o pipefail

# Whatever launcher runs the tests, these runs see only the fake ones.
unset $(compgen -e | grep -E '^(OMPI_|SLURM_|PMIX_|PMI_|MPI_LOCAL|THREADRUN_)') 2>/dev/null
ompi=(OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 PMIX_NAMESPACE=j1)
batch=(SLURM_JOB_ID=77 SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NODEID=0)
# The PUs this shell was given, as the kernel lists them ("0-3,8").
mine=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
launched='ignoring the launcher.s environment'

# A rank of Open MPI: the workload's row and threadrun's own.
env "${ompi[@]}" threadrun -q --monitor -o "$tmp/o.csv" 1 t2accel -q -a md5 -s 16 -d 0.3 \
	>/dev/null 2>"$tmp/err"
check "openmpi: runs (exit $?), no launcher warning" [ $? = 0 -a "$(grep -c "$launched" "$tmp/err")" = 0 ]
rows=$(results_get "$tmp/o.csv" algorithm job rank ranks local_rank launcher cpuset)
check "openmpi: every row says job j1, rank 1 of 2, local rank 1, openmpi, cpuset $mine" \
	[ "$(cut -f2- <<<"$rows" | sort -u)" = "$(printf 'j1\t1\t2\t1\topenmpi\t%s' "$mine")" -a \
	  "$(wc -l <<<"$rows")" = 2 ]
read -r w0 w1 wall <<<"$(results_get "$tmp/o.csv" t_start t_end wall_s | head -1)"
check "openmpi: the workload's t_start < t_end ($w0 $w1)" [ "$w0" -lt "$w1" ]
check "openmpi: t_end - t_start is wall_s within 10% ($((w1 - w0)) us, $wall s)" \
	awk -v d=$((w1 - w0)) -v w="$wall" 'BEGIN { exit !(d > 0.9 * w * 1e6 && d < 1.1 * w * 1e6) }'
now=$(date +%s)
check "openmpi: t_start is microseconds since the epoch, now-ish" \
	[ $((w0 / 1000000)) -le "$now" -a $((w0 / 1000000)) -ge $((now - 60)) ]
read -r r0 r1 <<<"$(results_get "$tmp/o.csv" t_start t_end | tail -1)"
check "openmpi: threadrun's window holds the workload's ($r0..$r1 holds $w0..$w1)" \
	[ "$r0" -le "$w0" -a "$r1" -ge "$w1" ]

# The PUs given: threadrun's affinity before it binds, exported to the program.
if taskset -c 0 true 2>/dev/null; then
	taskset -c 0 env "${ompi[@]}" threadrun -q -o "$tmp/t.csv" 1 t2accel -q -a md5 -s 16 -d 0.05 \
		>/dev/null 2>&1
	check "taskset -c 0: cpuset 0" [ "$(results_get "$tmp/t.csv" cpuset)" = 0 ]
else
	skip "PU 0 not usable here: no taskset"
fi
got=$(threadrun -q -o "$tmp/e.csv" -p none 1 sh -c 'echo "$THREADRUN_CPUSET"' 2>"$tmp/err")
check "threadrun exports THREADRUN_CPUSET=$mine (got '$got')" [ "$got" = "$mine" ]

# A workload run alone reads the launcher itself; THREADRUN_CPUSET is checked.
env "${ompi[@]}" t2accel -q -a md5 -s 16 -d 0.05 -o "$tmp/a.csv" >/dev/null 2>"$tmp/err"
check "a workload alone: rank 1 of 2, openmpi, its own CPUs" \
	[ "$(results_get "$tmp/a.csv" rank ranks launcher cpuset)" = "$(printf '1\t2\topenmpi\t%s' "$mine")" ]
THREADRUN_CPUSET=1-0,0 stream -q -n 2000 -t 2 -k copy -o "$tmp/c.csv" >/dev/null 2>"$tmp/err"
check "THREADRUN_CPUSET is compacted (1-0,0 -> 0-1)" [ "$(results_get "$tmp/c.csv" cpuset)" = 0-1 ]
THREADRUN_CPUSET='x;y' stream -q -n 2000 -t 2 -k copy -o "$tmp/b.csv" >/dev/null 2>"$tmp/err"
check "a bad THREADRUN_CPUSET: one warning naming it" \
	[ "$(grep -c "THREADRUN_CPUSET" "$tmp/err")" = 1 -a "$(grep -c "^stream: warning: ignoring THREADRUN_CPUSET='x;y': .*; rows give this process's own CPUs\$" "$tmp/err")" = 1 ]
check "a bad THREADRUN_CPUSET: the row has the process's own CPUs" \
	[ "$(results_get "$tmp/b.csv" cpuset)" = "$mine" ]

# Every workload passes its window and identity through.
env "${ompi[@]}" threadrun -q -o "$tmp/w.csv" 1 stream -q -n 2000 -t 2 -k copy >/dev/null 2>&1
env "${ompi[@]}" threadrun -q -o "$tmp/w.csv" 1 linpack -q 40 >/dev/null 2>&1
rows=$(results_get "$tmp/w.csv" workload job rank launcher t_start t_end)
check "stream and linpack rows: job, rank, launcher, t_start < t_end" \
	[ "$(awk -F'\t' '$2 == "j1" && $3 == 1 && $4 == "openmpi" && $5 > 0 && $5 < $6 { print $1 }' <<<"$rows" | tr '\n' ' ')" = "stream linpack " ]

# A Slurm batch script is no rank: one warning, from threadrun only.
env "${batch[@]}" threadrun -o "$tmp/s.csv" 1 t2accel -q -a md5 -s 16 -d 0.05 >/dev/null 2>"$tmp/err"
check "batch script: runs (exit $?)" [ $? = 0 ]
check "batch script: one warning line" [ "$(grep -c "$launched" "$tmp/err")" = 1 ]
check "batch script: threadrun's, naming the missing step" \
	grep -q "^threadrun: warning: ignoring the launcher's environment: SLURM_PROCID is set without a job step .*; a single-machine run\$" "$tmp/err"
check "batch script: the row has no identity, but its CPUs" \
	[ "$(results_get "$tmp/s.csv" job rank ranks local_rank launcher cpuset)" = "$(printf '\t\t\t\t\t%s' "$mine")" ]
env "${batch[@]}" t2accel -q -a md5 -s 16 -d 0.05 >/dev/null 2>"$tmp/err"
check "batch script, a workload alone: one warning, its own" \
	[ "$(grep -c "^t2accel: warning: ignoring the launcher's environment" "$tmp/err")" = 1 ]
env OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=2 threadrun -n 1 >/dev/null 2>"$tmp/err"
check "rank = size: one warning naming them" \
	grep -q "warning: ignoring the launcher's environment: the openmpi launcher's rank 2 is not below its size 2" "$tmp/err"
env PMIX_RANK=0 PMIX_NAMESPACE=$'a\nb' threadrun -n 1 >/dev/null 2>"$tmp/err"
check "a job id with a line break: one warning line" [ "$(wc -l <"$tmp/err")" = 1 ]
check "a job id with a line break: shown escaped" grep -qF "PMIX_NAMESPACE='a\\nb'" "$tmp/err"

# threadrun -n: the rank and the PUs given, in every form.
usable=$(threadrun -n --format tsv 1 | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["usable"] }')
out=$(env "${ompi[@]}" threadrun -n 1 2>&1)
check "-n: rank 1 of 2 (openmpi, job j1, local rank 1) and the PUs" \
	grep -qxF "# rank 1 of 2 (openmpi, job j1, local rank 1); the launcher gave PUs $mine: $usable usable" <<<"$out"
check "-n without a launcher: the PUs given" \
	grep -qxF "# given PUs $mine: $usable usable" <<<"$(threadrun -n 1)"
check "-n -t (another machine): no PUs given" bash -c \
	"! threadrun -t 'core:2 pu:1' -n 1 | grep -q 'PUs given\|given PUs'"
got=$(env "${ompi[@]}" threadrun -n --format csv 1 |
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["launcher"], $c["job"], $c["rank"], $c["ranks"], $c["local_rank"] }')
check "-n --format csv: launcher job rank ranks local_rank (got '$got')" [ "$got" = "openmpi j1 1 2 1" ]
got=$(threadrun -n --format tsv 1 | awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print "[" $c["launcher"] "][" $c["rank"] "][" $c["cpuset"] "]" }')
check "-n --format tsv without a launcher: empty identity, the cpuset (got '$got')" [ "$got" = "[][][$mine]" ]
got=$(env "${ompi[@]}" threadrun -n --format json 1)
check "-n --format json: launcher, job, rank, ranks, local_rank, cpuset" \
	grep -qF "\"launcher\": \"openmpi\", \"job\": \"j1\", \"rank\": 1, \"ranks\": 2, \"local_rank\": 1, \"cpuset\": \"$mine\"" <<<"$got"
check "-n --format json without a launcher: nulls" \
	grep -qF '"launcher": null, "job": null, "rank": null, "ranks": null, "local_rank": null' <<<"$(threadrun -n --format json 1)"

# A rank given fewer PUs than workers is told how to give it enough.
fix='give each rank 2, with mpirun --bind-to none or --map-by ppr:1:node:PE=2, or srun -c 2'
if taskset -c 0 true 2>/dev/null; then
	taskset -c 0 env "${ompi[@]}" threadrun -n 2 >"$tmp/out" 2>"$tmp/err"
	check "fewer PUs: the openmpi launcher gave 1 usable PU for 2 workers, and the fix" \
		grep -qF "threadrun: warning: the openmpi launcher gave this rank 1 usable PU for 2 workers: $fix" "$tmp/err"
	check "fewer PUs: -n says the launcher gave PU 0" \
		grep -qxF "# rank 1 of 2 (openmpi, job j1, local rank 1); the launcher gave PUs 0: 1 usable" "$tmp/out"
	taskset -c 0 threadrun -n 2 >/dev/null 2>"$tmp/err"
	check "fewer PUs without a launcher: only the wrap warning" bash -c "! grep -q 'launcher gave' '$tmp/err'"
	taskset -c 0 env "${ompi[@]}" threadrun --sweep 1,2 -o "$tmp/sw.csv" -- true >/dev/null 2>"$tmp/err"
	check "fewer PUs in a sweep: said once, for its largest count" \
		[ "$(grep -cF "$fix" "$tmp/err")" = 1 ]
else
	skip "PU 0 not usable here: no taskset"
	skip "PU 0 not usable here: no taskset"
	skip "PU 0 not usable here: no taskset"
	skip "PU 0 not usable here: no taskset"
fi
