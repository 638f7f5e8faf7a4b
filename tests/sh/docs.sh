# docs/ keeps up with the code: every variable threadrun exports and every
# one src/lib/runenv.h names is on the environment page, every column of
# the machine outputs on docs/machine-output.md, and links between the
# pages resolve.
. "$(dirname "$0")/tap.bash"
cd "$(dirname "$0")/../.." || exit 1
env_page=docs/environment.md out_page=docs/machine-output.md

for p in scatter none "scatter -s 0x1"; do
	vars=$(threadrun -q -o "$tmp/r.csv" -p $p 1 sh -c 'env' | sed -n 's/^\(\(OMP\|THREADRUN\)_[A-Z_]*\)=.*/\1/p' | sort -u)
	missing=$(for v in $vars; do grep -qF "\`$v\`" "$env_page" || echo "$v"; done)
	check "policy $p: the $(echo $vars | wc -w) variables threadrun exports are documented${missing:+ (missing: $(echo $missing))}" \
		bash -c '[ -n "$1" ] && [ -z "$2" ]' _ "$vars" "$missing"
done
vars=$(sed -n 's/^#define ENV_[A-Z]* *"\([A-Z_]*\)".*/\1/p' src/lib/runenv.h)
missing=$(for v in $vars; do grep -qF "\`$v\`" "$env_page" || echo "$v"; done)
check "every variable of src/lib/runenv.h is documented${missing:+ (missing: $(echo $missing))}" \
	bash -c '[ -n "$1" ] && [ -z "$2" ]' _ "$vars" "$missing"

cols() { head -n 1 | tr ',' '\n'; }
plan_cols=$(threadrun -n --format csv 1 2>/dev/null | cols)
cut_cols=$(threadreport --raw -f csv --cutoffs tests/data/cutoff.csv 2>/dev/null | cols)
cmp_cols=$(threadreport --raw -f csv --compare tests/data/compare-before.csv tests/data/compare-after.csv 2>/dev/null | cols)
missing=$(for c in $plan_cols $cut_cols $cmp_cols; do grep -qF "\`$c\`" "$out_page" || echo "$c"; done)
check "every column of threadrun -n --format csv, threadreport --cutoffs and --compare is documented${missing:+ (missing: $(echo $missing))}" \
	bash -c '[ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] && [ -z "$4" ]' _ "$plan_cols" "$cut_cols" "$cmp_cols" "$missing"

# Relative links: [text](path) in docs/ and README.md.  workers.md is
# written beside these pages by the worker API's change.
bad=""
for f in README.md docs/*.md; do
	while read -r link; do
		target=${link%%#*}
		[ -n "$target" ] || continue
		[ -e "$(dirname "$f")/$target" ] || bad="$bad $f:$target"
	done < <(grep -o '\](\([^)]*\))' "$f" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:')
done
if [ "$bad" = " docs/README.md:workers.md" ]; then
	skip "docs/workers.md is not written yet (the worker API's change adds it)"
else
	check "every relative link resolves${bad:+ (broken:$bad)}" [ -z "$bad" ]
fi

# The team's design guide is not part of the repository: nothing names it;
# the contracts are in docs/.
hits=$(grep -rln 'DESIGN\.md' README.md src workloads placement plot tests docs results/README.md Makefile 2>/dev/null |
	grep -v '^tests/fuzz/corpus/' | grep -v '^tests/sh/docs.sh$')
check "nothing refers to DESIGN.md, which the repository does not hold${hits:+: $(echo $hits)}" [ -z "$hits" ]
