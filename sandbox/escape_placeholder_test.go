//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The placeholder attack: two runs in one workspace at once. The first
// makes a placeholder for a missing protected path (.mcp.json); the
// second, started while it runs, finds an empty file there and binds it
// read-only as the user's. When the first ends and removes its
// placeholder, the kernel detaches the second's mount, and the second,
// spinning on creating the file, writes it on the host before its watch
// stops it: an .mcp.json the agent host runs later. The sandbox run goes
// through NewCmd, whose lock keeps the first run from removing a
// placeholder another run holds; the control runs the second as a plain
// exec.Cmd of the same argv, which takes no lock and watches nothing.

var placeholderAttempts = []*attempt{
	{
		name:  "placeholder-removed-by-other-run",
		what:  "write .mcp.json on the host when a concurrent run removes the placeholder this run bound (rule protect-placeholder)",
		needs: []string{"python3"},
		setup: func(e *escEnv) {
			e.secret = escToken("mcp-json")
			e.vars["PAYLOAD"] = e.secret
		},
		script: placeholderRacer,
		run:    func(e *escEnv, cmd *exec.Cmd) *escResult { return e.placeholderRace(cmd) },
		escaped: func(e *escEnv, r *escResult) bool {
			data, _ := os.ReadFile(filepath.Join(e.ws, ".mcp.json"))
			return strings.Contains(string(data), e.secret)
		},
		control: func(e *escEnv) escMode {
			return realArgvCtl("the racer as a plain exec.Cmd: no lock, so the other run removes the placeholder it bound")
		},
	},
}
