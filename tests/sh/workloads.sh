# The workloads, said once.  The Makefile's WORKLOADS is the one list:
# src/study, completion/threadrun and tests/SUITES are checked against it.
# The example workload of docs/workers.md is that page's code block, kept
# as workloads/hello/hello.c; built from that one file and one Makefile
# line, it runs under threadrun and writes its row.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
top=$PWD

workloads=$(make -s --no-print-directory print-workloads)
check "make print-workloads names the workloads ($workloads)" test -n "$workloads"
for w in $workloads; do
	check "$w: src/study sweeps it" grep -qE "^[^#]*(^|[[:space:](])$w -q( |$)" src/study
	check "$w: completion/threadrun completes its options" \
		grep -qE "^complete -F _threadrun .* $w( |$)" completion/threadrun
	check "$w: tests/SUITES runs cli/$w" grep -qx "cli/$w" tests/SUITES
done
# The words completion offers as threadrun's program: the line after its comment.
offered=$(grep -A1 'finds its own workloads beside it' completion/threadrun |
	sed -n 's/.*compgen -W "\([^"]*\)".*/\1/p')
check "completion/threadrun offers the workloads as threadrun's program ($offered)" \
	test "$(tr ' ' '\n' <<<"$offered" | sort)" = "$(tr ' ' '\n' <<<"$workloads" | sort)"

# The page's code block is the file.
sed -n '/^```c$/,/^```$/p' docs/workers.md | sed '1d;$d' >"$tmp/hello.c"
check "docs/workers.md's example is workloads/hello/hello.c" cmp -s "$tmp/hello.c" workloads/hello/hello.c
other=$(grep -vE '^[[:space:]]*($|/?\*|//)' workloads/hello/hello.c |
	sed '/^static int hello_run/,/^}/d; /^static int append_row/,/^}/d' | wc -l)
check "the example is at most 60 lines besides its measurement and the row ($other)" test "$other" -le 60

# One Makefile line: the same Makefile, ONEFILE_WORKLOADS += hello added.
sed '/^ONEFILE_WORKLOADS += stream$/a ONEFILE_WORKLOADS += hello' Makefile >"$tmp/Makefile"
check "the Makefile with one line added differs by that line" \
	test "$(diff Makefile "$tmp/Makefile" | grep -c '^>')" = 1
if make -s --no-print-directory -f "$tmp/Makefile" SAN="${TEST_SAN:-}" BIN="$tmp/bin" \
	"$tmp/bin/hello" >"$tmp/make.out" 2>&1; then
	ok "hello builds from workloads/hello/hello.c and one Makefile line"
else
	notok "hello builds from workloads/hello/hello.c and one Makefile line" "$(tail -5 "$tmp/make.out")"
fi
threadrun -q -o "$tmp/r.csv" -p compact 2 "$tmp/bin/hello" -q -n 100000 >"$tmp/out" 2>&1
check "threadrun 2 hello: exit 0" test $? = 0
row=$(results_get "$tmp/r.csv" workload algorithm threads policy ops unit verified checks status 2>/dev/null | tr '\t' ' ')
check "its row: hello sum, 2 workers, 200000 ops/s, verified by 2 checks ($row)" \
	test "$row" = "hello sum 2 compact 200000 ops/s yes 2 0"
HELLO_FAULT=1 threadrun -q -o "$tmp/f.csv" 1 "$tmp/bin/hello" -q -n 1000 >"$tmp/out" 2>&1
check "a wrong sum: exit 1, said, the row not verified" bash -c \
	'[ $1 = 1 ] && grep -q "verification failed: 1 of 1 sums wrong" "$2" && [ "$(results_get "$3" verified)" = no ]' \
	_ $? "$tmp/out" "$tmp/f.csv"
"$tmp/bin/hello" -n 0 >"$tmp/out" 2>&1
check "a bad value: exit 2, one line naming it" bash -c \
	'[ $1 = 2 ] && grep -qx "hello: numbers: 0 is out of range, allowed 1..4294967295" "$2"' _ $? "$tmp/out"
