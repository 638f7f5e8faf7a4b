# A real pinned run: an ordinary OpenMP program (tests/progs/omp_where.c,
# no threadrun code in it) reports from inside each thread where it runs,
# and every thread is on its planned PU.
. "$(dirname "$0")/tap.bash"
npu=$(nproc)
last=$((npu - 1))
for policy in scatter compact c1 "list:$last,0" none; do
	for nw in 1 $npu $((npu * 2)); do
		out=$(threadrun -q -o "$tmp/r.csv" -p "$policy" "$nw" sh -c 'echo "plan $THREADRUN_PLAN"; omp_where' 2>&1)
		plan=$(sed -n 's/^plan //p' <<<"$out")
		bad=""
		count=0
		while read -r _ t _ cpu; do
			count=$((count + 1))
			[ "$plan" = none ] && continue
			want=$(cut -d, -f$((t + 1)) <<<"$plan")
			[ "$cpu" = "$want" ] || bad="$bad thread $t on $cpu (planned $want);"
		done < <(grep '^thread ' <<<"$out")
		if [ "$count" -eq "$nw" ] && [ -z "$bad" ]; then
			ok "policy $policy, $nw threads: every OpenMP thread on its planned PU ($plan)"
		else
			notok "policy $policy, $nw threads" "$count threads reported;$bad" "$out"
		fi
	done
done
# threadrun writes its own row for a program that writes none.
rows=$(grep -c ',omp_where,\|,sh,' "$tmp/r.csv")
check "threadrun appended one row per run of a foreign program ($rows)" [ "$rows" -eq 15 ]
check "rows carry the plan" grep -q '"0,1",' "$tmp/r.csv"
# The launcher passes SIGTERM on to the program and reports 128+15.
# Its own session: what it leaves behind is looked for there only.
setsid threadrun -q -o "$tmp/r.csv" 1 sh -c 'echo $$ >"$0"; exec sleep 30' "$tmp/sleep.pid" & pid=$!
for i in $(seq 100); do [ -s "$tmp/sleep.pid" ] && break; sleep 0.05; done
kill -TERM $pid; wait $pid; st=$?
check "SIGTERM forwarded to the program, status 143 (got $st)" [ "$st" -eq 143 ]
check "no sleep left behind" eval "! left_in_session $pid"
