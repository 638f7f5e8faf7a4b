# PKCS#11 modules as the ecosystem ships them: NSS's softokn (the software
# token most machines have) with its init string, every algorithm it offers
# cross-checked against EVP; modules by p11-kit name and by file name;
# hostile .module files.
. "$(dirname "$0")/tap.bash"
fake=$FAKE_P11
export TMPDIR=$tmp
nss_args="configdir='' certPrefix='' keyPrefix='' secmod='' flags=readOnly,noCertDB,noModDB,forceOpen,optimizeSpace"
softokn=$(pkg-config --variable=libdir p11-kit-1)/libsoftokn3.so
kitdir=$(pkg-config --variable=p11_module_path p11-kit-1)

 
# Every algorithm -a all asked for either ran, every row verified, or was
# named as lacking on stderr: ERR, CSV.
all_accounted() {
	local name missing=0
	for name in $(t2accel --list | cut -f1); do
		if grep -q "skipping $name: \(the module lacks\|no PKCS#11 mechanism\)" "$1"; then
			continue
		fi
		for label in $(t2accel --list | awk -F'\t' -v n="$name" '$1 == n {print $2}'); do
			[ "$(results_get "$2" algorithm verified | grep -v '^(run)' | awk -F'\t' -v l="$label" '$1 == l' | sort -u)" = "$label	yes" ] ||
				missing=1
		done
	done
	return $missing
}
export -f all_accounted

if [ ! -f "$softokn" ]; then
	for i in 1 2 3 4 5 6 7 8 9 10 11; do skip "NSS's softokn not installed ($softokn; src/install-deps)"; done
else
	# The issue's command: slot 1, NSS's crypto services, no login.
	threadrun -q -o "$tmp/n.csv" 2 t2accel -q -b pkcs11 --module libsoftokn3.so --module-args "$nss_args" \
		--slot 1 -a all -s 16,8192 -k 1024 -d 0.1 >"$tmp/out" 2>"$tmp/err"
	st=$?
	check "threadrun 2 t2accel -b pkcs11 --module libsoftokn3.so --slot 1 -a all: exit 0 (got $st)" [ $st -eq 0 ]
	check "NSS slot 1: every algorithm ran verified (cross-checked with EVP) or was named as lacking" \
		all_accounted "$tmp/err" "$tmp/n.csv"
	check "NSS slot 1: digests, ciphers and RSA all ran" bash -c \
		"algos=\$(results_get '$tmp/n.csv' algorithm | sort -u); for a in aes-128-cbc rsa-sign rsa-verify sha256 sha1; do grep -qx \"\$a\" <<<\"\$algos\" || exit 1; done"
	# #28's rows on NSS where it offers them (its --list), keys made in the
	# token: verified and cross-checked against EVP, or named as lacking.
	t2accel -b pkcs11 --module libsoftokn3.so --module-args "$nss_args" --slot 1 --list >"$tmp/nlist"
	st=$?
	check "NSS slot 1 --list: exit 0 (got $st); GCM, HMAC, ECDSA and ECDH offered" bash -c \
		"[ $st -eq 0 ] && for r in 'aes128-gcm	CKM_AES_GCM' 'hmac-sha256	CKM_SHA256_HMAC' 'ecdsa-p256	CKM_ECDSA' 'ecdh-p256	CKM_ECDH1_DERIVE'; do grep -qx \"\$r	yes\" '$tmp/nlist' || exit 1; done"
	check "NSS slot 1: each of #28's rows it offers ran verified, the others were named by mechanism" bash -c \
		"for a in aes128-gcm:aes-128-gcm hmac-sha256:hmac-sha256 ecdsa-p256:ecdsa-p256-sign ecdsa-p384:ecdsa-p384-verify ed25519:ed25519-sign ecdh-p256:ecdh-p256; do
		   if grep -qx \"\${a%%:*}	CKM_[A-Z0-9_]*	yes\" '$tmp/nlist'; then
			[ \"\$(results_get '$tmp/n.csv' algorithm verified | grep -x \"\${a#*:}	.*\" | sort -u)\" = \"\${a#*:}	yes\" ] || exit 1
		   else grep -q \"skipping \${a%%:*}: the module lacks CKM_\" '$tmp/err' || exit 1; fi; done"
	T2ACCEL_FAULT_WORKER=0 t2accel -q -b pkcs11 --module libsoftokn3.so --module-args "$nss_args" --slot 1 -a ecdsa-p256 \
		-d 0.1 >/dev/null 2>"$tmp/errf"
	st=$?
	check "a corrupted NSS ECDSA signature is caught by EVP: exit 1 (got $st)" bash -c \
		"[ $st -eq 1 ] && grep -q 'OpenSSL does not verify the 64-byte signature the token made' '$tmp/errf'"
	check "rows name the file the bare name resolved to, and the token" bash -c \
		"results_get '$tmp/n.csv' impl | grep -v '^$' | sort -u | grep -q 'module $softokn, token .NSS Generic Crypto Services. in slot 1'"
	# Slot 2, NSS's key token without a database, has no digests: named, the
	# rest runs, and -a all still exits 0.
	t2accel -q -b pkcs11 --module "$softokn" --module-args "$nss_args" --slot 2 -a all -s 64 -k 1024 -d 0.05 \
		-o "$tmp/n2.csv" >/dev/null 2>"$tmp/err2"
	st=$?
	check "NSS slot 2 -a all: lacking digests named, the rest verified, exit 0 (got $st)" bash -c \
		"[ $st -eq 0 ] && grep -q 'skipping sha256: the module lacks CKM_SHA256' '$tmp/err2' && all_accounted '$tmp/err2' '$tmp/n2.csv'"
	# The cross-check is live on NSS too.
	T2ACCEL_FAULT_WORKER=1 threadrun -q -o "$tmp/f.csv" 2 t2accel -q -b pkcs11 --module libsoftokn3.so \
		--module-args "$nss_args" --slot 1 -a aes -s 64 -d 0.1 >/dev/null 2>"$tmp/err"
	st=$?
	check "a corrupted NSS output is caught: exit 1 (got $st)" bash -c \
		"[ $st -eq 1 ] && grep -q 'the token.s ciphertext of 64 bytes differs from OpenSSL EVP' '$tmp/err'"
	# Without its init string NSS says CKR_ARGUMENTS_BAD: we say what to pass.
	t2accel -b pkcs11 --module libsoftokn3.so --slot 1 -a sha256 >/dev/null 2>"$tmp/err"
	st=$?
	check "NSS without --module-args: exit 2 (got $st), one line naming what to pass" bash -c \
		"[ $st -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -qF -- \"needs its configuration in --module-args, e.g. \\\"$nss_args\\\"\" '$tmp/err'"
	# A p11-kit module file can carry NSS's string (x-init-reserved).
	mkdir -p "$tmp/nssmods"
	printf 'module: %s\nx-init-reserved: %s\n' "$softokn" "$nss_args" >"$tmp/nssmods/nss.module"
	t2accel -q -b pkcs11 --module nss --module-dir "$tmp/nssmods" --slot 1 -a sha256 -s 64 -d 0.05 >"$tmp/out" 2>"$tmp/err"
	check "--module nss with x-init-reserved in its .module file: exit 0 ($?)" grep -q '^sha256 ' "$tmp/out"
fi

# p11-kit's own registry: softhsm2 ships /usr/share/p11-kit/modules/softhsm2.module.
want=$(p11-kit list-modules 2>/dev/null | sed -n 's/^softhsm2: //p')
t2accel -q -b pkcs11 --module softhsm2 -a sha256 -s 64 -d 0.05 -o "$tmp/s.csv" >/dev/null 2>"$tmp/err"
st=$?
check "--module softhsm2 (p11-kit's name): exit 0 (got $st)" [ $st -eq 0 ]
check "rows name the file p11-kit list-modules gives ($want)" bash -c \
	"[ -n '$want' ] && results_get '$tmp/s.csv' impl | grep -qF 'module $want (p11-kit softhsm2), a temporary token'"

# Hostile .module files: a bad line costs that line, one warning naming the
# file and line; the rest of the file counts.
mods=$tmp/mods
mkdir -p "$mods"
{
	echo '# a comment'
	echo 'this line has no colon'
	printf 'module: %s\n' "$fake"
	echo 'bad name!: x'
	echo ': no name'
	printf 'x-init-reserved: first\0NUL\n'
	printf 'x-long: %05000d\n' 0
	echo '   x-init-reserved   :   token=abc def   '
	echo '[section]'
} >"$mods/fake.module"
FAKE_P11_ARGS=$tmp/args T2ACCEL_PIN=1234 t2accel -q -b pkcs11 --module fake --module-dir "$mods" --slot 0 \
	-a sha256 -s 64 -d 0.05 >"$tmp/out" 2>"$tmp/err"
st=$?
check "a .module file with bad lines: the module still runs, exit 0 (got $st)" [ $st -eq 0 ]
check "one warning per bad line, naming file and line" bash -c \
	"[ \"\$(grep -o 'line [0-9][0-9]*' '$tmp/err' | tr '\n' ' ')\" = 'line 2 line 4 line 5 line 6 line 7 line 9 ' ] &&
	 [ \$(grep -c \"p11-kit file $mods/fake.module, line\" '$tmp/err') -eq 6 ]"
check "x-init-reserved reaches C_Initialize (pReserved), trimmed" [ "$(cat "$tmp/args")" = "token=abc def" ]
FAKE_P11_ARGS=$tmp/args T2ACCEL_PIN=1234 t2accel -q -b pkcs11 --module fake --module-dir "$mods" --module-args 'mine' \
	--slot 0 -a sha256 -s 64 -d 0.05 >/dev/null 2>&1
mine=$(cat "$tmp/args")
FAKE_P11_ARGS=$tmp/args T2ACCEL_PIN=1234 t2accel -q -b pkcs11 --module "$fake" --slot 0 -a sha256 -s 64 -d 0.05 >/dev/null 2>&1
check "--module-args wins over x-init-reserved; with neither, pReserved stays NULL" \
	[ "$mine $(cat "$tmp/args")" = "mine (none)" ]

# A relative module: is in p11-kit's module directory.
printf 'module: p11-kit-trust.so\n' >"$mods/trust.module"
t2accel -b pkcs11 --module trust --module-dir "$mods" -a sha256 >/dev/null 2>"$tmp/err"
check "a relative module: resolves in $kitdir" grep -qF "module: '$kitdir/p11-kit-trust.so' is not SoftHSM2" "$tmp/err"

# Disabled, remote, a FIFO, an oversized file: said, never loaded, never hung.
printf 'module:\n' >"$mods/off.module"
printf 'module: %s\nremote: |ssh host p11-kit remote x.so\n' "$fake" >"$mods/far.module"
mkfifo "$mods/pipe.module"
head -c 70000 /dev/zero | tr '\0' '#' >"$mods/big.module"
for c in 'off:is disabled' 'far:is remote' 'pipe:pipe.module: not a regular file; file ignored' \
	 'big:big.module: larger than 64 KiB; file ignored'; do
	name=${c%%:*} msg=${c#*:}
	timeout 20 t2accel -b pkcs11 --module "$name" --module-dir "$mods" --slot 0 -a sha256 >/dev/null 2>"$tmp/err"
	st=$?
	check "--module $name: exit 3 (got $st), '$msg'" bash -c "[ $st -eq 3 ] && grep -qF -- '$msg' '$tmp/err'"
done

# A token-less module and a module wanting its string: one line each.
FAKE_P11_FAIL=notoken t2accel -b pkcs11 --module "$fake" --slot 0 -a sha256 >/dev/null 2>"$tmp/err"
st=$?
check "a module with no token: exit 3 (got $st), one line" bash -c \
	"[ $st -eq 3 ] && [ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'offers no slot with a token' '$tmp/err'"
