# The other tools' spellings give the plans those tools give: hwloc
# locations (-p LOC, list:LOC, --allowed LOC) the PUs hwloc-calc names, on
# synthetic topologies and on this machine; likwid-pin's and OpenMP's
# spellings the PUs worked out from likwid's and libgomp's rules; and
# -n --env the environment a real run exports.
. "$(dirname "$0")/tap.bash"

# The plan's PUs in worker order, comma-joined (-n --format csv).
plan() { threadrun -n --format csv "$@" 2>/dev/null | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {printf "%s%s", s, $c["pu"]; s = ","} END {print ""}'; }
same() {
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "ours:   $2" "theirs: $3"; fi
}

if ! command -v hwloc-calc >/dev/null; then
	skip "hwloc-calc missing (Debian's hwloc package; src/install-deps check installs it)"
else
	for topo in 'numa:2 package:2 core:4 pu:2' 'numa:1 package:1 core:8 pu:8' \
		    'package:2 [numa] core:6 pu:2' 'package:1 core:6 pu:1'; do
		for loc in core:0-1 pu:1 core:odd core:even core:1:2 core:2- pu:all \
			   package:0.core:1-2 package:1.core:0-1 'package:1.core:1-2.pu:1' numa:0 \
			   numa:0.core:1 core:0.pu:1; do
			theirs=$(hwloc-calc -i "$topo" --po -I pu "$loc" 2>/dev/null) || continue
			[ -n "$theirs" ] || continue
			count=$(tr ',' '\n' <<<"$theirs" | wc -l)
			same "'$topo': -p $loc is hwloc-calc's PUs" "$(plan -t "$topo" -p "$loc" "$count")" "$theirs"
			same "'$topo': --allowed $loc keeps hwloc-calc's PUs" \
				"$(plan -t "$topo" --allowed "$loc" "$count")" "$theirs"
		done
	done
	topo='numa:2 package:2 core:4 pu:2'
	theirs="$(hwloc-calc -i "$topo" --po -I pu core:5),$(hwloc-calc -i "$topo" --po -I pu pu:0)"
	same "list:core:5,pu:0 keeps the order written" "$(plan -t "$topo" -p list:core:5,pu:0 3)" "$theirs"
	# This machine, run for real: the plan exported is hwloc-calc's.
	theirs=$(hwloc-calc --po -I pu core:0-1 2>/dev/null | cut -d, -f1-2)
	got=$(threadrun -q -o "$tmp/r.csv" -p core:0-1 2 sh -c 'echo "$THREADRUN_PLAN"')
	same "threadrun -p core:0-1 2 runs on hwloc-calc's core:0-1" "$got" "$theirs"
	if [ "$(hwloc-calc --number-of pu all)" -ge 2 ]; then
		got=$(threadrun -q -o "$tmp/r.csv" --allowed pu:1 1 sh -c 'echo "$THREADRUN_PLAN"')
		same "threadrun --allowed pu:1 runs on hwloc-calc's pu:1" "$got" "$(hwloc-calc --po -I pu pu:1)"
	else
		skip "one PU here: no pu:1"
	fi
fi

# likwid-pin: domains' PUs physical cores first (S0:, N:, M1:), E:
# COUNT:CHUNK:STRIDE over the domain in order, scatter over the domains.
topo='numa:2 package:2 core:4 pu:2'
same "S0:0-3 is socket 0's first strands" "$(plan -t "$topo" -p S0:0-3 4)" "0,2,4,6"
same "S0:0-1@S1:0-1 joins sockets 0 and 1" "$(plan -t "$topo" -p S0:0-1@S1:0-1 4)" "0,2,8,10"
same "N:0-3 is the node's first strands" "$(plan -t "$topo" -p N:0-3 4)" "0,2,4,6"
same "M1:0-1 is NUMA domain 1's first strands" "$(plan -t "$topo" -p M1:0-1 2)" "16,18"
same "E:N:8:1:2 is every second PU" "$(plan -t "$topo" -p E:N:8:1:2 8)" "0,2,4,6,8,10,12,14"
same "E:S1:4:2:4 takes 2 of every 4 in socket 1" "$(plan -t "$topo" -p E:S1:4:2:4 4)" "8,9,12,13"
same "S:scatter goes round the sockets" "$(plan -t "$topo" -p S:scatter 5)" "0,8,16,24,2"
# OpenMP: libgomp's places and subpartitions.
same "spread is spread over threads" "$(plan -t "$topo" -p spread 4)" "0,8,16,24"
same "spread:cores, 3 on 16 cores, is cores 0, 6, 11" "$(plan -t "$topo" -p spread:cores 3)" "0,12,22"
same "close:cores is a core each in order" "$(plan -t "$topo" -p close:cores 3)" "0,2,4"
same "master:sockets stays on socket 0" "$(plan -t "$topo" -p master:sockets 3)" "0,1,2"
same "close:sockets, 6 on 4 sockets: one each, then the last 2 from the first (libgomp)" "$(plan -t "$topo" -p close:sockets 6)" "0,8,16,24,1,9"
# This machine: -p spread and -p S0:0-1 run.
got=$(threadrun -q -o "$tmp/r.csv" -p spread 2 sh -c 'echo "$THREADRUN_PLAN $THREADRUN_POLICY"')
same "threadrun -p spread 2 runs spread:threads" "$got" "$(plan -p spread 2) spread:threads"
if [ "$(threadrun -n --format csv 1 | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $c["usable"]}')" -ge 2 ]; then
	got=$(threadrun -q -o "$tmp/r.csv" -p S0:0-1 2 sh -c 'echo "$THREADRUN_PLAN"')
	same "threadrun -p S0:0-1 2 runs on socket 0's first two" "$got" "$(plan -p N:0-1 2)"
else
	skip "one usable PU here: no S0:0-1"
fi

# -n --env: what a real run exports, from the same code.
env_plan=$(threadrun -n --env -p list:1,0 2 2>/dev/null | sort)
check "-n --env prints OMP_PLACES, OMP_PROC_BIND, THREADRUN_PLAN of the plan" \
	grep -qx "export OMP_PLACES='{1},{0}'" <<<"$env_plan"
if [ "$(hwloc-calc --number-of pu all 2>/dev/null || echo 1)" -ge 2 ]; then
	run_env=$(THREADRUN_RESULTS="$tmp/r.csv" threadrun -q -p list:1,0 2 sh -c \
		'env | grep -E "^(OMP|THREADRUN)_" | grep -vE "^THREADRUN_(RUN|CONFIG|REPEAT|ROWS_FD)="' | sort)
	eval_env=$(env -i PATH="$PATH" THREADRUN_RESULTS="$tmp/r.csv" sh -c \
		"$(THREADRUN_RESULTS="$tmp/r.csv" threadrun -n --env -p list:1,0 2 2>/dev/null); env" | grep -E "^(OMP|THREADRUN)_" | sort)
	same "-n --env is the environment a run on the plan gets" "$eval_env" "$run_env"
else
	skip "one PU here: no list:1,0"
fi
