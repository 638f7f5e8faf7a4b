# scatter must give the PUs hwloc-distrib --single gives, for the same
# topology and N, in the same order.
. "$(dirname "$0")/tap.bash"
command -v hwloc-distrib >/dev/null || { skip "hwloc-distrib missing"; exit 0; }
for topo in 'numa:1 package:1 core:8 pu:8' 'package:2 [numa] core:16 pu:2' \
	    'numa:2 package:2 core:4 pu:4' 'package:1 core:6 pu:1'; do
	max=$(hwloc-calc -i "$topo" --number-of pu all)
	for nw in 1 2 3 5 8 16 24 $max; do
		[ "$nw" -le "$max" ] || continue
		ours=$(threadrun -t "$topo" -p scatter -n "$nw" | awk '$1 ~ /^[0-9]+$/ {print $2}' | tr '\n' ' ')
		theirs=$(for m in $(hwloc-distrib --single -i "$topo" "$nw"); do
			hwloc-calc -i "$topo" --po --intersect PU "$m"; done | tr '\n' ' ')
		if [ "$ours" = "$theirs" ]; then
			ok "scatter '$topo' N=$nw matches hwloc-distrib"
		else
			notok "scatter '$topo' N=$nw" "ours:   $ours" "distrib: $theirs"
		fi
	done
done
