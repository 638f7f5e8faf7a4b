# linpack --peak's loops, as built: every packed FMA of each peak_* loop
# works on registers only.  A loop whose FMAs read an operand from memory
# (a spilled chain, a constant on the stack) is held back by its loads and
# reports a peak below the FMA units', and every "% of peak" above the truth.
. "$(dirname "$0")/tap.bash"
bin=${LINPACK:-bin/linpack}
if ! command -v objdump >/dev/null; then
	skip "objdump not found (apt-get install binutils): the peak loops' code is not checked"
	exit 0
fi
if ! grep -qw fma /proc/cpuinfo || [ "$(uname -m)" != x86_64 ]; then
	skip "not an x86-64 CPU with FMA: linpack has no FMA peak loops here"
	exit 0
fi
# Per peak_* function: its packed FMAs, and those with a memory operand.
objdump -d --no-show-raw-insn "$bin" | awk '
	/^[0-9a-f]+ <peak_[a-z0-9_]+>:$/ { f = $2; gsub(/[<>:]/, "", f); fns[f] = 1; next }
	/^$/ { f = "" }
	f && /vfn?m(add|sub)[0-9]+pd/ { n[f]++; if (/\(/) m[f]++ }
	END { for (k in fns) print k, n[k] + 0, m[k] + 0 }' | sort >"$tmp/fmas"
check "linpack has its peak loops (peak_*) as functions: $(wc -l <"$tmp/fmas") found" \
	[ "$(wc -l <"$tmp/fmas")" -ge 2 ]
while read -r fn fmas mem; do
	chains=${fn##*_}
	check "$fn: its packed FMAs, one per chain or a multiple (found $fmas for $chains chains)" [ $((fmas >= chains && fmas % chains == 0)) -eq 1 ]
	check "$fn: no packed FMA reads memory (found $mem)" [ "$mem" -eq 0 ]
done <"$tmp/fmas"
# The clock for the theoretical peak: a chain of adds of a register to a
# register.  Adds of an immediate are folded at rename on Intel's cores since
# Golden Cove, several a cycle: that chain reads a clock several times too high.
objdump -d --no-show-raw-insn "$bin" | awk '
	/^[0-9a-f]+ <add_chain_ghz[.a-z0-9]*>:$/ { f = 1; found = 1; next }
	/^$/ { f = 0 }
	f && /\tadd +%r[a-z0-9]+,%r[a-z0-9]+$/ { reg++ }
	f && /\tadd +\$0x[0-9a-f]+,%r[a-z0-9]+$/ { imm++ }
	END { print found + 0, reg + 0, imm + 0 }' >"$tmp/adds"
read -r found reg imm <"$tmp/adds"
check "linpack has its clock loop (add_chain_ghz) as a function" [ "$found" -eq 1 ]
check "add_chain_ghz: a chain of register-to-register adds (found $reg, want >= 100)" [ "$reg" -ge 100 ]
check "add_chain_ghz: no chain of immediate adds (found $imm, want < 100)" [ "$imm" -lt 100 ]
