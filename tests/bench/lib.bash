# Shared by the benchmarks of `make bench`: medians, ratios of rounds, and
# every round printed, so that a miss can be traced to its round.  Source it.
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# ratios A B: the median of the rounds' ratios, A's line over B's: each
# round's pair ran back to back, under the same clock.
ratios() { paste "$1" "$2" | awk '$2 > 0 {print $1 / $2}' | median; }
# rounds LABEL A B: each round's pair and its ratio, on one comment line.
rounds() {
	paste "$2" "$3" | awk -v l="$1" '{ s = s sprintf("  %g/%g=%.3f", $1, $2, $2 > 0 ? $1 / $2 : 0) }
		END { print "#   " l ", each round (ours/peer=ratio):" s }'
}
