# threadreport's outputs kept: every case of tests/golden/report/cases in
# every format, byte for byte (stdout, stderr, exit status), so that a change
# to how the report is written cannot change what it writes unseen.
# --update rewrites the kept outputs (review the diff before committing).
. "$(dirname "$0")/tap.bash"
gold=$PWD/tests/golden/report
update=0
[ "${1:-}" = --update ] && update=1
cases=$(grep -v '^#' "$gold/cases" | sed '/^$/d')
# One case in every format, each output after a line naming it.
render() {
	local f
	for f in text markdown csv tsv json csv--raw tsv--raw; do
		printf '=== -f %s\n' "${f/--raw/ --raw}"
		# shellcheck disable=SC2086
		(cd tests/data && threadreport -f ${f/--raw/ --raw} "$@" 2>"$tmp/err")
		printf '=== exit %d, stderr:\n' $?
		cat "$tmp/err"
	done
}
while read -r name args; do
	# shellcheck disable=SC2086
	render $args >"$tmp/$name" 2>&1
	if [ $update -eq 1 ]; then
		cp "$tmp/$name" "$gold/$name"
		ok "$name: kept"
	elif cmp -s "$gold/$name" "$tmp/$name"; then
		ok "$name: $args, 7 formats as kept"
	else
		notok "$name: $args differs from tests/golden/report/$name" \
			"$(diff "$gold/$name" "$tmp/$name" | head -8 | tr '\n' '|')"
	fi
done <<<"$cases"
