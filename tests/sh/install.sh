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

# Uninstall removes what install recorded (DOCDIR/install-manifest) and
# nothing else: a folder holding someone else's file stays.
man=$p/share/doc/threadrun/install-manifest
check "install wrote its manifest, every line under PREFIX" bash -c \
	"[ -s '$man' ] && ! grep -v '^#' '$man' | grep -qv '^$p/'"
echo mine >"$p/bin/someone-elses"
echo mine >"$p/share/doc/threadrun/my-notes.txt"
mk uninstall PREFIX="$p" >"$tmp/out" 2>&1
st=$?
check "make uninstall PREFIX=DIR: exit $st" [ $st -eq 0 ]
check "... leaves only the files it did not install: $(find "$p" ! -type d | sed "s|^$p/||" | paste -sd' ')" \
	[ "$(find "$p" ! -type d | sed "s|^$p/||" | sort | paste -sd' ')" = "bin/someone-elses share/doc/threadrun/my-notes.txt" ]
check "... and the folders it made, where empty (share/man, lib/threadrun gone)" \
	test ! -e "$p/share/man" -a ! -e "$p/share/bash-completion" -a ! -e "$p/lib"
mk uninstall PREFIX="$p" >"$tmp/out" 2>"$tmp/err"
st=$?
check "a second uninstall: no manifest, exit $st, one line, nothing removed: $(head -n 1 "$tmp/err")" bash -c \
	"[ $st -ne 0 ] && grep -q \"^make uninstall: no manifest '$man': nothing removed\" '$tmp/err' &&
	 [ \$(grep -vc '^make: \*\*\*' '$tmp/err') -eq 1 ] && [ -f '$p/bin/someone-elses' ] && [ -f '$p/share/doc/threadrun/my-notes.txt' ]"

# DESTDIR (with a space): staged under it, the prefix's paths inside.
d="$tmp/de st"
mk install DESTDIR="$d" PREFIX=/opt/threadrun-test >"$tmp/out" 2>&1
st=$?
check "make install DESTDIR='D E' PREFIX=/opt/...: exit $st, everything under D E" bash -c \
	"[ $st -eq 0 ] && [ -x '$d/opt/threadrun-test/bin/threadrun' ] && [ ! -e /opt/threadrun-test ] && \
	 [ -z \"\$(find '$d' ! -type d ! -path '$d/opt/threadrun-test/*')\" ]"
mk uninstall DESTDIR="$d" PREFIX=/opt/threadrun-test >/dev/null 2>&1
check "make uninstall DESTDIR='D E': no file left under it" [ -z "$(find "$d" ! -type d)" ]

# The issue's PREFIX: a space in it, beside a file of the user's named as
# its first word.  Then quotes and other shell-special characters in
# PREFIX and BINDIR.
echo mine >"$tmp/u"
mk uninstall PREFIX="$tmp/u q" >/dev/null 2>"$tmp/err"
st=$?
check "make uninstall PREFIX='DIR/u q' with nothing installed: exit $st, the user's DIR/u kept, one line" bash -c \
	"[ $st -ne 0 ] && [ \"\$(cat '$tmp/u')\" = mine ] && grep -q '^make uninstall: no manifest' '$tmp/err'"
mk install PREFIX="$tmp/u q" >"$tmp/out" 2>&1
st=$?
check "make install PREFIX='DIR/u q': exit $st, installed there, nothing made in the source tree" bash -c \
	"[ $st -eq 0 ] && [ -x '$tmp/u q/bin/threadrun' ] && [ -f '$tmp/u q/share/man/man1/threadrun.1' ] && [ ! -e '$top/q' ]"
mk uninstall PREFIX="$tmp/u q" >/dev/null 2>&1
st=$?
check "make uninstall PREFIX='DIR/u q': exit $st, all of it gone, DIR/u kept" bash -c \
	"[ $st -eq 0 ] && [ ! -e '$tmp/u q' ] && [ \"\$(cat '$tmp/u')\" = mine ]"
# ($ is make's: a path with $x in it is given as $$x.)
odd="$tmp/o'd\"d \$x \`y\` ;*&|<>#%\\!"
mk install PREFIX="${odd//\$/\$\$}" BINDIR="${odd//\$/\$\$}/b i'n" >"$tmp/out" 2>&1
st=$?
check "PREFIX and BINDIR with quotes, \$, backquotes, ;*&|<>#%\\!: installed (exit $st)" bash -c \
	"[ $st -eq 0 ] && [ -x \"\$1/b i'n/threadrun\" ] && [ -f \"\$1/share/doc/threadrun/README.md\" ] && [ ! -e \"\$1/bin\" ]" _ "$odd"
mk uninstall PREFIX="${odd//\$/\$\$}" BINDIR="${odd//\$/\$\$}/b i'n" >/dev/null 2>&1
st=$?
check "... and uninstalled (exit $st): nothing left, not even the folder" bash -c "[ $st -eq 0 ] && [ ! -e \"\$1\" ]" _ "$odd"

# Values that cannot be an install folder: refused before anything is
# made, one line naming the variable and the value.
refused() { # VAR VALUE WHAT-THE-LINE-SAYS
	mk install "$1=$2" >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "make install $1='$(printf '%s' "$2" | tr '\n\t' '??')': exit $st, one line: $(head -n 1 "$tmp/err")" bash -c \
		"[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"make install: $1.*$3\" '$tmp/err'"
}
refused PREFIX "rel dir" "is not an absolute path"
check "... and made nothing in the source tree" [ ! -e "$top/rel dir" ]
refused BINDIR "$tmp/nl$(printf '\nx')" "has a newline"
refused DOCDIR "$tmp/t$(printf '\t')ab" "has a control character"
refused LIBDIR "$tmp/a/../b" "has a . or .. component"
check "... none of them made anything under the test's folder" test ! -e "$tmp/nl" -a ! -e "$tmp/a" -a ! -e "$tmp/b"

# A manifest edited to point elsewhere is not followed: nothing removed.
q=$tmp/q
mk install PREFIX="$q" >/dev/null 2>&1
man=$q/share/doc/threadrun/install-manifest
cp "$man" "$tmp/man.orig"
echo mine >"$tmp/victim"
for bad in "$tmp/victim" "$q/bin/../../victim" "$tmp/" "$q/share/doc/threadrun/./../../../../victim" "victim"; do
	cp "$tmp/man.orig" "$man"
	printf '%s\n' "$bad" >>"$man"
	mk uninstall PREFIX="$q" >/dev/null 2>"$tmp/err"
	st=$?
	check "a manifest line '${bad/#"$tmp"/TMP}': refused (exit $st), one line naming it, nothing removed" bash -c \
		"[ $st -ne 0 ] && grep -q \"install-manifest' line [0-9]*: '\" '$tmp/err' && [ \"\$(cat '$tmp/victim')\" = mine ] &&
		 [ -x '$q/bin/threadrun' ] && [ -f '$man' ]"
done
# A folder install made, replaced by a link to elsewhere: not followed.
cp "$tmp/man.orig" "$man"
mkdir -p "$tmp/else"
cp "$top/docs/README.md" "$tmp/else/README.md"
rm -rf "$q/share/doc/threadrun/docs"
ln -s "$tmp/else" "$q/share/doc/threadrun/docs"
mk uninstall PREFIX="$q" >/dev/null 2>"$tmp/err"
st=$?
check "a manifest's folder made a link out of DOCDIR: refused (exit $st), the file it leads to kept" bash -c \
	"[ $st -ne 0 ] && grep -q \"line [0-9]*: '$q/share/doc/threadrun/docs/\" '$tmp/err' && [ -f '$tmp/else/README.md' ] && [ -x '$q/bin/threadrun' ]"

# install-deps: an argument it does not know is refused before anything is
# installed.
sh "$top/src/install-deps" check chek >"$tmp/out" 2>"$tmp/err"
st=$?
check "install-deps check chek: exit $st, one line naming it and the choices: $(head -n 1 "$tmp/err")" bash -c \
	"[ $st -eq 2 ] && [ ! -s '$tmp/out' ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q \"'chek' not known, choices are: check, bench, mpi\" '$tmp/err'"
