//go:build linux

package sandbox

import (
	"fmt"
	"math/rand/v2"
)

// abstract-unix-host-command: in network mode host, Command's wrap helper
// starts bwrap from a thread in Landlock's abstract-unix-socket scope, as
// NewCmd does (TestNetworkHostAbstractScope), so the command cannot reach
// a host abstract socket. The control drops the helper's scope=abstract
// word: the same sandbox reaches it.
var wrapAttempts = []*attempt{{
	name:  "abstract-unix-host-command",
	what:  "reach a host abstract unix socket through Command in network mode host (the wrap helper's Landlock scope)",
	needs: []string{"python3"},
	setup: func(e *escEnv) {
		if landlockABI() < 6 {
			e.t.Skipf("Landlock ABI %d has no abstract-unix-socket scope (needs 6, Linux 6.12): mode host reaches the host's abstract sockets here", landlockABI())
		}
		e.cfg.Network = Network{Mode: NetworkHost}
		name := fmt.Sprintf("sandtable-escape-%x", rand.Uint64())
		e.serve("unix", "@"+name, nil)
		e.vars["SOCK"] = "@" + name // connectPy makes @ a leading NUL
	},
	script:  `"$PY" -c "$CONNECT_PY" "$SOCK"`,
	control: func(e *escEnv) escMode { return helperCtl(nil, []string{wrapHelperScope}) },
},
}
