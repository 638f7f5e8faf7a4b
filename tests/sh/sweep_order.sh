# A sweep's order (--order, --seed), its resume and --warmup, seen by a
# program that logs each of its runs (step_rate.bash), and the step
# program's rates.
. "$(dirname "$0")/tap.bash"
step=$(cd "$(dirname "$0")" && pwd)/step_rate.bash
# sweep NAME OPTION...: a sweep of 1,2 threads x compact,none, 2 repeats, of
# the step program counting in $tmp/NAME; its rows in $tmp/NAME.csv.
sweep() {
	local name=$1
	shift
	STEP_STATE=$tmp/$name threadrun -q --sweep 1,2 -p compact,none --repeat 2 "$@" \
		-o "$tmp/$name.csv" --metric 'rate: (\S+)' -- "$step"
}
# The order the program ran in: "POLICY THREADS REPEAT" per run.
runs() { cut -d' ' -f2- "$tmp/$1.runs"; }
# The order of the recorded runs, from the rows.
rows() { results_get "$tmp/$1.csv" algorithm policy threads repeat | grep '^(run)' | cut -f2-; }

fixed=$'compact 1 0\ncompact 2 0\nnone 1 0\nnone 2 0\ncompact 1 1\ncompact 2 1\nnone 1 1\nnone 2 1'
sweep fixed --order fixed
check "--order fixed: policy by policy, counts ascending, repeat by repeat" [ "$(runs fixed)" = "$fixed" ]
check "--order fixed: the rows in that order" [ "$(rows fixed | tr '\t' ' ')" = "$fixed" ]

sweep s7 --seed 7
sweep s7b --seed 7
check "--seed 7 twice: the same order" [ "$(runs s7)" = "$(runs s7b)" ]
check "every repeat runs each combination once" bash -c \
	"[ \"\$(sort <<<'$(runs s7)')\" = \"\$(sort <<<'$fixed')\" ]"
for r in 0 1; do
	check "repeat $r: its 4 runs together" bash -c \
		"[ \"\$(sed -n '$((r * 4 + 1)),$((r * 4 + 4))p' <<<'$(runs s7)' | awk '{print \$3}' | sort -u)\" = $r ]"
done
differs=no
for seed in 1 2 3; do
	sweep "d$seed" --seed $seed
	[ "$(runs "d$seed")" != "$fixed" ] && differs=yes
done
check "shuffled (seeds 1..3): an order other than the fixed one" [ $differs = yes ]
# The report follows the sweep's -p order (the rows' policies column),
# whichever policy a seed ran first: the same layout for every seed.
layout() { threadreport --raw -f tsv "$tmp/$1.csv" 2>/dev/null |
	awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "%s %s,", $c["policy"], $c["threads"] }'; }
check "seeds 1..3: some seed ran none first ($(for s in 1 2 3; do rows "d$s" | head -1 | cut -f1; done | tr '\n' ' '))" \
	bash -c "[ -n \"\$(for s in 1 2 3; do results_get '$tmp/'d\$s.csv policy | head -1; done | grep -x none)\" ]"
check "seeds 1..3: the report's points in -p order, the same for each ($(layout d1))" \
	[ "$(layout d1)|$(layout d2)|$(layout d3)" = "compact 1,compact 2,none 1,none 2,|compact 1,compact 2,none 1,none 2,|compact 1,compact 2,none 1,none 2," ]
check "the repeats of one seed are shuffled apart" bash -c \
	"[ \"\$(head -4 <<<'$(runs s7)' | cut -d' ' -f1,2)\" != \"\$(tail -4 <<<'$(runs s7)' | cut -d' ' -f1,2)\" ] || \
	 [ \"\$(head -4 <<<'$(runs d1)' | cut -d' ' -f1,2)\" != \"\$(tail -4 <<<'$(runs d1)' | cut -d' ' -f1,2)\" ]"
check "the seed in every row" [ "$(results_get "$tmp/s7.csv" seed | sort -u)" = 7 ]
check "the order and seed in FILE.log" grep -q '^=== threadrun sweep: order shuffle, seed 7$' "$tmp/s7.csv.log"

# No --seed: one made for the run, recorded; --seed with it runs the same order.
sweep new
seed=$(results_get "$tmp/new.csv" seed | sort -u)
check "no --seed: one seed, a number, on every row ($seed)" bash -c "[[ '$seed' =~ ^[0-9]+$ ]]"
sweep again --seed "$seed"
check "a rerun with the recorded seed runs the same order" [ "$(runs new)" = "$(runs again)" ]

# Interrupted at its 3rd run, resumed without --seed: the same order, each
# combination recorded once.
STEP_STOP=3 sweep cut --seed 11 2>/dev/null
st=$?
check "the interrupted sweep exits 130 (got $st)" [ $st -eq 130 ]
check "2 runs recorded before it" [ "$(rows cut | wc -l)" -eq 2 ]
sweep cut --resume
sweep ref --seed 11
check "--resume: the same order as an uninterrupted sweep of its seed" [ "$(rows cut)" = "$(rows ref)" ]
check "--resume: each combination recorded once" [ "$(rows cut | sort -u | wc -l)" -eq 8 ]
check "--resume: the run cut off is run again, none other" [ "$(wc -l <"$tmp/cut.runs")" -eq 9 ]
check "--resume: the seed of the file on every row" [ "$(results_get "$tmp/cut.csv" seed | sort -u)" = 11 ]

# --warmup 2: two more runs, of the first combination, no row.
sweep warm --order fixed --warmup 2
check "--warmup 2: 10 runs of the program" [ "$(wc -l <"$tmp/warm.runs")" -eq 10 ]
check "--warmup 2: the first combination, warmed up twice" \
	[ "$(runs warm | head -3 | sort -u)" = "compact 1 0" ]
check "--warmup 2: 8 runs recorded, as without" [ "$(rows warm)" = "$(rows fixed)" ]
check "--warmup 2: 16 rows, as without" \
	[ "$(results_get "$tmp/warm.csv" rate | wc -l)" -eq "$(results_get "$tmp/fixed.csv" rate | wc -l)" ]
check "--warmup 2: said in FILE.log" grep -q 'warm-up 2/2, 1 threads, compact (not recorded)' "$tmp/warm.csv.log"

threadrun -q --sweep 1 --warmup 2 -o "$tmp/t2.csv" -- t2accel -q -a md5 -s 64 -d 0.02
check "--warmup 2 of a workload of ours: its rows of one measurement only" \
	[ "$?:$(results_get "$tmp/t2.csv" algorithm | tr '\n' ' ')" = "0:md5 (run) " ]

# The step program: 100 x threads, x 0.7 from its 6th run on.
rates() { results_get "$tmp/$1.csv" algorithm rate | grep -v '^(run)' | cut -f2 | tr '\n' ' '; }
check "step program, fixed order: 5 runs at full speed, then 30% less" \
	[ "$(rates fixed)" = "100 200 100 200 100 140 70 140 " ]
want=$(awk '{ printf "%g ", 100 * $3 * (NR >= 6 ? 0.7 : 1) }' "$tmp/s7.runs")
check "step program, shuffled: 5 runs at full speed, then 30% less ($want)" [ "$(rates s7)" = "$want" ]
