# t2accel's openssl speed options (#28): -a evp:NAME, --hmac, --cmac,
# --decrypt, --aead, --rekey, --stream, --misalign, --provider, --propquery.  Each run is
# verified row by row, and the rows name the provider that served them.
. "$(dirname "$0")/tap.bash"
f=$tmp/evp.csv

# One verified run per option: "OPTIONS|ALGORITHM ROWS".
while IFS='|' read -r args labels; do
	rm -f "$f"
	# shellcheck disable=SC2086
	t2accel -q -o "$f" $args -s 64,1024 -d 0.2 >"$tmp/out" 2>"$tmp/err"
	st=$?
	got=$(results_get "$f" algorithm verified | sort -u | paste -sd' ')
	want=$(for l in $labels; do printf '%s\tyes\n' "$l"; done | sort -u | paste -sd' ')
	check "t2accel $args: exit 0, every row verified ($labels; got $st, '$got')" \
		bash -c '[ "$1" -eq 0 ] && [ "$2" = "$3" ] && ! results_get "$4" checks | grep -qx 0' _ "$st" "$got" "$want" "$f"
done <<'RUNS'
-a evp:aes-128-ofb,evp:camellia-128-cbc,evp:sha3-384,evp:aes-256-ocb|aes-128-ofb camellia-128-cbc sha3-384 aes-256-ocb
--hmac sha3-256 --hmac sha1 --cmac aes-256-cbc|hmac-sha3-256 hmac-sha1 cmac-aes-256-cbc
--decrypt -a aes,aes128-ctr,des3,aes128-gcm,chacha20-poly1305|aes-128-cbc aes-128-ctr des-ede3-cbc aes-128-gcm chacha20-poly1305
--aead -a aes128-gcm,aes256-gcm,chacha20-poly1305|aes-128-gcm aes-256-gcm chacha20-poly1305
--aead --decrypt -a aes128-gcm|aes-128-gcm
--aead --rekey -a aes128-gcm,chacha20-poly1305|aes-128-gcm chacha20-poly1305
--rekey --decrypt -a aes256-gcm|aes-256-gcm
--stream -a aes128-gcm,aes256-gcm,chacha20-poly1305,evp:aes-192-gcm|aes-128-gcm aes-256-gcm chacha20-poly1305 aes-192-gcm
--stream --decrypt --misalign 3 -a aes128-gcm,chacha20-poly1305|aes-128-gcm chacha20-poly1305
--misalign 5 -a aes,sha256,aes128-gcm,hmac-sha256|aes-128-cbc sha256 aes-128-gcm hmac-sha256
--provider default --propquery provider=default -a aes,sha256|aes-128-cbc sha256
--provider legacy -a des|des-cbc
RUNS

# --rekey sets the key every record, --aead the IV, --stream neither:
# counted where t2accel initialises its cipher contexts (a preload; not
# into a sanitized build, whose runtime must come first).  Otherwise the
# key (the stream's IV) is set only in set-up, known answers and checks
# (three in the warm-up and one as the last operation: a few dozen).
if [ -n "${TEST_SAN:-}" ]; then
	skip "--rekey's and --stream's key and IV settings counted (not under $TEST_SAN)"
else
	for args in "--aead --rekey" "--rekey --decrypt" "--aead" "--stream" "--stream --decrypt"; do
		rm -f "$tmp/keyings"
		# shellcheck disable=SC2086
		COUNT_KEYINGS=$tmp/keyings LD_PRELOAD="$TEST_BIN/tests/libcountkeyings.so" \
			t2accel -q -r 2000 $args -a aes128-gcm -s 64 >/dev/null 2>&1
		read -r k v <"$tmp/keyings" 2>/dev/null
		case $args in
		*--rekey*) check "t2accel $args -r 2000: a key set per record (got ${k:-none})" \
			bash -c '[ -n "$1" ] && [ "$1" -ge 2000 ]' _ "$k" ;;
		--aead) check "t2accel $args -r 2000: the key set at set-up only, an IV per record (got ${k:-none} ${v:-none})" \
			bash -c '[ -n "$1" ] && [ "$1" -lt 40 ] && [ "$2" -ge 2000 ]' _ "$k" "$v" ;;
		*) check "t2accel $args -r 2000: one stream: key and IV set at set-up only (got ${k:-none} ${v:-none})" \
			bash -c '[ -n "$1" ] && [ "$1" -lt 40 ] && [ "$2" -lt 40 ]' _ "$k" "$v" ;;
		esac
	done
fi

# -r R is R operations with --stream too: a check (two updates) counts one.
rm -f "$f"
t2accel -q -o "$f" -r 7 --stream -a aes128-gcm -s 64 >/dev/null 2>&1
t2accel -q -o "$f" -r 7 --stream --decrypt -a chacha20-poly1305 -s 64 >/dev/null 2>&1
got=$(results_get "$f" ops | paste -sd' ')
check "--stream -r 7, sealing and opening: 7 operations each (got '$got')" [ "$got" = "7 7" ]

# The serving provider in impl and versions.
rm -f "$f"
t2accel -q -o "$f" -a des,sha256 -s 64 -d 0.2 >/dev/null 2>&1
check "impl names the serving provider: des legacy, sha256 default" bash -c \
	"results_get '$f' algorithm impl | grep -q \$'^des-cbc\tOpenSSL.*, provider legacy\$' &&
	 results_get '$f' algorithm impl | grep -q \$'^sha256\tOpenSSL.*, provider default\$' &&
	 results_get '$f' versions | grep -q 'provider legacy'"

# Only the legacy provider: every row it does not serve is skipped with one
# line; what it serves runs; -a all still exits 0.
t2accel -q --provider legacy -a all -s 64 -d 0.2 >"$tmp/out" 2>"$tmp/err"
st=$?
nskip=$(t2accel --list | awk -F'\t' '$8 != "legacy"' | wc -l)
check "--provider legacy -a all: exit 0, des ran, one skip line per other row ($nskip; got $st)" bash -c \
	"[ $st -eq 0 ] && grep -q '^des-cbc ' '$tmp/out' && [ \$(grep -c '^t2accel: skipping ' '$tmp/err') -eq $nskip ] &&
	 [ \$(wc -l <'$tmp/err') -eq $nskip ]"
t2accel -q --provider base -a all -s 64 -d 0.2 >/dev/null 2>&1
st=$?
check "--provider base -a all: nothing served, exit 3 (got $st)" [ $st -eq 3 ]

# The misaligned buffer is the one timed (a fault there is caught).
T2ACCEL_FAULT_WORKER=0 t2accel -q --misalign 7 -a sha256 -s 64 -d 0.2 >/dev/null 2>"$tmp/err"
st=$?
check "--misalign 7 with a fault in worker 0: exit 1 (got $st)" [ $st -eq 1 ]
