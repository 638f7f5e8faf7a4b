# threadplot marks the size figure with the cutoff threadreport computes
# (threadreport --raw -f tsv --cutoffs, columns by name), never its own.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
report=${THREADREPORT:-bin/threadreport}
[[ $report == /* ]] || report=$PWD/$report
if ! command -v gnuplot >/dev/null; then
	skip "gnuplot not installed"
	exit 0
fi
label() { grep -o 'cutoff ~[0-9]* B' "$1/size.svg" | head -n 1; }

# The figure's label is threadreport's cutoff on tests/data/cutoff.csv.
mkdir -p "$tmp/a"
plot/threadplot tests/data/cutoff.csv -o "$tmp/a" >"$tmp/out" 2>"$tmp/err"
st=$?
want=$("$report" tests/data/cutoff.csv 2>/dev/null | sed -n 's/.* above ~\([0-9]*\) bytes$/\1/p')
check "threadreport finds a cutoff on tests/data/cutoff.csv (${want:-none})" test -n "$want"
check "threadplot draws the size figure (exit $st)" bash -c '[ "$1" -eq 0 ] && [ -s "$2/size.svg" ]' _ $st "$tmp/a"
check "the label is threadreport's cutoff: '$(label "$tmp/a")' = 'cutoff ~$want B'" \
	test "$(label "$tmp/a")" = "cutoff ~$want B"

# A threadreport whose --cutoffs says otherwise: the figure follows it,
# so threadplot does not compute the cutoff itself.  The fake edits the
# cutoff column, found by name, to VALUE.
fake=$tmp/threadreport
cat >"$fake" <<EOS
#!/usr/bin/env bash
set -o pipefail
case " \$* " in
*" --cutoffs "*) "$report" "\$@" | awk -F'\t' -v OFS='\t' -v v="\$FAKE_CUTOFF" -v drop="\${FAKE_DROP:-}" '
	NR == 1 { for (i = 1; i <= NF; i++) if (\$i == "cutoff") c = i; if (drop) \$c = "x" }
	NR > 1 { \$c = v } { print }' ;;
*) exec "$report" "\$@" ;;
esac
EOS
chmod +x "$fake"
mkdir -p "$tmp/b" "$tmp/c" "$tmp/d"
THREADREPORT=$fake FAKE_CUTOFF=300 plot/threadplot tests/data/cutoff.csv -o "$tmp/b" >/dev/null 2>"$tmp/err"
st=$?
check "a cutoff of 300 from threadreport is the label (exit $st, got '$(label "$tmp/b")')" \
	bash -c '[ "$1" -eq 0 ] && [ "$2" = "cutoff ~300 B" ]' _ $st "$(label "$tmp/b")"
THREADREPORT=$fake FAKE_CUTOFF= plot/threadplot tests/data/cutoff.csv -o "$tmp/c" >/dev/null 2>"$tmp/err"
st=$?
check "no cutoff from threadreport (an empty field): no label (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && [ -s "$2/size.svg" ] && ! grep -q "cutoff ~" "$2/size.svg"' _ $st "$tmp/c"
THREADREPORT=$fake FAKE_CUTOFF='1e3;system("touch '"$tmp"'/PWNED")' plot/threadplot tests/data/cutoff.csv -o "$tmp/c" >/dev/null 2>"$tmp/err"
st=$?
check "a cutoff field that is not a number is no label and runs nothing (exit $st)" \
	bash -c '[ "$1" -eq 0 ] && ! grep -q "cutoff ~" "$2/size.svg" && [ ! -e "$3/PWNED" ]' _ $st "$tmp/c" "$tmp"
THREADREPORT=$fake FAKE_CUTOFF=300 FAKE_DROP=1 plot/threadplot tests/data/cutoff.csv -o "$tmp/d" >/dev/null 2>"$tmp/err"
st=$?
check "a --cutoffs table without a cutoff column: exit 2, named (exit $st)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "threadreport --cutoffs gave no .cutoff. column" "$2"' _ $st "$tmp/err"
