# threadrun keeps this machine's topology in a cache file (hwloc's XML under
# a key line: format, hwloc, boot, online CPUs and NUMA nodes) and reads it instead of
# sysfs while the key matches; a stale, damaged or foreign file is ignored
# and replaced, and what the cgroup allows is never taken from it.
. "$(dirname "$0")/tap.bash"
c=$tmp/cache/sub/topology.xml
plan() { THREADRUN_TOPOLOGY_CACHE=$1 threadrun -n 2 true; }
bare() { sed 's/ -- read from the cache .*//'; }
online=$(cat /sys/devices/system/cpu/online)
nodes=$(cat /sys/devices/system/node/online 2>/dev/null || echo -)
key="threadrun topology cache 2; hwloc [0-9.?]* API 0x[0-9a-f]*; boot $(cat /proc/sys/kernel/random/boot_id); online $online; nodes $nodes"
want=$(plan off)
wantj=$(THREADRUN_TOPOLOGY_CACHE=off threadrun -n --format json 2 true)

plan "$c" >"$tmp/first" 2>"$tmp/first.err"
st=$?
check "first run: exit 0 ($st), stderr empty" bash -c "[ $st = 0 ] && ! [ -s '$tmp/first.err' ]"
check "first run: discovered, the plan as without a cache" [ "$(cat "$tmp/first")" = "$want" ]
check "first run: the cache written (directories made), private to the user" \
	[ "$(stat -c %a "$c" 2>&1):$(stat -c %a "$(dirname "$c")" 2>&1)" = "600:700" ]
check "its first line is the key" bash -c "head -1 '$c' | grep -qx '$key'"
plan "$c" >"$tmp/second"
check "second run: read from the cache, and says so" grep -qx "# topology: .* -- read from the cache $c" "$tmp/second"
check "second run: the same plan as discovery's" [ "$(bare <"$tmp/second")" = "$want" ]
check "json: the same plan and facts from the cache" \
	[ "$(THREADRUN_TOPOLOGY_CACHE=$c threadrun -n --format json 2 true)" = "$wantj" ]

# The file is what is read: another machine's XML under this machine's key,
# with PUs that are the online CPUs, is the machine threadrun plans for.
one_core() { lstopo-no-graphics -i "core:1 pu:$1" --of xml - 2>/dev/null; }
if [[ $online =~ ^0-([0-9]+)$ ]] && command -v lstopo-no-graphics >/dev/null; then
	pus=$((BASH_REMATCH[1] + 1))
	{ head -1 "$c"; one_core "$pus"; } >"$tmp/x" && cp "$tmp/x" "$c"
	check "a cache that holds one core: the plan is read from it" \
		bash -c "THREADRUN_TOPOLOGY_CACHE='$c' threadrun -n 2 true | grep -q '^# topology: Core:1 .*PU:$pus .*read from the cache'"
	# Its PUs are not the online CPUs: ignored, discovered, rewritten.
	{ head -1 "$c"; one_core $((pus + 1)); } >"$tmp/x" && cp "$tmp/x" "$c"
	check "a cache whose PUs are not the online CPUs: discovered" [ "$(plan "$c")" = "$want" ]
	check "... and rewritten with this machine's $pus PUs" [ "$(grep -c 'type="PU"' "$c")" = "$pus" ]
else
	skip "online CPUs '$online' are not 0-N, or lstopo-no-graphics is missing"
	skip "(the same)"
	skip "(the same)"
fi

# What the cgroup allows comes from the system, not from the file.
plan "$c" >/dev/null
sed -i 's/allowed_cpuset="[^"]*"/allowed_cpuset="0x00000001"/g' "$c"
plan "$c" >"$tmp/allowed"
check "an allowed set edited in the cache: read from the cache, the set not believed" \
	bash -c "grep -q 'read from the cache' '$tmp/allowed' && [ \"\$(sed 's/ -- read from the cache .*//' '$tmp/allowed')\" = \"\$0\" ]" "$want"
# A PU whose OS index is not its cpuset's (a hand-edited file): discovered.
if [ "$(grep -c 'type="PU"' "$c")" -ge 2 ]; then
	plan "$c" >/dev/null
	awk '/type="PU"/ && !done { sub(/os_index="[0-9]*"/, "os_index=\"4095\""); done = 1 } 1' "$c" >"$tmp/x" && cp "$tmp/x" "$c"
	check "a PU whose OS index is not its cpuset's: discovered" [ "$(plan "$c")" = "$want" ]
else
	skip "one PU: no PU to give another's index"
fi

# Stale or damaged: discovered as without a cache, and the file rewritten.
sed -i '1s/boot [^;]*;/boot 00000000-0000-0000-0000-000000000000;/' "$c"
check "another boot's cache: discovered" [ "$(plan "$c")" = "$want" ]
check "... and rewritten with this boot's key" bash -c "head -1 '$c' | grep -qx '$key'"
{ head -1 "$c"; printf '<topology version="2.0"><object type="Machine" cpuset=\n'; } >"$tmp/x" && cp "$tmp/x" "$c"
check "a damaged cache: discovered, the plan as without one" [ "$(plan "$c")" = "$want" ]
head -c 2000 "$c" >"$tmp/x" && cp "$tmp/x" "$c"
plan "$c" >"$tmp/cut" 2>"$tmp/cut.err"
check "a cache cut short: discovered, nothing on stderr" \
	bash -c "[ \"\$(cat '$tmp/cut')\" = \"\$0\" ] && ! [ -s '$tmp/cut.err' ]" "$want"
head -c 100000 /dev/urandom >"$c"
check "random bytes: discovered" [ "$(plan "$c")" = "$want" ]
check "... and replaced by a good cache" bash -c "head -1 '$c' | grep -qx '$key'"

# Not the user's own regular file: never read, and a link is replaced,
# never written through.
plan "$c" >/dev/null
cp "$c" "$tmp/target" && cp "$c" "$tmp/target.orig"
rm "$c" && ln -s "$tmp/target" "$c"
check "a link at the cache's path is not read" [ "$(plan "$c")" = "$want" ]
check "... its target is left as it was" cmp -s "$tmp/target" "$tmp/target.orig"
check "... and the link replaced by a file" bash -c "[ -f '$c' ] && ! [ -L '$c' ]"
mkfifo "$tmp/fifo"
check "a FIFO named as the cache: not waited on, not replaced" \
	bash -c "[ \"\$(THREADRUN_TOPOLOGY_CACHE='$tmp/fifo' timeout 20 threadrun -n 2 true)\" = \"\$0\" ] && [ -p '$tmp/fifo' ]" "$want"
# A full disk: the last write fails at fclose (once: twice aborted).
mkdir -p "$tmp/full"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4k tmpfs "$tmp/full" 2>/dev/null; then
	head -c 4096 /dev/zero >"$tmp/full/fill" 2>/dev/null
	THREADRUN_TOPOLOGY_CACHE=$tmp/full/t.xml threadrun -n 2 true >"$tmp/full.out" 2>&1
	st=$?
	left=$(ls -A "$tmp/full" | grep -v '^fill$')
	umount "$tmp/full"
	check "a full disk: exit 0 ($st), the plan, no file left ($left)" \
		bash -c "[ $st = 0 ] && [ \"\$(cat '$tmp/full.out')\" = \"\$0\" ] && [ -z '$left' ]" "$want"
else
	skip "no tmpfs of 4 KiB to fill here (needs root)"
fi
check "a cache that cannot be written: the run goes on, nothing said" \
	bash -c "[ \"\$(THREADRUN_TOPOLOGY_CACHE=/proc/nonexistent/t.xml threadrun -n 2 true 2>&1)\" = \"\$0\" ]" "$want"

# Where it lives: THREADRUN_TOPOLOGY_CACHE, else $XDG_CACHE_HOME, else
# $HOME/.cache, one file per host; off: none.
h=$tmp/home
mkdir -p "$h" "$tmp/home2"
env -u THREADRUN_TOPOLOGY_CACHE -u XDG_CACHE_HOME HOME="$h" threadrun -n 1 true >/dev/null
check "default: \$HOME/.cache/threadrun/topology-HOST.xml" [ -s "$h/.cache/threadrun/topology-$(hostname).xml" ]
env -u THREADRUN_TOPOLOGY_CACHE XDG_CACHE_HOME="$tmp/xdg" HOME="$h" threadrun -n 1 true >/dev/null
check "XDG_CACHE_HOME: \$XDG_CACHE_HOME/threadrun/topology-HOST.xml" [ -s "$tmp/xdg/threadrun/topology-$(hostname).xml" ]
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p "$tmp/theirs" && chown nobody "$tmp/theirs"
	env -u THREADRUN_TOPOLOGY_CACHE -u XDG_CACHE_HOME HOME="$tmp/theirs" threadrun -n 1 true >/dev/null
	check "a HOME that is not the user's own (sudo -E): nothing made in it" [ ! -e "$tmp/theirs/.cache" ]
else
	skip "not root: no HOME of another user to try"
fi
env THREADRUN_TOPOLOGY_CACHE=off HOME="$tmp/home2" threadrun -n 1 true >/dev/null
check "off: no file" [ ! -e "$tmp/home2/.cache" ]
check "-t plans for another machine: no cache read or written" \
	bash -c "THREADRUN_TOPOLOGY_CACHE='$tmp/t.xml' threadrun -t 'core:4 pu:2' 2 true >/dev/null && [ ! -e '$tmp/t.xml' ]"

# A run from the cache: bound where the plan says, its rows record the machine.
THREADRUN_TOPOLOGY_CACHE=off threadrun -q -o "$tmp/off.csv" 1 true
plan "$c" >/dev/null
THREADRUN_TOPOLOGY_CACHE=$c threadrun -q -o "$tmp/on.csv" 1 true
check "rows from the cache record the same machine" \
	[ "$(results_get "$tmp/on.csv" topology cores pus)" = "$(results_get "$tmp/off.csv" topology cores pus)" ]
last=$(threadrun -n 1 true | awk '/^# given PUs/ { sub(":", "", $4); print $4 }')
last=${last##*[-,]}
got=$(THREADRUN_TOPOLOGY_CACHE=$c threadrun -q -o "$tmp/on.csv" -p "list:$last" 1 \
	sh -c 'grep Cpus_allowed_list /proc/self/status' | awk '{ print $2 }')
check "a run from the cache is bound to its plan's PU ($last, got $got)" [ "$got" = "$last" ]
