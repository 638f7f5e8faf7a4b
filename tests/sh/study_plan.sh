# src/study --plan's sizes and time: STREAM's size is STREAM's rule (4x the
# last-level caches), at most a quarter of MemAvailable for the three
# arrays, capped so that the default study on 2 CPUs stays under 5 minutes
# whatever the caches report, and it says why; STUDY_STREAM_N wins.
# STUDY_LLC_BYTES and STUDY_MEM_AVAILABLE stand in for the machine's,
# STUDY_TOPOLOGY for its CPUs (2 cores).
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1

# plan LLC MEM [VAR=VALUE...]: --plan on 2 CPUs with these caches and memory.
plan() {
	local llc=$1 mem=$2
	shift 2
	env STUDY_TOPOLOGY='core:2 pu:1' STUDY_LLC_BYTES="$llc" STUDY_MEM_AVAILABLE="$mem" "$@" \
		timeout 60 src/study --plan 2>"$tmp/err"
}
field() { sed -n "s/^$1 \([0-9]*\).*/\1/p" <<<"$got"; }
seconds() { sed -n 's/^estimate \([0-9]*\):\([0-9]*\) .*/\1 \2/p' <<<"$got" | { read -r m s && echo $((10#$m * 60 + 10#$s)); }; }

# A 2 GiB last-level cache and 4 GiB of memory: STREAM's rule (1 GiB
# elements, 24 GiB) cannot be held; the arrays stay within a quarter of
# MemAvailable, and the plan says it was bounded and that it is below 4x
# the cache.
got=$(plan 2GiB 4GiB)
elems=$(field 'stream N')
check "2 GiB cache, 4 GiB memory: a stream size (got: $elems)" test -n "$elems"
check "2 GiB cache, 4 GiB memory: the three arrays within a quarter of 4 GiB ($((24 * ${elems:-0})) bytes)" \
	test $((24 * ${elems:-0})) -le $((1 << 30))
check "2 GiB cache, 4 GiB memory: says it was bounded by memory, naming MemAvailable and the rule (got: $got)" \
	grep -qE "^stream bounded by memory: .*MemAvailable \(4\.0 GiB\).*STREAM's rule 1073741824 " <<<"$got"
check "2 GiB cache, 4 GiB memory: warns below 4x the largest cache" \
	grep -q '^stream warning: .* below 4x the largest cache (2\.0 GiB)' <<<"$got"

# A VM's 508 MiB L3 on 24 GiB: the rule (266338304 elements, 6 GiB) fits in
# memory but would take the study to 20 minutes; capped, the estimate stays
# under 5 minutes.
got=$(plan 508MiB 24GiB)
elems=$(field 'stream N')
check "508 MiB L3, 24 GiB: not bounded by memory" bash -c '! grep -q "^stream bounded" <<<"$1"' _ "$got"
check "508 MiB L3, 24 GiB: capped for time below the rule (got: $elems)" \
	bash -c '[ "${1:-0}" -gt 0 ] && [ "$1" -lt 266338304 ] && grep -q "^stream capped for time: $1," <<<"$2"' _ "$elems" "$got"
secs=$(seconds)
check "508 MiB L3, 24 GiB: the study's estimate under 5 minutes (got: ${secs:-none} s)" test "${secs:-999}" -lt 300
check "508 MiB L3, 24 GiB: the estimate is the workloads' (crypto, linpack, stream lines)" \
	test "$(grep -cE '^(crypto|linpack|stream N) .*about [0-9]{2}:[0-9]{2}$' <<<"$got")" -eq 3

# A small cache and memory to spare: STREAM's rule itself, 4x 8 MiB.
got=$(plan 8MiB 64GiB)
check "8 MiB cache, 64 GiB: STREAM's rule, 4194304 elements, neither bounded nor capped (got: $(echo $got))" \
	bash -c 'grep -q "^stream N 4194304 (32\.0 MiB per array, 96\.0 MiB in all)" <<<"$1" &&
		grep -q "^stream size: STREAM.s rule, 4x the last-level caches (8\.0 MiB, 1 cache, STUDY_LLC_BYTES): 4194304$" <<<"$1" &&
		! grep -qE "^stream (bounded|capped|warning)" <<<"$1"' _ "$got"

# The user's STUDY_STREAM_N wins over every bound.
got=$(plan 2GiB 4GiB STUDY_STREAM_N=123456789)
check "STUDY_STREAM_N wins over the memory bound (got: $(echo $got))" \
	bash -c 'grep -q "^stream N 123456789 " <<<"$1" && grep -q "^stream size: STUDY_STREAM_N" <<<"$1" &&
		! grep -qE "^stream (bounded|capped)" <<<"$1"' _ "$got"

# The other sizes and the algorithms: linpack's N, t2accel's study set as
# t2accel --list's STUDY column names it.
got=$(plan 8MiB 64GiB STUDY_N=1000 STUDY_SIZES=64,1024 STUDY_SECONDS=2)
check "linpack N from STUDY_N" grep -q '^linpack N 1000: about ' <<<"$got"
want=$(t2accel --list | awk -F'\t' '$6 == "yes" {print $1}' | sort | paste -sd, -)
have=$(sed -n 's/^crypto t2accel -a \([^ ]*\) .*/\1/p' <<<"$got" | tr , '\n' | sort | paste -sd, -)
check "crypto: t2accel's STUDY set ($want; got $have)" test -n "$want" -a "$want" = "$have"
check "crypto: the sizes and seconds given" grep -q '^crypto t2accel -a [^ ]* -s 64,1024 -k 2048 -d 2: ' <<<"$got"
check "nothing on stderr" test ! -s "$tmp/err"

# Sizes that are not sizes: exit 2, one line naming the value and the forms.
for bad in 4GB -1 1.5GiB; do
	got=$(plan 2GiB "$bad")
	st=$?
	check "STUDY_MEM_AVAILABLE='$bad' is refused (exit $st, $(cat "$tmp/err"))" \
		bash -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q "STUDY_MEM_AVAILABLE: '"'"'$3'"'"' is not a size, allowed: bytes, or a number with KiB, MiB or GiB" "$2"' \
		_ $st "$tmp/err" "$bad"
done
got=$(plan 2G 4GiB)
st=$?
check "STUDY_LLC_BYTES='2G' is refused (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "STUDY_LLC_BYTES: '"'"'2G'"'"' is not a size" "$2"' _ $st "$tmp/err"
got=$(plan 2GiB 4GiB STUDY_STREAM_N=1e6)
st=$?
check "STUDY_STREAM_N='1e6' is refused (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "STUDY_STREAM_N: '"'"'1e6'"'"' is not a whole number" "$2"' _ $st "$tmp/err"
