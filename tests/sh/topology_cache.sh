# threadrun keeps this machine's topology in a cache file (hwloc's XML under
# a key line: format, hwloc, boot, online CPUs) and reads it instead of
# sysfs while the key matches; a stale, damaged or foreign file is ignored
# and replaced, and what the cgroup allows is never taken from it.
. "$(dirname "$0")/tap.bash"
c=$tmp/cache/sub/topology.xml
plan() { THREADRUN_TOPOLOGY_CACHE=$1 threadrun -n 2 true; }
bare() { sed 's/ -- read from the cache .*//'; }
online=$(cat /sys/devices/system/cpu/online)
key="threadrun topology cache 1; hwloc 0x[0-9a-f]*; boot $(cat /proc/sys/kernel/random/boot_id); online $online"
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
check "an allowed set edited in the cache is not believed" [ "$(plan "$c" | bare)" = "$want" ]

# Stale or damaged: discovered as without a cache, and the file rewritten.
sed -i '1s/boot [^;]*;/boot 00000000-0000-0000-0000-000000000000;/' "$c"
check "another boot's cache: discovered" [ "$(plan "$c")" = "$want" ]
check "... and rewritten with this boot's key" bash -c "head -1 '$c' | grep -qx '$key'"
{ head -1 "$c"; printf '<topology version="2.0"><object type="Machine" cpuset=\n'; } >"$tmp/x" && cp "$tmp/x" "$c"
check "a damaged cache: discovered, the plan as without one" [ "$(plan "$c")" = "$want" ]
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
check "a cache that cannot be written: the run goes on, nothing said" \
	bash -c "[ \"\$(THREADRUN_TOPOLOGY_CACHE=/proc/nonexistent/t.xml threadrun -n 2 true 2>&1)\" = \"\$0\" ]" "$want"

# Where it lives: THREADRUN_TOPOLOGY_CACHE, else $XDG_CACHE_HOME, else
# $HOME/.cache, one file per host; off: none.
h=$tmp/home
env -u THREADRUN_TOPOLOGY_CACHE -u XDG_CACHE_HOME HOME="$h" threadrun -n 1 true >/dev/null
check "default: \$HOME/.cache/threadrun/topology-HOST.xml" [ -s "$h/.cache/threadrun/topology-$(hostname).xml" ]
env -u THREADRUN_TOPOLOGY_CACHE XDG_CACHE_HOME="$tmp/xdg" HOME="$h" threadrun -n 1 true >/dev/null
check "XDG_CACHE_HOME: \$XDG_CACHE_HOME/threadrun/topology-HOST.xml" [ -s "$tmp/xdg/threadrun/topology-$(hostname).xml" ]
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
