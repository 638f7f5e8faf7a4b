# The Mann-Whitney U test (src/lib/stats.c) agrees with scipy's
# mannwhitneyu(a, b, alternative='two-sided') to 1e-6 on 20 fixed sample
# pairs: ties and no ties, n from 3 to 20, so that both of scipy's methods
# (exact without ties where a side has at most 8, else the normal
# approximation with tie and continuity corrections) are met.  Needs
# Debian's python3-scipy (src/install-deps check).
. "$(dirname "$0")/tap.bash"
set -o pipefail
cd "$(dirname "$0")/../.." || exit 1

py=/usr/bin/python3
if ! "$py" -c 'import scipy.stats' 2>/dev/null; then
	skip "no scipy for $py (apt-get install python3-scipy)"
	exit 0
fi
# 20 pairs from a fixed seed: sizes 3..20, every fourth rounded (ties).
"$py" - >"$tmp/pairs" <<'PY'
import random
random.seed(27)
for i in range(20):
    na, nb = 3 + i % 18, 3 + (i * 7) % 18
    a = [random.gauss(100 + 3 * (i % 5), 5) for _ in range(na)]
    b = [random.gauss(100, 5) for _ in range(nb)]
    if i % 4 == 0:
        a, b = [round(x / 4) for x in a], [round(x / 4) for x in b]
    print(",".join("%.17g" % x for x in a) + ";" + ",".join("%.17g" % x for x in b))
PY
${CC:-cc} -O2 -Isrc/lib -o "$tmp/mwu" tests/progs/stats_mwu.c src/lib/stats.c -lm
check "20 pairs: 20 p-values" test "$("$tmp/mwu" <"$tmp/pairs" | tee "$tmp/ours" | wc -l)" = 20
"$py" - "$tmp/pairs" "$tmp/ours" >"$tmp/diff" <<'PY'
import sys
from scipy.stats import mannwhitneyu
pairs = open(sys.argv[1]).read().split("\n")[:-1]
ours = open(sys.argv[2]).read().split("\n")[:-1]
for line, got in zip(pairs, ours):
    a, b = ([float(x) for x in side.split(",")] for side in line.split(";"))
    p = mannwhitneyu(a, b, alternative="two-sided").pvalue
    mine, exact = got.split()
    print("%d %d %s %.9g %.9g %s" % (len(a), len(b), "exact" if exact == "1" else "asymptotic",
                                    p, float(mine), "ok" if abs(p - float(mine)) <= 1e-6 else "BAD"))
PY
check "every p-value equals scipy's to 1e-6 ($(grep -c exact "$tmp/diff") exact)" \
	bash -c "! grep -q BAD '$tmp/diff' && test \$(grep -c ' ok\$' '$tmp/diff') = 20"
check "both methods met" bash -c "grep -q ' exact ' '$tmp/diff' && grep -q ' asymptotic ' '$tmp/diff'"
