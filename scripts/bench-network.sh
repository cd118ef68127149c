#!/bin/sh
# Times one sandboxed /bin/true per process in each network mode, interleaved
# (scripts/bench-interleaved.py), against the floor the spawn target is set
# by: a minimal static Go program that runs the network-off bwrap argv
# (`sandtable explain --json --no-network`) and waits. Target: sandtable run
# in mode proxy within 1.25x of that floor. The difference between proxy and
# off is the network helper's cost per spawn. Every command runs through sh,
# which the floor needs for its descriptor redirections. The least helper
# is the floor with FLOOR_HELPER=1 running the mode-proxy argv: what a
# helper that is a second start of a Go program in a new user and network
# namespace (an unprivileged caller's mode proxy) costs before any work.
#
# Prints the network helper's cost per spawn (proxy minus off), the least
# helper's, and the ratio to the floor; with STRICT=1 it exits 1 when the
# 1.25x is missed. Then the parts of a spawn (PARTS first spawns of a
# process per mode, default 20; PARTS=0 skips them): which part a
# regression grew.
#
# Needs bwrap, jq, python3 and go. RUNS (default 200). With BASE=REV
# (a git revision) it also times that revision's sandtable in modes off
# and proxy, in the same interleaved rounds, for a change's before and
# after side by side.
set -eu

RUNS=${RUNS:-200}
for tool in bwrap jq go python3; do
	command -v "$tool" >/dev/null || { echo "bench-network: $tool not found on PATH" >&2; exit 2; }
done
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/explain-argv.sh"
tmp=$(mktemp -d)
base=$(mktemp -d /var/tmp/sandtable-bench-net.XXXXXX)
trap 'rm -rf "$tmp" "$base"' EXIT

# Static, as released: with cgo, the net package (the network proxy) makes
# the binary dynamically linked, which costs every start about 1 ms here.
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/sandtable" ./cmd/sandtable)
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/floor.bin" ./scripts/floor)
if [ "${PARTS:-20}" -gt 0 ]; then
	(cd "$root" && CGO_ENABLED=0 go test -c -o "$tmp/sandbox.test" ./sandbox)
fi
if [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git -C "$root" archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/sandtable-base" ./cmd/sandtable)
fi

mkdir "$base/home" "$base/ws"
export HOME="$base/home"
cd "$base/ws"
# Each argv goes to sh in a file: the words are quoted for sh, and some
# (JAVA_TOOL_OPTIONS's) hold spaces and a |.
explain_argv proxy --network proxy
printf '%s\n' "FLOOR_HELPER=1 FLOOR_FDS=$nfiles $tmp/floor.bin $raw" >"$tmp/helper.sh"
explain_argv off --no-network
printf '%s\n' "FLOOR_FDS=$nfiles $tmp/floor.bin $raw" >"$tmp/floor.sh"

echo "machine: $(nproc) cores, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(bwrap --version), $(go version | cut -d' ' -f3); $(date -u +%F)"
echo "medians of $RUNS interleaved runs, each through sh; ratios to the first line"
set -- "sh $tmp/floor.sh" \
	"sh -c '$tmp/sandtable run --network off -- /bin/true'" \
	"sh -c '$tmp/sandtable run --network host -- /bin/true'" \
	"sh -c '$tmp/sandtable run --network proxy -- /bin/true'" \
	"sh $tmp/helper.sh"
if [ -n "${BASE:-}" ]; then
	set -- "$@" "sh -c '$tmp/sandtable-base run --network off -- /bin/true'" \
		"sh -c '$tmp/sandtable-base run --network proxy -- /bin/true'"
fi
# A failed run (the floor's bwrap, say, when a host socket its argv binds
# has gone since explain) is named on stderr; the figures are then void.
failed=0
python3 "$root/scripts/bench-interleaved.py" "$RUNS" "$@" >"$tmp/out" || failed=1
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The floor's line is long (the whole argv): print it shortened.
awk '{
	if (NR == 1 && NF >= 3) printf "%s %s  the floor: a static Go program running the network-off argv\n", $1 " " $2, $3
	else if (NR == 5 && NF >= 3) printf "  %s   %s  the least helper: the floor started again in a new user and network namespace, loopback up, running the mode-proxy argv\n", $1 " " $2, $3
	else print
}' "$tmp/out"
awk -v bar=1.25 '
	{ ms[NR] = $1 }
	END {
		printf "network helper per spawn (proxy - off): %.2f ms; the least a re-executed helper can cost (least helper - floor): %.2f ms, %.2f of the floor\n", ms[4] - ms[2], ms[5] - ms[1], ms[5] / ms[1]
		printf "sandtable run --network off / floor: %.2f, host: %.2f (target <= 1.5 each): %s\n", ms[2] / ms[1], ms[3] / ms[1], (ms[2] / ms[1] <= 1.5 && ms[3] / ms[1] <= 1.5) ? "yes" : "NO"
		r = ms[4] / ms[1]
		printf "sandtable run --network proxy / floor: %.2f (target <= %s): %s\n", r, bar, (r <= bar) ? "yes" : "NO"
		if (NR >= 7) {
			printf "BASE %s: off %.2f ms (%.2f of the floor), proxy %.2f ms (%.2f); this tree / BASE: off %.3f, proxy %.3f\n", ENVIRON["BASE"], ms[6], ms[6] / ms[1], ms[7], ms[7] / ms[1], ms[2] / ms[6], ms[4] / ms[7]
		}
		if (ENVIRON["STRICT"] == "1" && r > bar) exit 1
	}' "$tmp/out"
# Where a spawn's time goes: the parts of NewCmd's spawn (spawnPhases),
# each the median of PARTS first spawns of a process (the test binary's
# TestSpawnHelper, interleaved by mode), in microseconds. bwrap and
# command are bwrap's own (its setup, then the command and its exit);
# the rest is the library's share, which a regression shows in its part.
if [ "${PARTS:-20}" -gt 0 ]; then
	i=0
	while [ "$i" -lt "${PARTS:-20}" ]; do
		for m in off host proxy; do
			"$tmp/sandbox.test" -test.run '^TestSpawnHelper$' spawn-helper "phases-$m" "$base/ws" |
				sed "s/^/$m /" >>"$tmp/parts" || failed=1
		done
		i=$((i + 1))
	done
	echo "parts of a process's first NewCmd spawn, medians of ${PARTS:-20} (µs):"
	python3 - "$tmp/parts" <<'EOF'
import statistics, sys
parts, order = {}, []
for line in open(sys.argv[1]):
    mode, part, us = line.split()
    if part not in order:
        order.append(part)
    parts.setdefault(part, {}).setdefault(mode, []).append(float(us))
modes = ["off", "host", "proxy"]
print("%-8s" % "part" + "".join("%10s" % m for m in modes))
for part in order:
    print("%-8s" % part + "".join("%10.0f" % statistics.median(parts[part].get(m, [0])) for m in modes))
EOF
fi
if [ "$failed" = 1 ]; then
	echo "bench-network: some runs failed (above): these figures do not hold" >&2
	exit 1
fi
