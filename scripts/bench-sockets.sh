#!/bin/sh
# Times `sandtable run -- /bin/true` (the default mode) on a host with
# SOCKETS (default 1000) listening unix sockets against the same host
# without them, interleaved (scripts/bench-interleaved.py), and prints the
# medians and the ratio (target: within 1.2x; docs/filesystem.md, "Host unix sockets").
#
# The sockets lie where services and agents keep theirs: under /run (a
# service's socket directory, a directory that also holds files, one
# directory per service) and in the world-writable /var/tmp (directly, as
# a program with TMPDIR=/var/tmp makes them, and one directory per agent),
# /tmp and /dev/shm. A holder process keeps them listening in a network
# namespace of their own (/proc/net/unix is a namespace's list), so that
# the spawns of anything else on the machine do not list them; the timed
# spawns enter that namespace, or an empty one for "without": both go
# through nsenter. Everything made is removed on exit.
#
# LAYOUT=grouped puts them in directories of sockets alone instead (a
# service's under /run, an agent's under /var/tmp, /tmp, /dev/shm).
#
# Needs root (the namespaces, /run), python3, go and nsenter. RUNS
# (default 30) rounds. AS=USER runs the spawns as that user (its home and
# workspace are made for it). BASE=REV also times that revision's build in
# the same rounds.
set -eu

RUNS=${RUNS:-30}
SOCKETS=${SOCKETS:-1000}
for tool in go python3 nsenter unshare; do
	command -v "$tool" >/dev/null || { echo "bench-sockets: $tool not found on PATH" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-sockets: needs root (network namespaces, /run)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
base=$(mktemp -d /var/tmp/sandtable-bench-sock-ws.XXXXXX)
tag=sandtable-bench-sock.$$
ns=/run/$tag-ns
holder=
cleanup() {
	set +e
	if [ -n "$holder" ]; then
		kill "$holder"
		wait "$holder"
	fi
	for n in with without; do
		umount "$ns/$n"
	done
	umount "$ns"
	rm -rf "$ns" "$tmp" "$base" "/run/$tag" "/var/tmp/$tag" "/tmp/$tag" "/dev/shm/$tag"
	rm -f /var/tmp/"$tag"-*.sock
} 2>/dev/null
trap cleanup EXIT
trap 'exit 130' INT TERM

(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/sandtable" ./cmd/sandtable)
if [ -n "${BASE:-}" ]; then
	mkdir "$tmp/base"
	git -C "$root" archive "$BASE" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/sandtable-base" ./cmd/sandtable)
fi
chmod 755 "$tmp" "$base"

mkdir -p "$ns" "$base/home" "$base/ws"
mount --bind "$ns" "$ns"
mount --make-private "$ns"
for n in with without; do
	touch "$ns/$n"
	unshare --net="$ns/$n" true
done

cat >"$tmp/hold.py" <<'EOF'
import os, resource, signal, socket, sys
tag, total = sys.argv[1], int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, total + 256), hard))
def d(p):
    os.makedirs(p, exist_ok=True)
    os.chmod(p, 0o755)
    return p
def f(p, text="x\n"):
    with open(p, "w") as w:
        w.write(text)
run, vt = d("/run/" + tag), d("/var/tmp/" + tag)
# a directory that holds more than sockets
for i in range(5):
    f(f"{run}/state-{i}")
os.symlink("state-0", f"{run}/current")
f(d(f"{run}/conf") + "/service.conf")
# Shares of the total: (directory maker, sockets).
plan = [
    (lambda i: d(f"{run}/s"), 0.40),            # a service's socket directory
    (lambda i: run, 0.10),                      # beside the files
    (lambda i: d(f"{run}/svc-{i}"), 0.10),      # one directory per service
    (lambda i: "/var/tmp", 0.10),               # directly in /var/tmp
    (lambda i: d(f"{vt}/agent-{i // 2}"), 0.10),  # one per agent, two each
    (lambda i: d("/tmp/" + tag), 0.10),
    (lambda i: d("/dev/shm/" + tag), 0.10),
]
if sys.argv[4] == "grouped":  # each in a directory of sockets only
    plan = [
        (lambda i: d(f"{run}/s"), 0.50),
        (lambda i: d(f"{vt}/s"), 0.30),
        (lambda i: d("/tmp/" + tag), 0.10),
        (lambda i: d("/dev/shm/" + tag), 0.10),
    ]
socks, n = [], 0
for k, (where, share) in enumerate(plan):
    count = round(total * share) if k < len(plan) - 1 else total - n
    for i in range(count):
        dirname = where(i)
        name = f"{tag}-{i}.sock" if dirname == "/var/tmp" else f"s{k}-{i}.sock"
        s = socket.socket(socket.AF_UNIX)
        s.bind(f"{dirname}/{name}")
        os.chmod(f"{dirname}/{name}", 0o777)
        s.listen(1)
        socks.append(s)
    n += count
with open(sys.argv[3], "w") as w:
    w.write(f"{len(socks)}\n")
signal.pause()
EOF
nsenter --net="$ns/with" python3 "$tmp/hold.py" "$tag" "$SOCKETS" "$tmp/ready" "${LAYOUT:-mixed}" &
holder=$!
i=0
until [ -s "$tmp/ready" ]; do
	i=$((i + 1))
	[ "$i" -lt 600 ] || { echo "bench-sockets: the sockets' holder did not start" >&2; exit 1; }
	kill -0 "$holder" 2>/dev/null || { echo "bench-sockets: the sockets' holder failed" >&2; exit 1; }
	sleep 0.1
done

who=""
if [ -n "${AS:-}" ]; then
	chown -R "$AS" "$base"
	who="-S $(id -u "$AS") -G $(id -g "$AS")"
fi
spawn() { # spawn NETNS BINARY: a timed command, as bench-interleaved.py splits it
	echo "nsenter --net=$ns/$1 $who env HOME=$base/home $2 run -- /bin/true"
}
cd "$base/ws"
echo "machine: $(nproc) cores, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); $(bwrap --version); $(date -u +%F)"
echo "$(tr -d '\n' <"$tmp/ready") sockets listening in the namespace \"with\", layout ${LAYOUT:-mixed}; as ${AS:-root}; medians of $RUNS interleaved rounds; ratios to the first line"
words() { # words NETNS BINARY: the length of bwrap's argv there
	nsenter --net="$ns/$1" $who env HOME="$base/home" "$2" explain --json -- /bin/true |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)["args"]))'
}
echo "bwrap's argv: $(words without "$tmp/sandtable") words without the sockets, $(words with "$tmp/sandtable") with them"
set -- "$(spawn without "$tmp/sandtable")" "$(spawn with "$tmp/sandtable")"
if [ -n "${BASE:-}" ]; then
	set -- "$@" "$(spawn without "$tmp/sandtable-base")" "$(spawn with "$tmp/sandtable-base")"
fi
python3 "$root/scripts/bench-interleaved.py" "$RUNS" "$@"
