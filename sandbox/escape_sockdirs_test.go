//go:build linux

package sandbox

import (
	"path/filepath"
)

// The host-socket attempts on a directory of many sockets, which
// hide-socket-dir rebuilds without them rather than mounting over each
// (docs/filesystem.md, "Host unix sockets"): a service's socket directory of 1000
// sockets, one of which serves the secret; a socket there that
// /proc/net/unix does not list (bound in another network namespace),
// which the rebuild hides too; and, documented, the directory's other
// entries, which it keeps. Each control drops the rebuilt directory's
// tmpfs (and its remount), so that the host's directory shows.
var sockDirAttempts = []*attempt{
	&attempt{
		name:  "host-socket-crowd",
		what:  "connect to one of 1000 sockets in a host service's socket directory (network host)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			dir := filepath.Join(e.serviceDir(), "s")
			e.escMkdir(e.t, dir, 0o755)
			e.listenCrowd(dir, crowdSockets)
			e.serveUnix(filepath.Join(dir, "service.sock"))
			e.requireSocketDir(dir)
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-socket-dir=" + e.socketDirOf(e.vars["SOCK"])) },
	},
	&attempt{
		name:  "host-socket-crowd-unlisted",
		what:  "connect to a socket that another network namespace bound in a host directory of many sockets: /proc/net/unix does not list it (network off)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			dir := filepath.Join(e.serviceDir(), "s")
			e.escMkdir(e.t, dir, 0o755)
			e.listenCrowd(dir, 64)
			e.serveUnixElsewhere(filepath.Join(dir, "other-netns.sock"))
			e.cfg.Network.Mode = NetworkOff
			e.requireSocketDir(dir)
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-socket-dir=" + e.socketDirOf(e.vars["SOCK"])) },
	},
	&attempt{
		name:       "host-socket-crowd-entries",
		what:       "read a file of a host directory of many sockets directly, through a symlink and in a subdirectory",
		needs:      []string{"python3"},
		documented: "a rebuilt socket directory keeps its other entries: files and directories bound again, symlinks made again (hide-socket-dir)",
		setup: func(e *escEnv) {
			dir := filepath.Join(e.serviceDir(), "s")
			e.escMkdir(e.t, dir, 0o755)
			e.listenCrowd(dir, 64)
			e.secretFile(filepath.Join(dir, "state"))
			e.escMkdir(e.t, filepath.Join(dir, "conf"), 0o755)
			e.file(filepath.Join(dir, "conf", "service.conf"), e.secret+"\n", 0o644)
			e.symlink("state", filepath.Join(dir, "current"))
			e.vars["D"] = dir
			e.requireSocketDir(dir)
		},
		// Each line carries the secret only if that entry is there.
		script: `cat "$D/state" "$D/current" "$D/conf/service.conf" | sort | uniq -c`,
		escaped: func(e *escEnv, r *escResult) bool {
			return containsLine(r.out, "3 "+e.secret)
		},
	},
}
