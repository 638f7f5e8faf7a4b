# make install and make uninstall, into a prefix and under DESTDIR, from
# the tree under test (bin/ or bin/SAN, never rebuilt here): the installed
# threadrun finds its workloads beside it and writes results/runs.csv
# under the current directory (made when missing, said once), every
# installed program answers --version, the installed plot scripts find the
# installed threadreport, and uninstall removes exactly what install put
# there.  And src/install-deps refuses an argument it does not know.
. "$(dirname "$0")/tap.bash"
top=$(cd "$(dirname "$0")/../.." && pwd)
san=${TEST_SAN:-}
bin=${TEST_BIN:-$top/bin}
# A make of its own, with the variables the tree under test was built
# with (not a parent make's jobserver).
mk() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$top" --no-print-directory -s SAN="$san" "$@"; }
# The installed programs, run with nothing of the tree on PATH.
plain_path=/usr/local/bin:/usr/bin:/bin
programs="threadrun t2accel linpack stream threadreport"
[ -x "$bin/threadrun-mpi" ] && programs="$programs threadrun-mpi"
scripts="threadplot monitorplot"
stamps() { stat -c '%n %Y' "$bin"/*; }

p=$tmp/p
stamps >"$tmp/before"
mk install PREFIX="$p" >"$tmp/out" 2>&1
st=$?
check "make install PREFIX=DIR: exit $st $(tail -n 1 "$tmp/out")" [ $st -eq 0 ]
stamps >"$tmp/after"
check "make install did not rebuild the programs under test" cmp -s "$tmp/before" "$tmp/after"
missing=""
for x in $programs $scripts; do [ -x "$p/bin/$x" ] || missing="$missing $x"; done
check "every program and plot script is in PREFIX/bin:${missing:- all there}" [ -z "$missing" ]
check "the docs are in PREFIX/share/doc/threadrun, their links kept" \
	test -f "$p/share/doc/threadrun/README.md" -a -f "$p/share/doc/threadrun/docs/exit-codes.md" \
	-a -f "$p/share/doc/threadrun/results/README.md"
if [ -f "$bin/libthreadrun-pthreads.so" ]; then
	check "the --pthreads library is in PREFIX/lib/threadrun, not in PREFIX/bin" \
		test -f "$p/lib/threadrun/libthreadrun-pthreads.so" -a ! -e "$p/bin/libthreadrun-pthreads.so"
	(cd "$tmp" && THREADRUN_RESULTS=$tmp/pt.csv PATH=$plain_path "$p/bin/threadrun" -q --pthreads 1 /bin/true) \
		>/dev/null 2>"$tmp/err"
	st=$?
	check "... the installed threadrun --pthreads finds it: exit $st $(head -n 1 "$tmp/err")" [ $st -eq 0 ]
fi

# The issue's run: another directory, no results file named anywhere.
w=$tmp/work
mkdir -p "$w"
tree_results=$(stat -c '%s %Y' "$top/results/runs.csv" 2>/dev/null)
(cd "$w" && env -u THREADRUN_RESULTS PATH=$plain_path "$p/bin/threadrun" 2 t2accel -a rsa -d 0.5) \
	>"$tmp/out" 2>"$tmp/err"
st=$?
check "cd elsewhere && PREFIX/bin/threadrun 2 t2accel -a rsa -d 0.5: exit 0 ($st: $(tail -n 1 "$tmp/err"))" \
	[ $st -eq 0 ]
check "... its rows are in ./results/runs.csv" \
	[ "$(results_get "$w/results/runs.csv" algorithm | sort -u | paste -sd' ')" = "rsa-sign rsa-verify" ]
check "... results/ was made with one note saying so" \
	[ "$(grep -c "note: made directory 'results'" "$tmp/err")" -eq 1 ]
check "... the build tree's results file is untouched" \
	[ "$(stat -c '%s %Y' "$top/results/runs.csv" 2>/dev/null)" = "$tree_results" ]
(cd "$w" && env -u THREADRUN_RESULTS PATH=$plain_path "$p/bin/threadrun" 1 t2accel -q -a md5 -s 64 -d 0.05) \
	>/dev/null 2>"$tmp/err"
st=$?
check "a second run there: exit $st, appended, no note" bash -c \
	"[ $st -eq 0 ] && ! grep -q 'made directory' '$tmp/err' && results_get '$w/results/runs.csv' algorithm | grep -qx md5"
mkdir -p "$tmp/w2"
(cd "$tmp/w2" && THREADRUN_RESULTS=$tmp/env.csv PATH=$plain_path "$p/bin/threadrun" 1 t2accel -q -a md5 -s 64 -d 0.05) \
	>/dev/null 2>&1
st=$?
check "THREADRUN_RESULTS names the file: exit $st, rows there, no results/ made" bash -c \
	"[ $st -eq 0 ] && [ -s '$tmp/env.csv' ] && [ ! -e '$tmp/w2/results' ]"
# A directory deleted under the shell: results/ cannot be made, even as root.
mkdir -p "$tmp/gone"
(cd "$tmp/gone" && rmdir "$tmp/gone" && env -u THREADRUN_RESULTS PATH=$plain_path "$p/bin/threadrun" 1 true) \
	>/dev/null 2>"$tmp/err"
st=$?
check "results/ that cannot be made: exit 2, one line naming it and THREADRUN_RESULTS ($st: $(head -n 1 "$tmp/err"))" \
	bash -c "[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"cannot make directory 'results'.*THREADRUN_RESULTS\" '$tmp/err'"

# --version: NAME VERSION, the same version everywhere (git describe's in
# a checkout), then the libraries each runs with.
want=$(git -C "$top" describe --tags --always --dirty 2>/dev/null)
for x in $programs $scripts; do
	PATH=$plain_path "$p/bin/$x" --version >"$tmp/v" 2>"$tmp/err"
	st=$?
	line=$(head -n 1 "$tmp/v")
	good=no
	[[ $line =~ ^$x\ [A-Za-z0-9._+~-]+$ && $line != "$x unknown" ]] && good=yes
	check "$x --version: exit $st, nothing on stderr, '$line'" \
		bash -c "[ $st -eq 0 ] && [ ! -s '$tmp/err' ] && [ $good = yes ]"
	[ -z "$want" ] || check "... the version is git describe's ($want)" [ "$line" = "$x $want" ]
	case $x in
	threadplot | monitorplot) libs=("^gnuplot ") ;;
	linpack) libs=("^hwloc API " "^OpenSSL " "^OpenMP [0-9.]+ \(_OPENMP [0-9]{6}\), runtime /.*libgomp") ;;
	threadrun-mpi) libs=("^hwloc API " "^OpenSSL " "^MPI [0-9]+\.[0-9]+: .") ;;
	*) libs=("^hwloc API " "^OpenSSL ") ;;
	esac
	bad=""
	for re in "${libs[@]}"; do grep -Eq "$re" "$tmp/v" || bad="$bad '$re'"; done
	check "... and its libraries:${bad:- all named}" [ -z "$bad" ]
done

PATH=$plain_path "$p/bin/threadplot" --help >"$tmp/out" 2>&1
st=$?
check "the installed threadplot --help: exit $st, its help" bash -c "[ $st -eq 0 ] && head -n 1 '$tmp/out' | grep -q '^threadplot: '"
if command -v gnuplot >/dev/null; then
	# The installed threadreport beside it, with no threadreport on PATH.
	(cd "$w" && PATH=$plain_path:$(dirname "$(command -v gnuplot)") "$p/bin/threadplot" results/runs.csv -o fig) \
		>"$tmp/out" 2>&1
	st=$?
	check "the installed threadplot draws from the installed threadreport (exit $st)" \
		bash -c "[ $st -eq 0 ] && [ -s '$w/fig/speedup.svg' ]"
else
	skip "threadplot's figures: gnuplot is not installed"
fi

# Uninstall removes what install made and nothing else.
echo mine >"$p/bin/someone-elses"
echo mine >"$p/share/doc/threadrun/my-notes.txt"
mk uninstall PREFIX="$p" >"$tmp/out" 2>&1
st=$?
check "make uninstall PREFIX=DIR: exit $st" [ $st -eq 0 ]
check "... leaves only the files it did not install: $(find "$p" ! -type d | sed "s|^$p/||" | paste -sd' ')" \
	[ "$(find "$p" ! -type d | sed "s|^$p/||" | sort | paste -sd' ')" = "bin/someone-elses share/doc/threadrun/my-notes.txt" ]
rm -f "$p/bin/someone-elses" "$p/share/doc/threadrun/my-notes.txt"
mk uninstall PREFIX="$p" >/dev/null 2>&1
check "... then no file at all, nor share/doc/threadrun" bash -c \
	"[ -z \"\$(find '$p' ! -type d)\" ] && [ ! -e '$p/share/doc/threadrun' ]"

# DESTDIR: staged under it, the prefix's paths inside.
d=$tmp/dest
mk install DESTDIR="$d" PREFIX=/opt/threadrun-test >"$tmp/out" 2>&1
st=$?
check "make install DESTDIR=D PREFIX=/opt/...: exit $st, everything under D" bash -c \
	"[ $st -eq 0 ] && [ -x '$d/opt/threadrun-test/bin/threadrun' ] && [ ! -e /opt/threadrun-test ] && \
	 [ -z \"\$(find '$d' ! -type d ! -path '$d/opt/threadrun-test/*')\" ]"
mk uninstall DESTDIR="$d" PREFIX=/opt/threadrun-test >/dev/null 2>&1
check "make uninstall DESTDIR=D: no file left under D" [ -z "$(find "$d" ! -type d)" ]

# install-deps: an argument it does not know is refused before anything is
# installed.
sh "$top/src/install-deps" check chek >"$tmp/out" 2>"$tmp/err"
st=$?
check "install-deps check chek: exit $st, one line naming it and the choices: $(head -n 1 "$tmp/err")" bash -c \
	"[ $st -eq 2 ] && [ ! -s '$tmp/out' ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"'chek' not known, choices are: check, bench, mpi\" '$tmp/err'"
