# Sourced by scripts/bench-network.sh and scripts/bench-spawn.sh, which set
# $tmp and build $tmp/sandtable first.
#
# explain_argv NAME [FLAG...] sets raw, bwrap's argv for /bin/true as
# `sandtable explain --json FLAG...` gives it (sh words, then the
# descriptor redirections it reads), and nfiles, their number; a file
# given as data is written to $tmp/NAME-fdN.bin.
explain_argv() {
	name=$1
	shift
	json=$("$tmp/sandtable" explain --json "$@" -- /bin/true)
	redirs=""
	nfiles=$(printf '%s' "$json" | jq '.files | length')
	i=0
	while [ "$i" -lt "$nfiles" ]; do
		fd=$((3 + i))
		path=$(printf '%s' "$json" | jq -r ".files[$i].path // empty")
		if [ -z "$path" ]; then
			path="$tmp/$name-fd$fd.bin"
			printf '%s' "$json" | jq -r ".files[$i].data_base64" | base64 -d >"$path"
		fi
		redirs="$redirs $fd<$path"
		i=$((i + 1))
	done
	raw="$(printf '%s' "$json" | jq -r '[.program] + .args | map(@sh) | join(" ")')$redirs"
}
