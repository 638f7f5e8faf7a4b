# The man pages agree with the programs: every option a program's --help
# prints (long and short forms) is in its page's OPTIONS, with the same
# argument, and every option the page lists is in --help; every page renders
# with `man -l` without a warning and has the sections a user looks for.
. "$(dirname "$0")/tap.bash"
. "$(dirname "$0")/options.bash"
cd "$(dirname "$0")/../.." || exit 1
bin=${TEST_BIN:-bin}

# Every program and where its --help comes from.
progs="threadrun t2accel linpack stream threadreport threadrun-mpi threadplot monitorplot"
prog_path() { case $1 in threadplot | monitorplot) echo "plot/$1" ;; *) echo "$bin/$1" ;; esac; }
have_man=$(command -v man)

pages=$(ls man/*.[1-8] 2>/dev/null)
stray=$(for p in $pages; do
	n=$(basename "$p"); n=${n%.*}
	[[ " $progs threadrun " == *" $n "* ]] || echo "$p"
done)
check "every page in man/ is a program's or threadrun(7)${stray:+ (no such program: $(echo $stray))}" \
	bash -c '[ -n "$1" ] && [ -z "$2" ]' _ "$pages" "$stray"
check "man/threadrun.7 (environment, thread names, result files, exit codes) is there" [ -f man/threadrun.7 ]

for p in $progs; do
	page=man/$p.1 exe=$(prog_path "$p")
	if [ ! -x "$exe" ]; then
		[ "$p" = threadrun-mpi ] && { skip "$p is not built here (no mpicc)"; skip "$p is not built here"; continue; }
		notok "$p: $exe is not built" "make all test-progs first"; notok "$p: no --help to compare"; continue
	fi
	if [ ! -f "$page" ]; then
		notok "$p: $page is missing"; notok "$p: no man page to compare"; continue
	fi
	[ -n "$have_man" ] || { skip "man is not installed (man-db)"; skip "man is not installed (man-db)"; continue; }
	"$exe" --help >"$tmp/help" 2>/dev/null
	help_options "$p" <"$tmp/help" >"$tmp/h"
	# Having printed its help, --help is evidently there; -h is where it
	# prints the same.
	grep -q $'^--help\t' "$tmp/h" || printf -- '--help\t\n' >>"$tmp/h"
	if ! grep -q $'^-h\t' "$tmp/h" && "$exe" -h 2>/dev/null | cmp -s - "$tmp/help"; then
		printf -- '-h\t\n' >>"$tmp/h"
	fi
	man_options "$page" >"$tmp/m"

	# help -> man: the name, and the argument where --help's Options say it.
	bad=$(while IFS=$'\t' read -r o a; do
		m=$(awk -F'\t' -v o="$o" '$1 == o { print $2 "|"; exit }' "$tmp/m")
		if [ -z "$m" ]; then
			echo "$o is in --help, not in $page's OPTIONS;"
		elif [ "$a" != "?" ] && [ "${m%|}" != "$a" ]; then
			echo "$o takes '$a' in --help, '${m%|}' in $page;"
		fi
	done <"$tmp/h")
	check "$p: every option of --help ($(wc -l <"$tmp/h")) is in $page with its argument${bad:+: $(echo $bad)}" \
		bash -c '[ -s "$1" ] && [ -z "$2" ]' _ "$tmp/h" "$bad"
	# man -> help
	bad=$(cut -f1 "$tmp/m" | while read -r o; do
		grep -q "^$o"$'\t' "$tmp/h" || echo "$o is in $page's OPTIONS, not in $p --help;"
	done)
	check "$p: every option of $page ($(wc -l <"$tmp/m")) is in --help${bad:+: $(echo $bad)}" \
		bash -c '[ -s "$1" ] && [ -z "$2" ]' _ "$tmp/m" "$bad"
done

# Rendering, sections, cross references.
for page in $pages; do
	if [ -z "$have_man" ]; then skip "man is not installed (man-db)"; continue; fi
	warn=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 "$page" 2>&1 >/dev/null)
	check "$page renders with man -l without a warning${warn:+: $(head -n 3 <<<"$warn" | tr '\n' ' ')}" [ -z "$warn" ]
	text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man -E UTF-8 -l "$page" 2>/dev/null)
	want="NAME SYNOPSIS DESCRIPTION OPTIONS EXIT.STATUS ENVIRONMENT FILES EXAMPLES SEE.ALSO"
	[[ $page == *.7 ]] && want="NAME DESCRIPTION EXIT.STATUS EXAMPLES SEE.ALSO"
	missing=$(for s in $want; do grep -qx "${s/./ }" <<<"$text" || echo "${s/./ }"; done)
	refs=$(sed -n '/^SEE ALSO/,/^[A-Z]/p' <<<"$text" | tr -d '\n' | tr -s ' ')
	for r in hwloc-bind hwloc-calc likwid-pin openssl-speed $progs; do
		[ "$r(1)" = "$(basename "$page" | sed 's/\.\([1-8]\)$/(\1)/')" ] && continue
		[[ $refs == *"$r(1)"* ]] || missing="$missing $r(1)"
	done
	[[ $page == *.1 && $refs != *"threadrun(7)"* ]] && missing="$missing threadrun(7)"
	check "$page has every section and its SEE ALSO names the peers and every other page${missing:+ (missing: $(echo $missing))}" \
		[ -z "$missing" ]
done
