//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
)

// Host sockets whose name in /proc/net/unix is no path in the caller's
// process (found by an attacker's review): bound by a relative name from
// the service's working directory, or through its descriptor of the
// directory (/proc/self/fd/N/NAME). hide-host-socket hides them where
// their holder's view of the name puts them (placeSockets); the
// services are the caller's own user's. A socket renamed after its bind,
// or its directory, stays reachable, as docs/filesystem.md, "Host unix sockets",
// says: the documented attempts keep that true. Each control is the same
// connect outside the sandbox.
var sockPlaceAttempts = []*attempt{
	&attempt{
		name:  "host-socket-relative-name",
		what:  "connect to a host service of the caller's user that bound its socket by a relative name (Go's net.Listen(\"unix\", \"x.sock\") from its directory), network proxy",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			dir := e.serviceDir()
			e.serveUnixAs(dir, "service.sock", false)
			e.cfg.Network.Mode = NetworkProxy
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	&attempt{
		name:  "host-socket-relative-name-forked",
		what:  "connect to a host service that bound a relative name and forked: the child serves from the directory, the parent, which holds the socket too and has the lower pid, moved to /; network off",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.serveUnixAs(e.serviceDir(), "service.sock", true)
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	&attempt{
		name:  "host-socket-procfd-name",
		what:  "connect to a host service of the caller's user that bound its socket through /proc/self/fd/N/ (the way around a long path; podman's conmon), network off",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			dir := e.serviceDir()
			e.serveUnixAs(dir, "/proc/self/fd/{dirfd}/service.sock", false)
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return outsideCtl() },
	},
	&attempt{
		name:       "host-socket-renamed",
		what:       "connect to a host service that bound a temporary name and renamed the socket into place, network proxy",
		documented: "a socket renamed after its bind is listed under its old name, which is gone (docs/filesystem.md, Host unix sockets)",
		needs:      []string{"python3"},
		setup: func(e *escEnv) {
			dir := e.serviceDir()
			tmp := filepath.Join(dir, "service.sock.tmp")
			e.serveUnix(tmp)
			sock := filepath.Join(dir, "service.sock")
			if err := os.Rename(tmp, sock); err != nil {
				e.t.Fatal(err)
			}
			e.vars["SOCK"] = sock
			e.cfg.Network.Mode = NetworkProxy
		},
		script: `"$PY" -c "$CONNECT_PY" "$SOCK"`,
	},
	&attempt{
		name:       "host-socket-renamed-dir",
		what:       "connect to a host service whose socket's directory was renamed after its bind, network off",
		documented: "a socket whose directory was renamed after its bind is listed under its old path, which is gone (docs/filesystem.md, Host unix sockets)",
		needs:      []string{"python3"},
		setup: func(e *escEnv) {
			dir := e.serviceDir()
			before := filepath.Join(dir, "before")
			e.escMkdir(e.t, before, 0o755)
			e.chown(e.t, before)
			e.serveUnix(filepath.Join(before, "service.sock"))
			after := filepath.Join(dir, "after")
			if err := os.Rename(before, after); err != nil {
				e.t.Fatal(err)
			}
			e.vars["SOCK"] = filepath.Join(after, "service.sock")
			e.cfg.Network.Mode = NetworkOff
		},
		script: `"$PY" -c "$CONNECT_PY" "$SOCK"`,
	},
}
