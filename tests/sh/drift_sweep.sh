# Issue 27's end-to-end checks: a sweep on a machine that changes speed,
# measured by threadrun and read by threadreport.
#  - step: the program's rate is 100 x threads, x 0.7 from its 6th run on
#    (tests/sh/step_rate.bash); swept over 1 and 2 threads, 5 repeats, the
#    paired speedup at 2 threads is 2.00 (the ratio of medians is not), and
#    a drift warning names about -30%, in the shuffled and the fixed order;
#  - drift: a rate of 100 x threads x (1 + 0.05 t), t seconds since the
#    sweep began: a positive drift warning of about that size;
#  - position: a rate 10% lower for the first run of each repeat, two
#    policies with different plans and equal rates: --order fixed crowns
#    one (kept as evidence of what the fixed order does), the shuffled
#    order (a seed where both policies lead some repeat) does not.
. "$(dirname "$0")/tap.bash"
here=$(cd "$(dirname "$0")" && pwd)
# The column COL of the tsv report of FILE at THREADS threads (first policy).
col() { threadreport --raw -f tsv "$1" 2>/dev/null | awk -F'\t' -v want="$2" -v t="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["threads"] == t { print $c[want]; exit }'; }
# The drift warning's percentage ("changed by -30%"), or nothing.
drift() { threadreport "$1" 2>/dev/null | sed -n "s/.*the machine's speed changed by \([-+][0-9.]*\)% over the sweep's \([0-9.]*\) s.*/\1 \2/p"; }

for order in shuffle fixed; do
	rm -f "$tmp/step" "$tmp/step.runs"
	STEP_STATE=$tmp/step threadrun -q -o "$tmp/s-$order.csv" --order $order --sweep 1,2 --repeat 5 \
		--metric 'rate: (\S+)' -- bash "$here/step_rate.bash" >/dev/null 2>&1
	check "step, --order $order: the sweep ran 10 measurements" [ "$(cat "$tmp/step")" = 10 ]
	sp=$(col "$tmp/s-$order.csv" speedup 2)
	sm=$(col "$tmp/s-$order.csv" speedup_of_medians 2)
	check "step, --order $order: paired speedup at 2 threads 2.00 +- 0.03 (got $sp; ratio of medians $sm)" \
		awk -v s="$sp" 'BEGIN { exit !(s != "" && s >= 1.97 && s <= 2.03) }'
	read -r pct secs <<<"$(drift "$tmp/s-$order.csv")"
	check "step, --order $order: a drift warning of about -30% (got '${pct:-none}')" \
		awk -v p="$pct" 'BEGIN { exit !(p != "" && p <= -25 && p >= -35) }'
done

cat >"$tmp/drift.bash" <<'PROG'
st=$DRIFT_STATE
now=$(date +%s.%N)
[ -s "$st" ] || echo "$now" >"$st"
sleep 0.3
awk -v t0="$(cat "$st")" -v now="$now" -v n="${THREADRUN_THREADS:-1}" 'BEGIN {printf "rate: %.3f\n", 100 * n * (1 + 0.05 * (now - t0))}'
PROG
DRIFT_STATE=$tmp/drift threadrun -q -o "$tmp/d.csv" --sweep 1,2 --repeat 5 --metric 'rate: (\S+)' -- \
	bash "$tmp/drift.bash" >/dev/null 2>&1
read -r pct secs <<<"$(drift "$tmp/d.csv")"
# 5% a second over the sweep's span, within half to one and a half of it:
# the warning compares the last repeat with the first, not the ends.
check "drift: a positive drift warning of about 5%/s x the sweep's ${secs:-?} s (got '${pct:-none}%')" \
	awk -v p="$pct" -v s="$secs" 'BEGIN { e = 5 * s; exit !(p != "" && p > 0 && p >= 0.5 * e && p <= 1.5 * e) }'
check "drift: the paired speedup at 2 threads is there beside the ratio of medians ($(col "$tmp/d.csv" speedup 2), $(col "$tmp/d.csv" speedup_of_medians 2))" \
	bash -c "[ -n '$(col "$tmp/d.csv" speedup 2)' ] && [ -n '$(col "$tmp/d.csv" speedup_of_medians 2)' ]"

cat >"$tmp/pos.bash" <<'PROG'
st=$POS_STATE
last=$(cat "$st" 2>/dev/null || echo none)
echo "$THREADRUN_REPEAT" >"$st"
echo "$THREADRUN_POLICY $THREADRUN_REPEAT" >>"$st.runs"
if [ "$last" != "$THREADRUN_REPEAT" ]; then echo "rate: 90"; else echo "rate: 100"; fi
PROG
for order in "--order fixed" "--seed 1"; do
	rm -f "$tmp/pos" "$tmp/pos.runs" "$tmp/p.csv"
	# shellcheck disable=SC2086
	POS_STATE=$tmp/pos threadrun -q -o "$tmp/p.csv" $order -p compact,none --sweep 1 --repeat 5 \
		--metric 'rate: (\S+)' -- bash "$tmp/pos.bash" >/dev/null 2>&1
	leaders=$(awk 'NR % 2 == 1 {print $1}' "$tmp/pos.runs" | sort -u | wc -l)
	best=$(threadreport "$tmp/p.csv" 2>/dev/null | grep 'best policy per thread count')
	if [ "$order" = "--order fixed" ]; then
		check "position, --order fixed: one policy always first, and crowned (got '$best')" \
			bash -c "[ $leaders = 1 ] && grep -q '1: none (1.1' <<<'$best'"
	else
		check "position, shuffled ($order): both policies lead some repeat, no difference measured (got '$best')" \
			bash -c "[ $leaders = 2 ] && grep -q '1: no difference measured' <<<'$best'"
	fi
done
