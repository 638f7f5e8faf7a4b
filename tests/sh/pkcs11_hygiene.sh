# t2accel -b pkcs11 hygiene: the temporary token goes away however the run
# ends (signals, a reader gone, SIGKILL and the next run), TMPDIR= means
# /tmp; PINs and modules are checked before any C_Login, and the PIN leaves
# the environment.  No check ever prints a PIN: values stay in variables
# that checks name, never expand into their arguments.
. "$(dirname "$0")/tap.bash"
set -o pipefail
tok=$tmp/tok
mkdir -p "$tok"
export TMPDIR=$tok
tokens() { ls -d "$tok"/t2accel-token-* 2>/dev/null | wc -l; }
# Wait (at most 10 s, while run PID lives) for a token directory in $tok
# that is not in the list BEFORE, and print it (any name: older versions'
# too, so the checks below fail on them for the right reason).
new_token() { # pid before
	local i d
	for i in $(seq 100); do
		for d in "$tok"/t2accel-token-*; do
			[ -d "$d" ] && ! grep -qxF -- "$d" <<<"$2" && echo "$d" && return 0
		done
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}
# Field 22 of /proc/PID/stat: the start time t2accel records.
start_time() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $20}'; }

# Signals: each ends the run with 128+N and no token left.
# (Default dispositions: the suite may run under nohup, and an ignored
# signal rightly stays ignored.)
for sig in HUP TERM INT QUIT USR1 USR2 ALRM; do
	env --default-signal t2accel -q -b pkcs11 -a sha1 -s 64 -d 10 >/dev/null 2>"$tmp/err" &
	pid=$!
	new_token $pid "" >/dev/null
	made=$?
	kill -s $sig $pid
	wait $pid
	st=$?
	want=$((128 + $(kill -l $sig)))
	if [ $made -eq 0 ] && [ $st -eq $want ] && [ "$(tokens)" -eq 0 ]; then
		ok "SIG$sig: exit $want, the temporary token removed"
	else
		notok "SIG$sig: exit $want, the temporary token removed" "made $made, exit $st, tokens left $(tokens)"
		rm -rf "$tok"/t2accel-token-*
	fi
done

# A reader that goes away: SIGPIPE ends the run like Ctrl-C.
t2accel -b pkcs11 -a sha1,sha256 -s 16,64,256 -d 0.3 2>&1 | head -1 >/dev/null
st=("${PIPESTATUS[@]}")
check "SIGPIPE (t2accel ... 2>&1 | head -1): exit 141 (got ${st[0]})" [ "${st[0]}" -eq 141 ]
check "SIGPIPE: the temporary token removed" [ "$(tokens)" -eq 0 ]
rm -rf "$tok"/t2accel-token-*

# SIGKILL cannot be caught: the next run removes what it left, and nothing
# that is not a stale home of ours.  The live run started after the kill
# is the next run; a short run while it lives must keep its token.
t2accel -q -b pkcs11 -a sha1 -s 64 -d 10 >/dev/null 2>&1 &
dead=$!
deadtok=$(new_token $dead "")
kill -9 $dead
wait $dead 2>/dev/null
check "SIGKILL leaves the token (the case to clean up)" bash -c '[ -n "$1" ] && [ -d "$1" ]' _ "$deadtok"
me=$(start_time $$)
mkdir -m 700 "$tok/t2accel-token-abc" "$tok/t2accel-token-$dead-1-abcdef.x" \
	"$tok/t2accel-token-$$-$me-Alive1" "$tok/t2accel-token-$$-$((me + 1))-Reused" \
	"$tok/victim" "$tok/t2accel-token-$dead-7-Others"
touch "$tok/victim/keep"
ln -s victim "$tok/t2accel-token-$dead-1-Linked"
chown nobody "$tok/t2accel-token-$dead-7-Others" 2>/dev/null || rmdir "$tok/t2accel-token-$dead-7-Others"
before=$(ls -d "$tok"/t2accel-token-*)
t2accel -q -b pkcs11 -a sha1 -s 64 -d 10 >/dev/null 2>&1 &
live=$!
livetok=$(new_token $live "$before")
t2accel -q -b pkcs11 -a sha1 -s 64 -d 0.05 >/dev/null 2>"$tmp/err"
check "a short run beside the live one: exit 0 ($?)" [ $? -eq 0 ]
check "the next run removed the killed run's token" bash -c '[ -n "$1" ] && [ ! -e "$1" ]' _ "$deadtok"
check "a live run's token is kept" bash -c '[ -n "$1" ] && [ -d "$1" ]' _ "$livetok"
check "a dead pid's name but a reused pid (other start time): removed" [ ! -e "$tok/t2accel-token-$$-$((me + 1))-Reused" ]
check "a live process's name and start time: kept" [ -d "$tok/t2accel-token-$$-$me-Alive1" ]
check "a name not ours kept (no pid: an older t2accel's)" [ -d "$tok/t2accel-token-abc" ]
check "a name not ours kept (a longer suffix)" [ -d "$tok/t2accel-token-$dead-1-abcdef.x" ]
check "a symlink of our name kept" [ -L "$tok/t2accel-token-$dead-1-Linked" ]
check "what the symlink points to untouched" [ -e "$tok/victim/keep" ]
if [ -d "$tok/t2accel-token-$dead-7-Others" ]; then
	check "another uid's directory of our name kept" [ -d "$tok/t2accel-token-$dead-7-Others" ]
else
	ok "another uid's directory of our name kept # SKIP cannot chown to nobody here"
fi
kill -TERM $live
wait $live
check "the live run, stopped later, removed its own token" [ ! -e "$livetok" ]
rm -rf "$tok"/t2accel-token-* "$tok/victim"

# TMPDIR set and empty counts as unset: the token goes to /tmp, not to /.
root_before=$(ls -d /t2accel-token-* 2>/dev/null | wc -l)
TMPDIR= t2accel -q -b pkcs11 -a sha1 -s 64 -d 10 >/dev/null 2>&1 &
pid=$!
# Other runs may use /tmp: look for this one's name (pid in it) only.
in_tmp=1
for i in $(seq 100); do
	if ls -d /tmp/t2accel-token-$pid-* >/dev/null 2>&1; then in_tmp=0; break; fi
	[ "$(ls -d /t2accel-token-* 2>/dev/null | wc -l)" -gt "$root_before" ] && break
	sleep 0.1
done
in_root=$(($(ls -d /t2accel-token-* 2>/dev/null | wc -l) - root_before))
kill -TERM $pid
wait $pid
st=$?
check "TMPDIR= : the token directory is made in /tmp" [ $in_tmp -eq 0 ]
check "TMPDIR= : nothing made in /" [ "$in_root" -eq 0 ]
check "TMPDIR= : removed at the end (exit $st)" bash -c "[ $st -eq 143 ] && ! ls -d /tmp/t2accel-token-$pid-* 2>/dev/null"
TMPDIR=$tok/$'a\nb' t2accel -q -b pkcs11 -a sha1 -s 64 -d 0.05 >/dev/null 2>"$tmp/err"
st=$?
check "TMPDIR with a line break (it would go into SoftHSM2's configuration): exit 2 (got $st)" \
	bash -c "[ $st -eq 2 ] && grep -q 'TMPDIR holds a line break' '$tmp/err'"

# PINs and modules, through the fake module (slot 0, PIN 1234, PINs of 4..8
# bytes), which logs every C_Login call: a refused PIN never reaches it.
mods=$tmp/mods
mkdir -m 755 "$mods"
install -m 755 "$FAKE_P11" "$mods/fake.so"
export FAKE_P11_LOGINS=$tmp/logins
logins() { if [ -e "$FAKE_P11_LOGINS" ]; then wc -l <"$FAKE_P11_LOGINS"; else echo 0; fi; }
run_fake() { # expected-exit expected-message what [t2accel args...]: one case
	local want=$1 msg=$2 what=$3 st
	shift 3
	rm -f "$FAKE_P11_LOGINS"
	timeout 20 t2accel -q -b pkcs11 --module "$mods/fake.so" --slot 0 -a sha256 -s 64 -d 0.05 "$@" \
		>/dev/null 2>"$tmp/err"
	st=$?
	if [ "$want" -eq 0 ]; then
		if [ $st -eq 0 ] && [ "$(logins)" -eq 1 ]; then ok "$what: accepted, one login"
		else notok "$what: accepted, one login" "exit $st, $(logins) logins" "$(head -c 300 "$tmp/err")"; fi
	elif [ $st -eq "$want" ] && grep -q -- "$msg" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	     [ "$(logins)" -eq 0 ] && { [ -z "${SECRET:-}" ] || ! grep -qF -- "$SECRET" "$tmp/err"; }; then
		ok "$what: exit $want, '$msg', one line, C_Login never called, no PIN shown"
	else
		notok "$what: exit $want, '$msg', C_Login never called" "exit $st, $(logins) logins" \
			"$(head -c 300 "$tmp/err")"
	fi
}
pinf=$tmp/pin
newpin() { rm -rf "$pinf"; (umask 077 && printf "$1" >"$pinf"); }
unset T2ACCEL_PIN

newpin '1234\n'
run_fake 0 '' "PIN file of one line, its newline stripped" --pin-file "$pinf"
newpin '1234\r\n'
run_fake 0 '' "PIN file ending CR LF" --pin-file "$pinf"
rm -rf "$pinf"; mkdir -m 700 "$pinf"
run_fake 2 "pin-file: '$pinf' is a directory" "PIN file that is a directory" --pin-file "$pinf"
newpin ''
run_fake 2 "pin-file: '$pinf' is empty" "empty PIN file" --pin-file "$pinf"
newpin '\n'
run_fake 2 "pin-file: '$pinf' is empty" "PIN file holding an empty line" --pin-file "$pinf"
newpin '1234\n5678\n'
run_fake 2 "holds more than one line" "PIN file of two lines" --pin-file "$pinf"
run_fake 2 "pin-file: '/dev/zero' is a character device" "/dev/zero as PIN file (endless)" --pin-file /dev/zero
rm -rf "$pinf"; mkfifo -m 600 "$pinf"
run_fake 2 "pin-file: '$pinf' is a FIFO" "a FIFO as PIN file (no writer: must not wait)" --pin-file "$pinf"
big=$(head -c 10240 /dev/zero | tr '\0' 7)
newpin "$big"
SECRET=7777777 run_fake 2 "pin-file: '$pinf' holds more than 255 bytes" "10 kB PIN file" --pin-file "$pinf"
newpin '1234\n'
chmod 640 "$pinf"
run_fake 2 "pin-file: '$pinf' is open to group or others (mode 0640)" "group-readable PIN file" --pin-file "$pinf"
chmod 604 "$pinf"
run_fake 2 "is open to group or others (mode 0604)" "world-readable PIN file" --pin-file "$pinf"
run_fake 0 '' "world-readable PIN file with --insecure-files" --pin-file "$pinf" --insecure-files
newpin '123456789'
SECRET=123456789 run_fake 2 "PIN: longer than token 'fake' takes (4..8 bytes)" "PIN longer than the token's maximum" --pin-file "$pinf"

# Unreadable: root reads a mode-000 file, so as nobody when we are root.
newpin '1234'
chmod 000 "$pinf"
asuser=()
if [ "$(id -u)" -eq 0 ]; then
	asuser=(setpriv --reuid=nobody --regid="$(id -g nobody 2>/dev/null)" --clear-groups)
	# nobody must be able to run the program and read the module here.
	if command -v setpriv >/dev/null && "${asuser[@]}" "$(command -v t2accel)" --help >/dev/null 2>&1 &&
	   "${asuser[@]}" test -r "$mods/fake.so" 2>/dev/null; then
		chown nobody "$pinf"
		touch "$FAKE_P11_LOGINS.nobody"
		chown nobody "$FAKE_P11_LOGINS.nobody"
	else
		asuser=(skip)
	fi
fi
if [ "${asuser[0]:-}" = skip ]; then
	ok "unreadable PIN file # SKIP root reads mode-000 files, and nobody cannot run t2accel here (setpriv)"
else
	: >"$FAKE_P11_LOGINS.nobody"
	FAKE_P11_LOGINS=$FAKE_P11_LOGINS.nobody timeout 20 "${asuser[@]}" "$(command -v t2accel)" -q -b pkcs11 \
		--module "$mods/fake.so" --slot 0 -a sha256 -s 64 -d 0.05 --pin-file "$pinf" >/dev/null 2>"$tmp/err"
	st=$?
	check "unreadable PIN file: exit 2 (got $st), named, C_Login never called" bash -c \
		"[ $st -eq 2 ] && grep -q \"pin-file: cannot read '$pinf': Permission denied\" '$tmp/err' && [ ! -s '$FAKE_P11_LOGINS.nobody' ]"
fi

export T2ACCEL_PIN=$big
SECRET=7777777 run_fake 2 "T2ACCEL_PIN holds more than 255 bytes" "10 kB T2ACCEL_PIN"
export T2ACCEL_PIN=
run_fake 2 "T2ACCEL_PIN is empty" "empty T2ACCEL_PIN"
unset T2ACCEL_PIN

# T2ACCEL_PIN leaves the environment once read, /proc/PID/environ
# included; and when the PIN comes from a file instead, all the same.
newpin '1234'
for how in T2ACCEL_PIN --pin-file; do
	rm -f "$FAKE_P11_LOGINS" "$tmp/environ"
	args=()
	[ $how = --pin-file ] && args=(--pin-file "$pinf")
	T2ACCEL_PIN=1234 t2accel -q -b pkcs11 --module "$mods/fake.so" --slot 0 -a sha256 -s 64 -d 10 \
		"${args[@]}" >/dev/null 2>"$tmp/err" &
	pid=$!
	for i in $(seq 100); do [ "$(logins)" -gt 0 ] && break; sleep 0.1; done
	cp "/proc/$pid/environ" "$tmp/environ" 2>/dev/null
	kill -TERM $pid
	wait $pid
	check "PIN from $how: the run logged in" [ "$(logins)" -eq 1 ]
	check "PIN from $how: T2ACCEL_PIN is gone from the running program's environment (/proc/PID/environ)" \
		bash -c '[ -s "$1" ] && ! grep -qa T2ACCEL_PIN "$1"' _ "$tmp/environ"
done
rm -f "$tmp/environ"

# Modules: code we run, so only its owner may change it, nor a FIFO.
install -m 777 "$FAKE_P11" "$mods/open.so"
export T2ACCEL_PIN=1234
run_fake 2 "module: '$mods/open.so' is writable by group or others (mode 0777)" "world-writable module" \
	--module "$mods/open.so"
run_fake 0 '' "world-writable module with --insecure-files" --module "$mods/open.so" --insecure-files
chmod 775 "$mods/open.so"
run_fake 2 "is writable by group or others (mode 0775)" "group-writable module" --module "$mods/open.so"
mkdir -m 777 "$tmp/opendir"
install -m 755 "$FAKE_P11" "$tmp/opendir/fake.so"
run_fake 2 "module: directory '$tmp/opendir' is writable by group or others (mode 0777)" \
	"module in a world-writable directory" --module "$tmp/opendir/fake.so"
ln -s "$tmp/opendir/fake.so" "$mods/link.so"
run_fake 2 "module: directory '$tmp/opendir' is writable" "a link to a module in a world-writable directory" \
	--module "$mods/link.so"
mkfifo -m 600 "$mods/fifo.so"
run_fake 2 "module: '$mods/fifo.so' is a FIFO" "a FIFO as module (no writer: must not wait)" --module "$mods/fifo.so"
run_fake 2 "module: '$mods' is a directory" "a directory as module" --module "$mods"

# Modules that misbehave.  A NULL in the function list is a broken module:
# refused before any call (not a SIGSEGV), naming the module and the entry.
for fn in C_Initialize C_Digest; do
	FAKE_P11_FAIL=null:$fn run_fake 1 \
		"module: '$mods/fake.so' is broken: its function list has no $fn (NULL" \
		"a function list with a NULL $fn"
done
# A module that calls exit(0) inside C_Initialize: a failed run, said.
FAKE_P11_FAIL=exit run_fake 1 \
	"t2accel: exit() called from inside a library or module (in PKCS#11 module '$mods/fake.so', C_Initialize), not by t2accel: the run failed" \
	"a module that calls exit(0) in C_Initialize"
# _exit(0) is past any handler: threadrun fails the run of ours that wrote
# no row (status 1 in its row), where it would have recorded a success.
for how in exit _exit; do
	FAKE_P11_FAIL=$how timeout 20 threadrun -q -o "$tmp/ex-$how.csv" 1 t2accel -q -b pkcs11 \
		--module "$mods/fake.so" --slot 0 -a sha256 -s 64 -d 0.05 >/dev/null 2>"$tmp/err"
	st=$?
	check "threadrun, a module that calls $how(0) in C_Initialize: exit 1 ($st), the run row says status 1" \
		[ "$st:$(results_get "$tmp/ex-$how.csv" algorithm status)" = "1:$(printf '(run)\t1')" ]
done
unset T2ACCEL_PIN FAKE_P11_LOGINS
