# threadrun --pthreads: an ordinary pthreads program (tests/progs/
# pthread_where.c: the main thread is worker 0, a helper thread is created
# first, then workers 1..N-1) reports from inside each thread the CPU it
# runs on and its CPU set; each worker is on the PU the preloaded library
# gave it, in creation order, the skip mask leaves the helper alone, and
# a program the library cannot reach (static, setuid) is refused, exit 3.
# Without --pthreads a program that is not OpenMP gets one note.
# Phases: plain and asan (threadrun's ELF reader meets hostile files
# there); the library and pthread_where are never sanitized (a sanitizer
# runtime must come first in its program), and nothing of threadrun's part
# is threaded, so tsan has nothing to add.
. "$(dirname "$0")/tap.bash"
r=$tmp/r.csv

# expect PLAN SKIP N: the lines pthread_where should print, sorted: worker
# i is creation i (the helper creation 0), placed at 1 + its creation less
# the skipped ones before it, round-robin over PLAN; the main thread at 0;
# a skipped worker keeps the plan's CPU set.
expect() { # plan skip n
	local -a pu
	local i w skipped bit set
	set=$(tr , '\n' <<<"$1" | sort -nu | paste -sd,)
	IFS=, read -ra pu <<<"$1"
	for ((i = 0; i < $3; i++)); do
		skipped=0
		for ((bit = 0; bit < i; bit++)); do ((($2 >> bit) & 1)) && skipped=$((skipped + 1)); done
		w=$((i == 0 ? 0 : 1 + i - skipped))
		p=${pu[w % ${#pu[@]}]}
		((i > 0 && ($2 >> i) & 1)) && p=$set
		echo "worker $i cpus $p"
	done | sort
}
# What every thread may run on with nothing pinned.
full=$(pthread_where 1 | sed -n 's/^helper cpus //p')

run_where() { # name plan skip n threadrun-args...
	local name=$1 plan=$2 skip=$3 nw=$4 out want got
	shift 4
	out=$(threadrun -q -o "$r" -p "list:$plan" "$@" pthread_where "$nw" 2>"$tmp/err")
	want=$(expect "$plan" "$skip" "$nw")
	# A pinned thread runs where its CPU set says.
	got=$(awk '/^worker / { print $1, $2, "cpus", $6; if ($6 ~ /^[0-9]+$/ && $4 != $6) print "off:", $0 }' <<<"$out" | sort)
	if [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then
		ok "$name: every thread on its planned PU"
	else
		notok "$name" "want:" "$want" "got:" "$out" "stderr: $(cat "$tmp/err")"
	fi
	helper=$(sed -n 's/^helper cpus //p' <<<"$out")
}

run_where "-s 0x1 -p list:1,0, 2 threads (the helper skipped)" 1,0 1 2 -s 0x1 2
check "the skipped helper keeps the plan's CPU set (cpus $helper)" [ "$helper" = 0,1 ]
run_where "--pthreads -p list:1,0, 2 threads (the helper takes worker 1's PU)" 1,0 0 2 --pthreads 2
check "the helper, not skipped, is pinned to the plan's second PU (cpus $helper)" [ "$helper" = 0 ]
run_where "-s 1 -p list:1,0, 5 threads: round-robin past the plan's end" 1,0 1 5 -s 1 2
run_where "-s 0X1 -p list:0, 1 worker, 3 threads all on PU 0" 0 1 3 -s 0X1 1
run_where "-s 0x5 (creations 0 and 2 skipped), 4 threads" 0,1 5 4 -s 0x5 2
out=$(threadrun -q -o "$r" -p none --pthreads 2 pthread_where 2 2>&1)
check "policy none: nothing pinned" [ "$(grep -c "cpus $full\$" <<<"$out")" -eq 3 ]
out=$(threadrun -q -o "$r" --sweep 2 --repeat 2 -p list:1,0 -s 0x1 -- pthread_where 2 2>&1)
check "a sweep places every run's threads" \
	[ "$(grep -c '^worker 0 cpu 1 cpus 1$' "$r.log")" -eq 2 -a "$(grep -c '^worker 1 cpu 0 cpus 0$' "$r.log")" -eq 2 ]

# The monitor takes each thread's planned PU from where the library bound
# it: the skipped helper and worker 1 (which the order threads appear in
# would make workers 1 and 2) are not off plan.
rm -f "$r"
threadrun --monitor=0.02 -o "$r" -s 0x1 -p list:1,0 2 pthread_where 2 30000000 >/dev/null 2>"$tmp/err"
st=$?
seen=$(grep -cE '^[0-9]+ +pthread_where +[0-9]+ +(-|0|1) ' "$tmp/err")
name="--monitor: the 3 threads seen ($seen), the helper with no plan, none off plan, the run row placement_ok"
if [ "$st" -eq 0 ] && [ "$seen" -eq 3 ] && grep -qE "^[0-9]+ +pthread_where +[0-9]+ +- " "$tmp/err" &&
   ! grep -q "OFF PLAN" "$tmp/err" &&
   [ "$(results_get "$r" algorithm placement_ok off_plan)" = "$(printf "(run)\tyes\t0")" ] &&
   results_get "$r" note | grep -q "each thread placed by --pthreads"; then
	ok "$name"
else
	notok "$name" "exit $st" "$(cat "$tmp/err")" "$(results_get "$r" algorithm placement_ok off_plan note)"
fi

# The user's LD_PRELOAD stays, first; the mask reaches the library as a list.
# (ASan wants its runtime first in threadrun: the user's list is not.)
out=$(LD_PRELOAD=libm.so.6 ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
	threadrun -q -o "$r" -s 0x9 2 sh -c 'echo "$LD_PRELOAD|$THREADRUN_PTHREADS_SKIP"')
check "LD_PRELOAD appended to the user's ($out)" \
	bash -c '[[ $1 == "libm.so.6:/"*"/libthreadrun-pthreads.so|0,3" ]]' _ "$out"

# Programs the library cannot reach: one line, exit 3, nothing run.
refused() { # name expected-text command...
	local name=$1 text=$2 st
	shift 2
	rm -f "$r"
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$text" "$tmp/err" &&
	   [ ! -s "$tmp/out" ] && [ ! -e "$r" ]; then
		ok "$name: exit 3, one line, nothing run"
	else
		notok "$name" "exit $st" "$(cat "$tmp/err" "$tmp/out")"
	fi
}
refused "a static program" "pthread_where_static is statically linked: no loader preloads the library" \
	threadrun -o "$r" --pthreads 2 pthread_where_static 2
refused "a sweep of a static program" "is statically linked" \
	threadrun -o "$r" --sweep 1-2 -s 0x1 -- pthread_where_static 2
# An ELF whose program headers lie past its end is no program, static or
# not: the exec says so (126), as without --pthreads.
head -c 64 "$(command -v pthread_where)" >"$tmp/cut"
chmod +x "$tmp/cut"
threadrun -o "$r" --pthreads 1 "$tmp/cut" >/dev/null 2>"$tmp/err"
st=$?
check "an ELF cut after its header: exit 126 from the exec (got $st), not called static" bash -c \
	"[ $st -eq 126 ] && grep -q 'Exec format error' '$tmp/err' && ! grep -q static '$tmp/err'"
cp "$(command -v pthread_where)" "$tmp/nophdr"
printf '\0\0' | dd of="$tmp/nophdr" bs=1 seek=56 conv=notrunc 2>/dev/null   # e_phnum = 0
threadrun -o "$r" --pthreads 1 "$tmp/nophdr" >/dev/null 2>"$tmp/err"
st=$?
check "an ELF with no program headers: exit 126 from the exec (got $st), not called static" bash -c \
	"[ $st -eq 126 ] && grep -q 'Exec format error' '$tmp/err' && ! grep -q static '$tmp/err'"
cp "$(command -v pthread_where)" "$tmp/suid"
if [ "$(id -u)" -eq 0 ] && chown nobody "$tmp/suid" && chmod u+s "$tmp/suid" &&
   [ -z "$(findmnt -n -o OPTIONS -T "$tmp" | grep -w nosuid)" ]; then
	refused "a setuid program" "suid is setuid or setgid: the loader ignores LD_PRELOAD" \
		threadrun -o "$r" --pthreads 2 "$tmp/suid" 2
else
	skip "a setuid program (needs root and a filesystem without nosuid)"
fi
printf '#!%s\necho unreachable\n' "$(command -v pthread_where_static)" >"$tmp/script"
chmod +x "$tmp/script"
refused "a script whose interpreter is static" "script's interpreter $(command -v pthread_where_static) is statically linked" \
	threadrun -o "$r" --pthreads 2 "$tmp/script"
# The whole #! chain, as the kernel follows it: a script run by a script
# run by a setuid program, a setuid script on the way, more scripts than
# the kernel follows (5).
printf '#!%s\necho unreachable\n' "$tmp/script" >"$tmp/script2"
chmod +x "$tmp/script2"
refused "a script whose interpreter is a script of a static one" "script2's interpreter $(command -v pthread_where_static) is statically linked" \
	threadrun -o "$r" --pthreads 2 "$tmp/script2"
printf '#!/bin/sh\nexec pthread_where 2\n' >"$tmp/deep1"
prev=$tmp/deep1
for i in 1 2 3 4 5 6; do
	[ $i -gt 1 ] && printf '#!%s\n' "$prev" >"$tmp/deep$i"
	chmod +x "$tmp/deep$i"
	prev=$tmp/deep$i
done
out=$(threadrun -q -o "$r" -p list:1,0 -s 0x1 2 "$tmp/deep5" 2>&1)
check "5 scripts deep (as deep as the kernel goes): every thread placed" grep -q '^worker 1 cpu 0 cpus 0$' <<<"$out"
refused "6 scripts deep: more than the kernel follows" "deep6: its #! interpreters run through more than 5 scripts" \
	threadrun -o "$r" --pthreads 2 "$tmp/deep6"
if [ "$(id -u)" -eq 0 ] && chown nobody "$tmp/suid" && chmod u+s "$tmp/suid" &&
   [ -z "$(findmnt -n -o OPTIONS -T "$tmp" | grep -w nosuid)" ]; then
	printf '#!%s\n' "$tmp/suid" >"$tmp/mid"
	printf '#!%s\n' "$tmp/mid" >"$tmp/top"
	chmod +x "$tmp/mid" "$tmp/top"
	refused "a script of a script of a setuid program" "top's interpreter $tmp/suid is setuid or setgid" \
		threadrun -o "$r" --pthreads 2 "$tmp/top" 2
	cp "$tmp/mid" "$tmp/gidmid"
	printf '#!%s\n' "$(command -v pthread_where)" >"$tmp/gidmid"
	printf '#!%s\n' "$tmp/gidmid" >"$tmp/gidtop"
	chown :nogroup "$tmp/gidmid" && chmod 2755 "$tmp/gidmid" && chmod +x "$tmp/gidtop"
	refused "a setgid script on the way" "gidtop's interpreter $tmp/gidmid is setuid or setgid" \
		threadrun -o "$r" --pthreads 2 "$tmp/gidtop" 2
else
	skip "a script of a script of a setuid program (needs root and a filesystem without nosuid)"
	skip "a setgid script on the way (needs root and a filesystem without nosuid)"
fi

# Installed: the library in <bindir>/../lib/threadrun; missing: exit 3.
mkdir -p "$tmp/pfx/bin" "$tmp/pfx/lib/threadrun"
cp "$TEST_BIN/threadrun" "$tmp/pfx/bin/"
cp "$TEST_BIN/libthreadrun-pthreads.so" "$tmp/pfx/lib/threadrun/"
out=$("$tmp/pfx/bin/threadrun" -q -o "$r" -s 0x1 -p list:1,0 2 "$(command -v pthread_where)" 2 2>&1)
check "installed: the library found in ../lib/threadrun" grep -q '^worker 1 cpu 0 cpus 0$' <<<"$out"
rm "$tmp/pfx/lib/threadrun/libthreadrun-pthreads.so"
refused "installed without the library" "the library libthreadrun-pthreads.so is neither beside threadrun nor in ../lib/threadrun" \
	"$tmp/pfx/bin/threadrun" -o "$r" --pthreads 2 "$(command -v pthread_where)" 2

# Hostile files: an ELF header of nonsense (the exec refuses it: 126), a
# program whose dynamic section runs past its end, with names and string
# table far outside it (126), a truncated program (it crashes, as it does
# without threadrun).  threadrun reads each, with and without --pthreads,
# and returns the exec's answer; the asan phase checks its reads.
{ printf '\177ELF\002\001\001\000'; head -c 120 /dev/zero | tr '\0' '\377'; } >"$tmp/bad"
perl -e 'print pack("a16 S S L Q Q Q L S S S S S S", "\x7fELF\x02\x01\x01", 2, 62, 1, 0, 64, 0, 0, 64, 56, 3, 0, 0, 0),
	pack("L L Q Q Q Q Q Q", 3, 4, 0, 0, 0, 1 << 40, 0, 0),
	pack("L L Q Q Q Q Q Q", 2, 4, 232, 0, 0, 1 << 40, 0, 0),
	pack("L L Q Q Q Q Q Q", 1, 4, 0, 4096, 0, 1 << 60, 0, 0),
	pack("q Q q Q q Q q Q q Q", 1, 1 << 62, 1, 5, 1, ~0, 5, 4096, 10, 1 << 63)' >"$tmp/core"
head -c 3000 "$(command -v pthread_where)" >"$tmp/cut"
chmod +x "$tmp/bad" "$tmp/core" "$tmp/cut"
bash -c '"$1"' _ "$tmp/cut" >/dev/null 2>&1
direct=$?
for f in bad:126 core:126 cut:$direct; do
	for opt in --pthreads -q; do
		threadrun -o "$r" $opt 2 "$tmp/${f%:*}" >/dev/null 2>"$tmp/err"
		st=$?
		check "${f%:*} with $opt: exit ${f#*:} (got $st)" [ "$st" -eq "${f#*:}" ]
	done
done
out=$(LD_PRELOAD=$TEST_BIN/libthreadrun-pthreads.so THREADRUN_PLAN='0,x' pthread_where 2 2>&1)
st=$?
check "the library given a bad THREADRUN_PLAN: one line, nothing pinned, the program runs" \
	[ "$st" -eq 0 -a "$(grep -c "threadrun-pthreads: THREADRUN_PLAN: 'x' is not a number" <<<"$out")" -eq 1 \
	  -a "$(grep -c "cpus $full\$" <<<"$out")" -eq 3 ]
threadrun -s 0xg 2 pthread_where 2 >/dev/null 2>"$tmp/err"
st=$?
check "a bad mask: exit 2, one line naming it" \
	[ "$st" -eq 2 -a "$(wc -l <"$tmp/err")" -eq 1 -a "$(grep -c "skip: '0xg' is not a hex mask" "$tmp/err")" -eq 1 ]

# Without --pthreads: one note for a program that is not OpenMP, on 2 PUs.
note() { grep -c 'process-wide CPU set only' "$tmp/err"; }
threadrun -o "$r" 2 pthread_where 2 >/dev/null 2>"$tmp/err"
check "pthread_where, 2 PUs: the note ($(note))" [ "$(note)" -eq 1 -a "$(grep -c 'pthread_where is not OpenMP' "$tmp/err")" -eq 1 ]
threadrun -o "$r" --sweep 1-2 --repeat 2 -- pthread_where 2 >/dev/null 2>"$tmp/err"
check "a sweep: the note once ($(note))" [ "$(note)" -eq 1 ]
threadrun -q -o "$r" 2 pthread_where 2 >/dev/null 2>"$tmp/err"
check "-q: no note" [ "$(note)" -eq 0 ]
threadrun -o "$r" 1 pthread_where 2 >/dev/null 2>"$tmp/err"
check "one PU: no note" [ "$(note)" -eq 0 ]
threadrun -o "$r" 2 "$tmp/script" >/dev/null 2>"$tmp/err"
check "a script: the note says it may be" grep -q 'script is a script: what it starts gets a process-wide CPU set only, unless it is OpenMP' "$tmp/err"
for prog in omp_where "t2accel -a md5 -d 0.1" "stream -q -n 2000 -k copy" "linpack -q 100"; do
	threadrun -o "$r" 2 $prog >/dev/null 2>"$tmp/err"
	check "${prog%% *}: no note" [ "$(note)" -eq 0 ]
done
threadrun -o "$r" --pthreads 2 t2accel -a md5 -d 0.1 >/dev/null 2>"$tmp/err"
check "t2accel with --pthreads: one note, it binds its own workers" grep -q 'note: t2accel binds each of its workers itself' "$tmp/err"
