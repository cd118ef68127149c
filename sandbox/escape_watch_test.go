//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
)

// The watch section's attacks: the host replaces a hidden file by rename
// while a run is going on, as git credential-store, editors and useradd
// write their files. The kernel detaches the sandbox's mount from the
// replaced name, so without the watch the sandbox reads the new secret.
// The sandbox run goes through NewCmd (which watches); the control is the
// same argv run as a plain exec.Cmd, which watches nothing.

var watchAttempts = []*attempt{
	{
		name: "hidden-file-replaced",
		what: "read a hidden file's new contents after the host replaced it by rename during the run",
		setup: func(e *escEnv) {
			cred := e.file(filepath.Join(e.out, "git-credentials"), "OLD-SECRET\n", 0o600)
			e.cfg.Hidden = append(e.cfg.Hidden, cred)
			e.vars["CRED"] = cred
			e.secret = escToken("replaced-secret")
		},
		script: hostSwapScript,
		run: func(e *escEnv, cmd *exec.Cmd) *escResult {
			return e.hostSwap(cmd, func() {
				tmp := filepath.Join(e.out, ".git-credentials.tmp")
				e.file(tmp, e.secret+"\n", 0o600)
				if err := os.Rename(tmp, e.vars["CRED"]); err != nil {
					e.t.Fatal(err)
				}
			})
		},
		control: func(e *escEnv) escMode { return realArgvCtl("the same argv as a plain exec.Cmd: no watch") },
	},
	{
		name: "hidden-file-appears",
		what: "read a hidden path the host creates during the run (missing at the spawn)",
		setup: func(e *escEnv) {
			cred := filepath.Join(e.out, "git-credentials")
			e.cfg.Hidden = append(e.cfg.Hidden, cred)
			e.vars["CRED"] = cred
			e.secret = escToken("appeared-secret")
		},
		script: hostSwapScript,
		run: func(e *escEnv, cmd *exec.Cmd) *escResult {
			return e.hostSwap(cmd, func() {
				e.file(e.vars["CRED"], e.secret+"\n", 0o600)
			})
		},
		control: func(e *escEnv) escMode {
			os.Remove(e.vars["CRED"]) // the sandbox run's host change, undone
			return realArgvCtl("the same argv as a plain exec.Cmd: no watch")
		},
	},
	{
		name: "hidden-dir-gone-at-start",
		what: "read a hidden path the host creates during the run, whose directory existed when NewCmd planned and was gone when the run started",
		setup: func(e *escEnv) {
			dir := e.mkdir(filepath.Join(e.out, "gh"))
			cred := filepath.Join(dir, "hosts.yml")
			e.cfg.Hidden = append(e.cfg.Hidden, cred)
			e.vars["CRED"], e.vars["CREDDIR"] = cred, dir
			e.secret = escToken("recreated-secret")
		},
		script: hostSwapScript,
		run: func(e *escEnv, cmd *exec.Cmd) *escResult {
			gone := func() {
				if err := os.Remove(e.vars["CREDDIR"]); err != nil {
					e.t.Fatal(err)
				}
			}
			return e.hostSwapAt(cmd, gone, func() {
				e.mkdir(e.vars["CREDDIR"])
				e.file(e.vars["CRED"], e.secret+"\n", 0o600)
			})
		},
		control: func(e *escEnv) escMode {
			os.Remove(e.vars["CRED"]) // the sandbox run's host change, undone
			if _, err := os.Lstat(e.vars["CREDDIR"]); err != nil {
				e.mkdir(e.vars["CREDDIR"])
			}
			return realArgvCtl("the same argv as a plain exec.Cmd: no watch")
		},
	},
}
