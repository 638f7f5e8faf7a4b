# The layout's rules, from the #include lines: each part includes only the
# parts it may (workloads -> src/lib, placement; src/threadrun -> src/lib,
# placement; src/report -> src/lib; src/lib -> placement; src/preload ->
# src/lib; placement -> nothing of src/), and nothing in the repository
# points outside it.
. "$(dirname "$0")/tap.bash"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# allowed DIR...: the folders whose headers files of this part may include
# (besides their own folder).
check_part() { # name glob allowed-dirs...
	local name=$1 files=$2 bad="" f h dir
	shift 2
	for f in $files; do
		[ -e "$f" ] || continue
		while read -r h; do
			dir=""
			[ -e "$(dirname "$f")/$h" ] && continue
			for d in "$@"; do [ -e "$d/$h" ] && dir=$d; done
			[ -n "$dir" ] || bad="$bad $f->$h"
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
	done
	check "$name includes only$( [ $# -gt 0 ] && printf ' %s' "$@" || echo ' itself')${bad:+ (against:$bad)}" [ -z "$bad" ]
}
check_part "placement/" "placement/*.c placement/*.h"
check_part "src/lib/" "src/lib/*.c src/lib/*.h" placement
check_part "src/threadrun/" "src/threadrun/*.c src/threadrun/*.h" src/lib placement
check_part "src/report/" "src/report/*.c src/report/*.h" src/lib
check_part "src/mpi/" "src/mpi/*.c" src/lib
check_part "src/preload/" "src/preload/*.c" src/lib
for w in workloads/*/; do
	check_part "${w}" "${w}*.c ${w}*.h" src/lib placement
done

# The arrows the rules forbid, named: a test of the test above.
tmpf=$tmp/src/lib/x.c
mkdir -p "$tmp/src/lib"
echo '#include "execute.h"' >"$tmpf"
out=$(check_part "a planted arrow" "$tmpf" placement)
check "a planted arrow src/lib -> src/threadrun is caught" grep -q '^not ok.*against:.*execute.h' <<<"$out"

hits=$(grep -rn 'shared/' README.md src workloads placement plot tests docs results/README.md 2>/dev/null |
	grep -v '^tests/fuzz/corpus/' | grep -v '^tests/sh/layout.sh:')
check "nothing in the repository points at shared/${hits:+: $hits}" [ -z "$hits" ]
