# One source per registry: t2accel's algorithm table and linpack's variant
# table, through --list, feed -a all, the help, the messages and the
# scripts; nothing else keeps its own list of names.
. "$(dirname "$0")/tap.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)

t2accel --list >"$tmp/algos"
st=$?
check "t2accel --list exits 0 (got $st)" [ $st -eq 0 ]
check "t2accel --list: 8 tab-separated fields, a known kind, legacy and study yes/no, keys, provider" awk -F'\t' '
	NF != 8 || $1 == "" || $2 == "" || $5 == "" || $3 !~ /^(cipher|digest|sign|aead|mac|derive)$/ ||
	$4 !~ /^(yes|no)$/ || $6 !~ /^(yes|no)$/ || $7 == "" || $8 == "" {bad = 1} END {exit bad || NR < 2}' "$tmp/algos"
check "t2accel --list: the study's modern set is STUDY yes" bash -c \
	"[ \"\$(awk -F'\t' '\$6 == \"yes\" {print \$1}' '$tmp/algos' | sort | paste -sd,)\" = aes128-gcm,chacha20-poly1305,ecdsa-p256,rsa,sha256,x25519 ]"
check "t2accel --list: keys and the serving provider (aes: 128 bits, default; des: legacy; ecdsa-p384: P-384)" bash -c \
	"grep -q \$'^aes\t.*\t128 bits\tdefault\$' '$tmp/algos' && grep -q \$'^des\t.*\tlegacy\$' '$tmp/algos' &&
	 grep -q \$'^ecdsa-p384\t.*\tP-384\tdefault\$' '$tmp/algos' && grep -q \$'^rsa\t.*\t1024,2048,3072,4096 bits\t' '$tmp/algos'"
check "t2accel --provider base --list: no row served (PROVIDER -)" bash -c \
	"[ \"\$(t2accel --provider base --list | cut -f8 | sort -u)\" = - ]"
check "t2accel --list: names unique" bash -c "[ -z \"\$(cut -f1 '$tmp/algos' | sort | uniq -d)\" ]"
check "t2accel --list: a signature has a sign and a verify label" awk -F'\t' '
	$3 == "sign" && $2 != $1 "-sign " $1 "-verify" {bad = 1} END {exit bad}' "$tmp/algos"
check "t2accel --help documents --list's fields" bash -c \
	"t2accel --help | grep -q 'tab-separated: NAME'"

names=$(cut -f1 "$tmp/algos" | paste -sd' ' -)
check "t2accel --help's -a line is the table's names" bash -c \
	"t2accel --help | grep -qF -- '--algorithm ALGS       $names, a comma list, or all'"
t2accel -a nosuch >/dev/null 2>"$tmp/err"
st=$?
check "an unknown -a: exit 2, the choices are the table's names" bash -c \
	"[ $st -eq 2 ] && grep -qF \"choices are: $names (or all)\" '$tmp/err'"

# -a all measures every label of the table, in the table's order.
t2accel -q -a all -s 16 -k 1024 -r 64 -o "$tmp/all.csv" >/dev/null 2>"$tmp/err"
st=$?
check "t2accel -a all exits 0 (got $st)" [ $st -eq 0 ]
check "t2accel -a all: one row per label of --list, in order" bash -c \
	"[ \"\$(results_get '$tmp/all.csv' algorithm | paste -sd' ' -)\" = \"\$(cut -f2 '$tmp/algos' | paste -sd' ' -)\" ]"

# Each name on its own, and each through PKCS#11 (SoftHSM2) when it is there.
while IFS=$'\t' read -r name labels kind legacy evp _; do
	t2accel -q -a "$name" -s 64 -k 1024 -r 16 >/dev/null 2>"$tmp/err"
	st=$?
	check "t2accel -a $name ($kind, legacy $legacy, $evp): exit 0 (got $st)" [ $st -eq 0 ]
done <"$tmp/algos"

# No hand-kept list of algorithm names is left in the scripts.
check "no script lists the algorithms by hand" bash -c \
	"! grep -nE --exclude=registry.sh '(aes|des3).*(md5|sha1).*sha256' '$root/src/study' '$root/workloads/crypto/bench-speed' \
		'$root'/tests/sh/*.sh"

linpack --list >"$tmp/variants"
st=$?
check "linpack --list exits 0 (got $st)" [ $st -eq 0 ]
check "linpack --list: ID, NAME, what it does; IDs 0.." awk -F'\t' '
	NF != 3 || $1 != NR - 1 || $2 == "" || $3 == "" {bad = 1} END {exit bad || NR < 2}' \
	"$tmp/variants"
choices=$(awk -F'\t' '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}' "$tmp/variants")
check "linpack --help's -v line is the table's variants" bash -c \
	"linpack --help | grep -qF -- '--variant V            $choices (default'"
linpack -v "$(wc -l <"$tmp/variants")" 8 >/dev/null 2>"$tmp/err"
st=$?
check "linpack -v past the table: exit 2, the choices are the table's" bash -c \
	"[ $st -eq 2 ] && grep -qF \"choices are: $choices\" '$tmp/err'"
while IFS=$'\t' read -r id name what; do
	linpack -q -v "$id" -o "$tmp/lu.csv" 16 >/dev/null 2>"$tmp/err"
	st=$?
	check "linpack -v $id ($name): exit 0 (got $st), a row lu-$name" bash -c \
		"[ $st -eq 0 ] && [ \"\$(results_get '$tmp/lu.csv' algorithm | tail -1)\" = lu-$name ]"
done <"$tmp/variants"
