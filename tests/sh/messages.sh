# Every message is one line: a host name, a path, an option value, a field
# of a results file, a topology or a module name holding a newline or an
# ESC is shown escaped (\n, \x1b), the same way in every program, and no
# control byte reaches the terminal.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
threadrun=$(command -v threadrun)
nl_esc=$(printf 'a\nb\033[2Jc')

# one_line NAME EXPECTED FILE: FILE is one line holding EXPECTED, and has no
# control byte but its newline.
one_line() {
	check "$1" bash -c '[ "$(wc -l <"$2")" -eq 1 ] && grep -qF -- "$1" "$2" && ! LC_ALL=C grep -q "[[:cntrl:]]" "$2"' \
		_ "$2" "$3"
}

# The host name, refused for -o %h: the message names it escaped.  A UTS
# namespace of our own sets it (sethostname takes any bytes).
if unshare --uts --user --map-root-user true 2>/dev/null && command -v python3 >/dev/null; then
	unshare --uts --user --map-root-user python3 -c '
import os, socket, sys
socket.sethostname(b"a\nb\x1bx")
os.execv(sys.argv[1], sys.argv[1:])' "$threadrun" -o "$tmp/r-%h.csv" 1 true >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "a host name with a newline and ESC: refused for %h, exit 2 (got $st)" [ $st -eq 2 ]
	one_line "the host name's message is one line, escaped: 'a\\nb\\x1bx'" \
		"results: the host name 'a\\nb\\x1bx' cannot be part of a file name" "$tmp/err"
else
	skip "no user and UTS namespace here (unshare --uts --user): the host name cannot be set"
	skip "no user and UTS namespace here: the host name's message"
fi

# An option value.
threadrun "$(printf '1\033[31m')" true >"$tmp/out" 2>"$tmp/err"
one_line "threadrun: a count with ESC is named escaped" "threads: '1\\x1b[31m' is not a number" "$tmp/err"
threadrun -o "$tmp/$nl_esc-%q" 1 true >"$tmp/out" 2>"$tmp/err"
one_line "threadrun -o: the pattern is named escaped" "$tmp/a\\nb\\x1b[2Jc-%q' is not known" "$tmp/err"
threadreport -f "$(printf 'md\033[31m\nx')" tests/data/handmade.csv >"$tmp/out" 2>"$tmp/err"
one_line "threadreport -f: the format is named escaped" "format 'md\\x1b[31m\\nx' not known" "$tmp/err"

# A path.
threadreport "$tmp/$nl_esc.csv" >"$tmp/out" 2>"$tmp/err"
one_line "threadreport: a missing file is named escaped" "cannot read '$tmp/a\\nb\\x1b[2Jc.csv'" "$tmp/err"

# A field of a results file, with the file's name.
printf 'workload,threads,rate\nw,1,\033[2Jx\n' >"$tmp/$nl_esc.csv"
threadreport "$tmp/$nl_esc.csv" >"$tmp/out" 2>"$tmp/err"
grep -v ': note: ' "$tmp/err" | head -1 >"$tmp/first"
one_line "threadreport: a bad field and its file are named escaped" \
	"a\\nb\\x1b[2Jc.csv:2: column 'rate': '\\x1b[2Jx' is not a decimal number" "$tmp/first"
check "threadreport: no control byte in any of its messages" \
	bash -c '! LC_ALL=C tr -d "\n" <"$1" | LC_ALL=C grep -q "[[:cntrl:]]"' _ "$tmp/err"

# A topology name and a module name, in a workload.
THREADRUN_TOPOLOGY="$(printf 'Package:1\033[2J')" THREADRUN_CORES=1 THREADRUN_PUS=1 \
	t2accel -a md5 -d 0.01 -q -o "$tmp/t.csv" >"$tmp/out" 2>"$tmp/err"
one_line "t2accel: a topology with ESC is named escaped" "ignoring THREADRUN_TOPOLOGY=Package:1\\x1b[2J (" "$tmp/err"
t2accel -b pkcs11 --module "$tmp/$nl_esc.so" -a sha256 -d 0.01 >"$tmp/out" 2>"$tmp/err"
one_line "t2accel: a module name with a newline and ESC is named escaped" \
	"module: '$tmp/a\\nb\\x1b[2Jc.so' does not exist" "$tmp/err"
