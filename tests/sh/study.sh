# src/study plans from threadrun's machine form (-n --format tsv), not its
# text table: --plan prints the thread counts and the policies it would
# sweep, on this machine or, with STUDY_TOPOLOGY, a synthetic one.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1

plan() { timeout 60 src/study --plan "$@" 2>"$tmp/err"; }

# This machine: 1 .. 2 x the usable PUs; one usable PU under taskset.
usable=$(nproc)
got=$(plan)
check "this machine: counts 1-$((2 * usable))x2 (got: $got)" grep -qx "counts 1-$((2 * usable))x2" <<<"$got"
check "this machine: compact first, none last (got: $got)" grep -qx 'policies compact,.*none' <<<"$got"
if command -v taskset >/dev/null; then
	got=$(taskset -c 0 src/study --plan 2>"$tmp/err")
	check "one usable PU (taskset -c 0): counts 1-2x2 (got: $got)" grep -qx 'counts 1-2x2' <<<"$got"
else
	skip "taskset not installed"
fi

# An UltraSPARC T2 (8 strands per core): c8 plans as compact and is left out.
got=$(STUDY_TOPOLOGY='numa:1 package:1 core:8 pu:8' plan)
check "T2: counts 1-128x2 (got: $got)" grep -qx 'counts 1-128x2' <<<"$got"
check "T2: compact, scatter, c1, c2, c4 and none (got: $got)" grep -qx 'policies compact,scatter,c1,c2,c4,none' <<<"$got"
# Two sockets of SMT2: c2 is compact.
got=$(STUDY_TOPOLOGY='numa:2 package:2 core:16 pu:2' plan)
check "2 x SMT2: counts 1-256x2, policies compact,scatter,c1,none (got: $(echo $got))" \
	test "$got" = $'counts 1-256x2\npolicies compact,scatter,c1,none'
# A single-strand machine: c1 plans as compact (scatter spreads, 0,2 at 2).
got=$(STUDY_TOPOLOGY='core:4 pu:1' plan)
check "4 cores, no SMT: policies compact,scatter,none (got: $(echo $got))" \
	test "$got" = $'counts 1-8x2\npolicies compact,scatter,none'
check "nothing on stderr" test ! -s "$tmp/err"

# Refusals: exit 2, one line naming the bad value; a plan that fails says why.
STUDY_TOPOLOGY='core:2' timeout 60 src/study >/dev/null 2>"$tmp/err"
st=$?
check "STUDY_TOPOLOGY without --plan is refused (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "goes with --plan" "$2"' _ $st "$tmp/err"
timeout 60 src/study --bogus >/dev/null 2>"$tmp/err"
st=$?
check "an unknown argument is refused (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "'"'"'--bogus'"'"' not known" "$2"' _ $st "$tmp/err"
STUDY_TOPOLOGY='bogus:x' plan >/dev/null
st=$?
check "a topology threadrun refuses fails the plan with threadrun's reason (exit $st)" \
	bash -c '[ "$1" -ne 0 ] && grep -q "not a valid hwloc synthetic description" "$2"' _ $st "$tmp/err"
