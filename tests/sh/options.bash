# The options a program documents, read the way a user reads them.  Source
# it.  Each function prints one line per option name: NAME, a tab, and its
# argument as written ("" for none, "?" where the text does not say).

# Parse option specs on stdin ("-p, --policy POLICY", "--monitor[=S]"),
# each up to a gap of two spaces or the first word with a small letter that
# is not an option: the text that follows a spec on its line (arguments are
# written in capitals).
specs_to_options() {
	awk '{
		sub(/^ +/, ""); sub(/  .*/, "")
		arg = ""; nn = 0
		for (i = 1; i <= NF && ($i ~ /^-/ || $i !~ /[a-z]/); i++) {
			t = $i; sub(/,$/, "", t)
			if (t ~ /^--?[A-Za-z0-9]/) {
				if (match(t, /\[?=/)) { arg = substr(t, RSTART); t = substr(t, 1, RSTART - 1) }
				names[++nn] = t
			} else
				arg = arg (arg == "" ? "" : " ") t
		}
		for (i = 1; i <= nn; i++) printf "%s\t%s\n", names[i], arg
	}'
}

# help_options NAME < HELP: the options of a --help text.  Its "Options:"
# section when it has one;
# otherwise the options of its usage lines (the lines of its first
# paragraph that start with NAME, after "Usage:", "usage:" or "or:", up to a
# "--"), whose arguments are not checked.
help_options() {
	local help
	help=$(cat)
	if grep -q '^Options:' <<<"$help"; then
		awk '/^Options:/ { on = 1; next } on && /^$/ { exit }
		     on && /^ +-/' <<<"$help" | specs_to_options
	else
		awk -v name="$1" '/^$/ { exit } { sub(/^ *((U|u)sage:|or:)? */, "") }
			$1 == name { for (i = 2; i <= NF && $i != "--"; i++) { t = $i; gsub(/[][|]/, " ", t); print t } }' <<<"$help" |
			tr ' ' '\n' | sed -n 's/^\(--\?[A-Za-z0-9][A-Za-z0-9-]*\).*/\1\t?/p'
	fi | sort -u
}

# man_options PAGE: the options a man page's OPTIONS section lists, as man
# renders them: each .TP tag that starts with a dash (a short one shares
# its line with the text).
man_options() {
	LC_ALL=C.UTF-8 MANWIDTH=200 man -E UTF-8 -l "$1" 2>/dev/null |
		awk '/^[A-Z]/ { on = ($0 == "OPTIONS"); next } on && /^       -/' |
		specs_to_options | sort -u
}
