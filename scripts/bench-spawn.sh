#!/bin/sh
# Times one sandboxed /bin/true per process, side by side with hyperfine:
#   raw bwrap            bwrap run directly with the argv `sandtable explain --json` prints
#   sandtable run        the CLI, whose spawn is the availability check (sandbox.NewCmd)
#   NewCmd (helper)      the sandbox package's test binary doing NewCmd + Run
#   Command (helper)     the same binary doing Command + Run: probe, then spawn
#   Go exec floor        a minimal static Go program that only runs the raw
#                        bwrap argv and waits: the least a Go front end that
#                        stays bwrap's parent (to map its exit status and
#                        pass signals on, as sandtable run does) can cost
#   Go exec-in-place     a minimal static Go program that replaces itself
#                        with the raw bwrap argv: the least any Go front end
#                        can cost, having given up both
#   empty Go program     Go's own start and exit
# and prints the medians and the ratios docs/performance.md sets
# targets for:
# sandtable run at most 1.2x raw bwrap, and what the check within the spawn saves
# against probe-then-spawn. With STRICT=1 it exits 1 when the 1.2x target
# is missed.
#
# Needs bwrap, hyperfine and jq (skipped without the last two). RUNS (default 300) and WARMUP (default 30)
# tune hyperfine. Run it on an otherwise idle machine.
set -eu

RUNS=${RUNS:-300}
WARMUP=${WARMUP:-30}
for tool in bwrap go; do
	command -v "$tool" >/dev/null || { echo "bench-spawn: $tool not found on PATH" >&2; exit 2; }
done
# hyperfine and jq are optional for `make bench`, which has already run the
# in-process benchmarks: without them this part is skipped, loudly (under
# STRICT=1 it fails instead).
for tool in hyperfine jq; do
	if ! command -v "$tool" >/dev/null; then
		echo "bench-spawn: skipped: $tool not found on PATH (apt-get install hyperfine jq)" >&2
		[ "${STRICT:-0}" != 1 ] || exit 2
		exit 0
	fi
done

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/explain-argv.sh"
tmp=$(mktemp -d)
# Outside /tmp, which is a private tmpfs inside the sandbox.
base=$(mktemp -d /var/tmp/sandtable-bench-spawn.XXXXXX)
trap 'rm -rf "$tmp" "$base"' EXIT

# Static, as released: with cgo, the net package (the network proxy) makes
# the binary dynamically linked, which costs every start about 1 ms here.
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/sandtable" ./cmd/sandtable && CGO_ENABLED=0 go test -c -o "$tmp/sandbox.test" ./sandbox)

# The floor: the same spawn from the smallest Go program that can make it,
# and Go's own start and exit.
mkdir "$tmp/empty"
mkdir "$tmp/inplace"
cat >"$tmp/inplace/main.go" <<'GO'
package main

import (
	"os"
	"syscall"
)

func main() {
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	panic(err)
}
GO
printf 'package main\n\nfunc main() {}\n' >"$tmp/empty/main.go"
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/floor.bin" ./scripts/floor)
for m in inplace empty; do
	printf 'module %s\n\ngo 1.22\n' "$m" >"$tmp/$m/go.mod"
	(cd "$tmp/$m" && CGO_ENABLED=0 GOFLAGS= go build -o "$tmp/$m.bin" .)
done

# An empty home, so the run is the same on every machine apart from the
# /run defaults; the descriptors the argv reads (the seccomp filter, and
# /dev/null for a hidden file) are handed to raw bwrap by redirection, so
# every command runs through sh, whose start hyperfine measures and
# subtracts.
mkdir "$base/home" "$base/ws"
export HOME="$base/home"
ws="$base/ws"
cd "$ws"
explain_argv default

hyperfine --warmup "$WARMUP" --runs "$RUNS" --export-json "$tmp/spawn.json" \
	-n "raw bwrap" "$raw" \
	-n "sandtable run" "$tmp/sandtable run -- /bin/true" \
	-n "NewCmd (helper)" "$tmp/sandbox.test -test.run ^TestSpawnHelper\$ spawn-helper newcmd $ws" \
	-n "Command (helper)" "$tmp/sandbox.test -test.run ^TestSpawnHelper\$ spawn-helper command $ws" \
	-n "Go exec floor" "FLOOR_FDS=$nfiles $tmp/floor.bin $raw" \
	-n "Go exec-in-place" "$tmp/inplace.bin $raw" \
	-n "empty Go program" "$tmp/empty.bin" \
	>"$tmp/hyperfine.out" 2>&1 || { cat "$tmp/hyperfine.out" >&2; exit 2; }

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), kernel $(uname -r)"
echo "versions: $(bwrap --version), $(go version | cut -d' ' -f3), $(hyperfine --version); $(date -u +%F)"
echo "hyperfine --warmup $WARMUP --runs $RUNS (through sh, its start subtracted), in $ws, HOME=$HOME"
echo
jq -r --argjson runs "$RUNS" '
	def ms: . * 1000 * 100 | round / 100;
	def med(n): .results[] | select(.command == n) | .median;
	(med("raw bwrap")) as $raw |
	(med("sandtable run")) as $run |
	(med("NewCmd (helper)")) as $new |
	(med("Command (helper)")) as $cmd |
	(med("Go exec floor")) as $floor |
	(med("Go exec-in-place")) as $inplace |
	"| spawn of /bin/true | median ms | mean ms | stddev ms |",
	"|---|---:|---:|---:|",
	(.results[] | "| \(.command) | \(.median | ms) | \(.mean | ms) | \(.stddev | ms) |"),
	"",
	"| ratio of medians | measured | target |",
	"|---|---:|---|",
	"| sandtable run / raw bwrap | \($run / $raw * 100 | round / 100) | <= 1.2 |",
	"| Command (probe, then spawn) / NewCmd, same binary | \($cmd / $new * 100 | round / 100) | (what the check within the spawn saves) |",
	"| sandtable run / Command (probe, then spawn) | \($run / $cmd * 100 | round / 100) | |",
	"| NewCmd (helper) / raw bwrap | \($new / $raw * 100 | round / 100) | |",
	"| Go exec floor / raw bwrap | \($floor / $raw * 100 | round / 100) | (no Go parent of bwrap does better) |",
	"| Go exec-in-place / raw bwrap | \($inplace / $raw * 100 | round / 100) | (no Go front end at all does better) |",
	"| sandtable run / Go exec floor | \($run / $floor * 100 | round / 100) | |"
' "$tmp/spawn.json"

if ! jq -e '
	(.results[] | select(.command == "sandtable run") | .median) <=
	1.2 * (.results[] | select(.command == "raw bwrap") | .median)
' "$tmp/spawn.json" >/dev/null; then
	echo "bench-spawn: sandtable run is more than 1.2x raw bwrap" >&2
	[ "${STRICT:-0}" != 1 ] || exit 1
fi
