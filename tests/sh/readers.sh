# The reader behind --resume takes damage line by line, as threadreport
# does: NUL bytes, a torn quote and a non-decimal number in the file cost
# their own lines; the finished combinations are still recognised.
set -o pipefail
. "$(dirname "$0")/tap.bash"
f=$tmp/resume.csv

threadrun -q --sweep 1,2 --order fixed -o "$f" -- true
st=$?
check "a sweep of 'true' at 1 and 2 threads exits 0 (got $st)" [ $st -eq 0 ]
# A line of NULs (a crash on some filesystems), a half row with an open
# quote, and rows whose numbers are not plain decimals (copies of line 2,
# the 1-thread run in --order fixed).
printf '\0\0\0\0\nhalf,"row\n' >>"$f"
head -2 "$f" | tail -1 | sed 's/,1,compact,/,0x4,compact,/' >>"$f"
head -2 "$f" | tail -1 | sed 's/,1,compact,/,1e1,compact,/' >>"$f"
threadrun --sweep 1,2 --resume -o "$f" -- true 2>"$tmp/err"
st=$?
check "--resume on the damaged file exits 0 (got $st)" [ $st -eq 0 ]
check "--resume still skips both finished runs" grep -q 'sweep done: 0 runs, 0 failed, 2 skipped' "$tmp/err"
check "--resume names the NUL line" grep -q 'resume.csv:4: malformed row (NUL byte), skipped' "$tmp/err"
check "--resume names the torn quote" grep -q 'resume.csv:5: malformed row (' "$tmp/err"
check "--resume names the hex thread count" grep -q "resume.csv:6: column 'threads': '0x4' is not a whole decimal number" "$tmp/err"
check "--resume names the exponent" grep -q "resume.csv:7: column 'threads': '1e1' is not a whole decimal number" "$tmp/err"

# A single run appends to the damaged file; the report reads every row.
threadrun -q -o "$f" 1 true
check "a run appends after the damage (exit $?)" [ "$(results_get "$f" threads 2>/dev/null | wc -l)" -eq 3 ]
threadreport "$f" >"$tmp/out" 2>"$tmp/err"
st=$?
check "threadreport reads the damaged file (exit $st)" [ $st -eq 0 ]
check "threadreport counts four damaged lines" grep -q 'threadreport: 4 damaged rows skipped, named above' "$tmp/err"
