# src/study plans from threadrun's machine form (-n --format tsv), not its
# text table: --plan prints the thread counts and the policies it would
# sweep, on this machine or, with STUDY_TOPOLOGY, a synthetic one.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1

# The thread counts and policies (--plan's sizes and times follow them:
# sh/study_plan).
plan() { timeout 60 src/study --plan "$@" 2>"$tmp/err" | grep -E '^(counts|policies) '; }

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

# A tiny study into a directory of its own (STUDY_RESULTS): one progress
# line for the whole study a step on stderr (not a terminal), threadrun's
# per-sweep lines replaced; it ends with the paths of the full report, the
# figures and, where threadreport writes one, the HTML page; its README
# holds the plan and the sizes.
# STREAM's size bounded by memory (a 64 MiB cache, 9.6 MB available: 100000
# elements), so the study warns that STREAM measures the cache in part.
tiny=(env STUDY_RESULTS="$tmp/res" STUDY_MAX=1 STUDY_REPEAT=1 STUDY_SECONDS=0.2 STUDY_N=200
	STUDY_LLC_BYTES=64MiB STUDY_MEM_AVAILABLE=9600000)
runs=$("${tiny[@]}" src/study --plan | sed -n 's/^runs \([0-9]*\) .*/\1/p')
"${tiny[@]}" timeout 300 src/study >"$tmp/out" 2>"$tmp/err"
st=$?
check "a tiny study: exit 0 (got $st: $(tail -3 "$tmp/err"))" test $st -eq 0
prog=$(grep '^\[' "$tmp/err")
r=$runs
check "progress: from [crypto 0/$r, linpack 0/$r, stream 0/$r] to all $r done, ETA 00:00 (got: $prog)" \
	bash -c 'head -1 <<<"$1" | grep -qE "^\[crypto 0/$2, linpack 0/$2, stream 0/$2\] 00:0[0-9] elapsed, ETA [0-9]{2}:[0-9]{2}$" &&
		tail -1 <<<"$1" | grep -qE "^\[crypto $2/$2, linpack $2/$2, stream $2/$2\] [0-9]{2}:[0-9]{2} elapsed, ETA 00:00$"' _ "$prog" "$r"
check "progress: a line a run, and the first ($(wc -l <<<"$prog") lines for $((3 * r)) runs)" test "$(wc -l <<<"$prog")" -eq $((3 * r + 1))
check "progress: threadrun's own sweep lines do not show" bash -c '! grep -q "threadrun: sweep" "$1"' _ "$tmp/err"
html=0
[[ $(threadreport --help) != *html* ]] || html=1
last=$(tail -n $((2 + html)) "$tmp/out" | awk '{print $NF}')
want="$tmp/res/latest/report.txt $tmp/res/latest/figures/"
[ $html = 0 ] || want="$want $tmp/res/latest/index.html"
check "it ends with the paths (got: $(echo $last))" test "$(echo $last)" = "$want"
check "the report, the figures and the README are there" \
	bash -c 'grep -q "== stream" "$1/report.txt" && [ -s "$1/figures/speedup.svg" ] && grep -q "^stream N 100000 " "$1/README"' _ "$tmp/res/latest"
warn="study: stream warning: 781.2 KiB per array is below 4x the largest cache (64.0 MiB): STREAM measures the cache in part"
check "the sizing's warning heads report.txt" [ "$(head -1 "$tmp/res/latest/report.txt")" = "$warn" ]
check "... and follows the summary, before the paths" \
	[ "$(tail -n $((4 + html)) "$tmp/out" | head -1)" = "$warn" ]
