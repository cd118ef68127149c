//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The host-socket attempts: a service listening on a named unix socket
// outside the workspace (an ssh-agent, a database that trusts its peer's
// uid) that no default hides. The control drops the hide-host-socket step
// for that socket. The documented ones assert what keeps working: a
// granted socket, and the command's own sockets in /tmp and the workspace.
var socketAttempts = []*attempt{
	&attempt{
		name:  "host-socket",
		what:  "connect to a host service's unix socket outside the workspace (network host)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.serveUnix(filepath.Join(e.serviceDir(), "service.sock"))
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-host-socket=" + e.vars["SOCK"]) },
	},
	&attempt{
		name:  "host-socket-network-off",
		what:  "connect to a host service's unix socket with the network off",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.serveUnix(filepath.Join(e.serviceDir(), "service.sock"))
			e.cfg.Network.Mode = NetworkOff
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-host-socket=" + e.vars["SOCK"]) },
	},
	&attempt{
		name:  "host-socket-via-link",
		what:  "connect to a host socket bound through a symlinked directory, by the link's path",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			dir := e.serviceDir()
			real := e.mkdir(filepath.Join(dir, "real"))
			link := filepath.Join(dir, "link")
			if err := os.Symlink(real, link); err != nil {
				e.t.Fatal(err)
			}
			e.chown(e.t, link)
			e.serveUnix(filepath.Join(link, "service.sock"))
			e.vars["REAL"] = filepath.Join(real, "service.sock")
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-host-socket=" + e.vars["REAL"]) },
	},
	&attempt{
		name:  "host-socket-datagram",
		what:  "send a datagram to a host service's bound unix datagram socket (a journal, a notify socket)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			sock := filepath.Join(e.serviceDir(), "dgram.sock")
			got := serveDatagram(e, sock)
			e.vars["SOCK"] = sock
			e.vars["SEND_PY"] = sendDatagramPy
			datagrams.Store(e, got)
		},
		script: `"$PY" -c "$SEND_PY" "$SOCK"`,
		escaped: func(e *escEnv, r *escResult) bool {
			v, _ := datagrams.Load(e)
			got := v.(*atomic.Int32)
			// A liveness bound: a blocked send ends the wait at once.
			deadline := time.Now().Add(10 * time.Second)
			for got.Load() == 0 && time.Now().Before(deadline) && !strings.Contains(r.out, "sendto:") {
				time.Sleep(10 * time.Millisecond)
			}
			return got.Swap(0) > 0
		},
		control: func(e *escEnv) escMode { return dropRules("hide-host-socket=" + e.vars["SOCK"]) },
	},
	&attempt{
		name:       "host-socket-granted",
		what:       "connect to a host socket the caller grants (Config.Sockets), inside the default-hidden ~/.gnupg",
		needs:      []string{"python3"},
		documented: "a granted socket is the caller's choice (grant-socket)",
		setup: func(e *escEnv) {
			sock := filepath.Join(e.home, ".gnupg", "S.granted-"+e.u.label)
			e.serveUnix(sock)
			e.cfg.Sockets = []string{sock}
		},
		script: `"$PY" -c "$CONNECT_PY" "$SOCK"`,
	},
	&attempt{
		name:  "host-socket-var-tmp",
		what:  "connect to a host service's socket in the host's /var/tmp (a program run with TMPDIR=/var/tmp)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.serveUnix(e.hostTemp("/var/tmp")) // removed with it
		},
		script: `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		// The plan does not look at a socket there (var-tmp hides them
		// all), so var-tmp alone is what stands between.
		control: func(e *escEnv) escMode { return dropRules("var-tmp") },
	},
	&attempt{
		name:  "host-socket-shared-temp",
		what:  "connect to a host service's socket in a world-writable sticky directory, as under /var/tmp",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			sock := filepath.Join(sharedTempDir(e.t, e.out), "scratch.sock")
			if _, shared := searchable(&resolver{}, sock, socketIdentity()); !shared {
				e.t.Fatalf("%s is not under a world-writable sticky directory", sock)
			}
			e.serveUnix(sock)
		},
		script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
		control: func(e *escEnv) escMode { return dropRules("hide-host-socket=" + e.vars["SOCK"]) },
	},
	&attempt{
		name:       "own-socket-tmp",
		what:       "listen on a socket in /tmp and connect to it (a test suite's own server)",
		needs:      []string{"python3"},
		documented: "the command's own sockets in its private /tmp work",
		setup: func(e *escEnv) {
			e.secret = escToken(e.a.name)
			e.vars["SECRET"], e.vars["OWN_PY"] = e.secret, ownSocketPy
		},
		script: `"$PY" -c "$OWN_PY" /tmp/own.sock`,
	},
	&attempt{
		name:       "own-socket-workspace",
		what:       "listen on a socket in the workspace and connect to it",
		needs:      []string{"python3"},
		documented: "the command's own sockets in the workspace work",
		setup: func(e *escEnv) {
			e.secret = escToken(e.a.name)
			e.vars["SECRET"], e.vars["OWN_PY"] = e.secret, ownSocketPy
		},
		script: `rm -f "$WS/own.sock"; "$PY" -c "$OWN_PY" "$WS/own.sock"`,
	},
}
