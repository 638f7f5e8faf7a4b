# bash completion (completion/threadrun): sourced in bash, with and without
# bash-completion, it completes every program's options (the same as its
# --help), policies, algorithms (t2accel --list), values, and after
# threadrun's N the command and then that command's own options; it runs no
# program to do so.
. "$(dirname "$0")/tap.bash"
. "$(dirname "$0")/options.bash"
cd "$(dirname "$0")/../.." || exit 1
top=$PWD bin=${TEST_BIN:-bin}
file=$top/completion/threadrun
bashcomp=/usr/share/bash-completion/bash_completion

# comp MODE WORD...: the completions of the last word, one line each,
# sorted, in a fresh bash (MODE bc: with bash-completion loaded, else
# without).  The words are given as bash splits them: at = and :, which are
# words of their own ("--backend=" is --backend and =).
comp() {
	local mode=$1
	shift
	PATH="$top/$bin:$tmp/path:$PATH" bash -c '
		[ "$1" = bc ] && . "$2"
		. "$3" || exit 1
		shift 3
		COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
		COMP_LINE=$(printf "%s " "$@") COMP_LINE=${COMP_LINE% }
		COMP_LINE=${COMP_LINE// = /=} COMP_LINE=${COMP_LINE// =/=} COMP_LINE=${COMP_LINE// : /:}
		COMP_POINT=${#COMP_LINE}
		spec=$(complete -p "$1") && [[ $spec == *" -F "* ]] || exit 1
		func=${spec#* -F } func=${func%% *}
		"$func" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$mode" "$bashcomp" "$file" "$@" | sed '/^$/d' | sort -u
}

check "completion/threadrun is valid bash" bash -n "$file"
spec=$(bash -c '. "$1" && complete -p threadrun' _ "$file" 2>&1)
check "after sourcing, complete -p threadrun shows our function ($spec)" \
	bash -c '[[ $1 == "complete -F _threadrun threadrun" ]]' _ "$spec"
missing=$(bash -c '. "$1"; for p in t2accel linpack stream threadreport threadrun-mpi threadplot monitorplot; do
	complete -p "$p" 2>/dev/null | grep -q " -F _threadrun " || echo "$p"; done' _ "$file")
check "every other program completes through it too${missing:+ (not: $(echo $missing))}" [ -z "$missing" ]

# A program of the user's that says when it runs.
mkdir -p "$tmp/path"
printf '#!/bin/sh\ntouch "%s/ran"\n' "$tmp" >"$tmp/path/userprog"
chmod +x "$tmp/path/userprog"

modes=plain
[ -r "$bashcomp" ] && modes="plain bc"
for m in $modes; do
	# want NAME EXPECTED WORD...: the completions are exactly EXPECTED.
	want() {
		local name=$1 exp=$2 got
		shift 2
		got=$(comp "$m" "$@" | tr '\n' ' ')
		check "$m: $name gives '$exp' (got '${got% }')" [ "${got% }" = "$exp" ]
	}
	# has NAME WORD EXPECTED...: the completions include WORD.
	has() {
		local name=$1 w=$2 got
		shift 2
		got=$(comp "$m" "$@")
		check "$m: $name offers $w (got $(echo $got | cut -c1-100))" grep -qx -- "$w" <<<"$got"
	}
	want "threadrun -p sc<TAB>" "scatter" threadrun -p sc
	want "threadrun --policy=sc<TAB>" "scatter" threadrun --policy = sc
	# The names that start with "sh", from the table (t2accel --list).
	sh_algos=$(t2accel --list | cut -f1 | grep '^sh' | sort | tr '\n' ' ')
	sh_algos=${sh_algos% }
	want "t2accel -a sh<TAB>" "$sh_algos" t2accel -a sh
	want "t2accel -a aes,sh<TAB> (a comma list)" "$(printf 'aes,%s ' $sh_algos | sed 's/ $//')" t2accel -a aes,sh
	want "threadrun --sweep 1-4 -p compact,sc<TAB>" "compact,scatter" threadrun --sweep 1-4 -p compact,sc
	want "threadrun 2 t2a<TAB> (bin/ on PATH)" "t2accel" threadrun 2 t2a
	want "threadrun -p list:0 -c 1 2 linp<TAB>" "linpack" threadrun -p list : 0 -c 1 2 linp
	has "threadrun --sweep 1-2 -- str<TAB> (after --)" stream threadrun --sweep 1-2 -- str
	has "threadrun 2 user<TAB>" userprog threadrun 2 user
	has "threadrun 2 t2accel -<TAB>" --algorithm threadrun 2 t2accel -
	want "threadrun -q 2 t2accel -b <TAB>" "evp pkcs11" threadrun -q 2 t2accel -b ""
	want "threadrun 2 t2accel --backend=<TAB>" "evp pkcs11" threadrun 2 t2accel --backend =
	want "threadrun-mpi --sweep 1-2 -- linpack --fl<TAB>" "--flops" threadrun-mpi --sweep 1-2 -- linpack --fl
	want "threadrun --counters=cy<TAB>" "cycles" threadrun --counters = cy
	want "threadrun --counters=task-clock,cy<TAB> (a comma list)" "task-clock,cycles" threadrun --counters = task-clock,cy
	want "threadreport -f <TAB>" "csv html json markdown text tsv" threadreport -f ""
	want "linpack -v <TAB>" "0 1 2" linpack -v ""
	want "stream -k tr<TAB>" "triad" stream -k tr
	has "threadplot -o <TAB> (directories)" tests threadplot -o ""
	rm -f "$tmp/ran"
	comp "$m" threadrun 2 userprog - >/dev/null
	comp "$m" threadrun 2 "$tmp/path/userprog" --he >/dev/null
	check "$m: completing after a program of the user's runs nothing" [ ! -e "$tmp/ran" ]
done

# The tables agree with the programs: the options of each program's --help,
# t2accel --list's algorithms, the policies of threadrun --help.
for p in threadrun t2accel linpack stream threadreport threadrun-mpi threadplot monitorplot; do
	case $p in threadplot | monitorplot) exe=plot/$p ;; *) exe=$bin/$p ;; esac
	if [ ! -x "$exe" ]; then
		[ "$p" = threadrun-mpi ] && { skip "$p is not built here (no mpicc)"; continue; }
		notok "$p: $exe is not built"; continue
	fi
	"$exe" --help >"$tmp/help" 2>/dev/null
	help=$(help_options "$p" <"$tmp/help" | cut -f1)
	# threadrun-mpi takes threadrun's options, and its own.
	[ "$p" = threadrun-mpi ] && help="$help $($bin/threadrun --help | help_options threadrun | cut -f1)"
	help="$help --help"
	"$exe" -h 2>/dev/null | cmp -s - "$tmp/help" && help="$help -h"
	offered=$(comp plain "$p" -)
	bad=$(for o in $help; do grep -qx -- "$o" <<<"$offered" || echo "$o is in --help, not completed;"; done
	      for o in $offered; do [[ " $(echo $help) " == *" $o "* ]] || echo "$o is completed, not in $p --help;"; done)
	check "$p: the options completed are those of --help ($(echo "$offered" | wc -l))${bad:+: $(echo $bad | sort -u)}" [ -z "$bad" ]
done
algs=$($bin/t2accel --list | cut -f1 | tr '\n' ' ')
got=$(comp plain t2accel -a "" | grep -vx all | tr '\n' ' ')
check "t2accel -a completes t2accel --list's algorithms (and all): '${algs% }' (got '${got% }')" \
	bash -c '[ "$(tr " " "\n" <<<"$1" | sort | xargs)" = "$(tr " " "\n" <<<"$2" | sort | xargs)" ] && [ -n "$1" ]' _ "$algs" "$got"
# --counters=: the event names of threadrun --counters=list (and list);
# without '=' the next word is N, not an event.
evs=$($bin/threadrun --counters=list | awk 'NR > 1 && !/^  / { exit } NR > 1 { print $1 }' | tr '\n' ' ')
got=$(comp plain threadrun --counters = | grep -vx list | tr '\n' ' ')
check "threadrun --counters=<TAB> completes --counters=list's events: '${evs% }' (got '${got% }')" \
	bash -c '[ "$(tr " " "\n" <<<"$1" | sort | xargs)" = "$(tr " " "\n" <<<"$2" | sort | xargs)" ] && [ -n "$1" ]' _ "$evs" "$got"
got=$(comp plain threadrun --counters "")
check "--counters without '=': the next word is not an event (got '$(echo $got | cut -c1-60)')" bash -c '! grep -qx cycles <<<"$1"' _ "$got"
# Policies: every one completed is one threadrun takes (planning for a T2),
# and every word of --help's -p line that threadrun takes is completed.
t2='numa:1 package:1 core:8 pu:8'
takes() { $bin/threadrun -t "$t2" -p "$1" 1 >/dev/null 2>&1; }
offered=$(comp plain threadrun -p "")
bad=$(for w in $offered; do [[ $w == *: ]] && w=${w}0; takes "$w" || echo "$w(refused by threadrun)"; done)
line=$($bin/threadrun --help | grep -E '^ +-p, --policy')
for w in $(sed 's/^ *-p, --policy POLICY *//; s/[,()]/ /g' <<<"$line"); do
	[[ $w =~ ^[a-z][a-z0-9:]*$ ]] && takes "$w" && ! grep -qx -- "$w" <<<"$offered" && bad="$bad $w(not completed)"
done
check "threadrun -p completes $(echo $offered | wc -w) policies, each one threadrun takes, and those of its --help${bad:+ (differ: $(echo $bad))}" \
	bash -c '[ -n "$1" ] && [ -z "$2" ]' _ "$offered" "$bad"
