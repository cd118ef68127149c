//go:build linux

package sandbox

import (
	"strings"
)

var ttyFlowAttempts = []*attempt{
	{
		name:    "tcxonc",
		what:    "stop output on the caller's terminal (tcflow TCOOFF): the caller's writes wait after the run",
		needs:   []string{"python3"},
		setup:   func(e *escEnv) { e.vars["FLOW_PY"] = ttyFlowPy },
		script:  `"$PY" -c "$FLOW_PY"`,
		run:     runPtyFlow,
		escaped: func(e *escEnv, r *escResult) bool { return !strings.Contains(r.out, "[output] flows\n") },
		control: func(e *escEnv) escMode { return dropSeccomp("refuse-tcxonc") },
	},
}
