//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

	"github.com/sandtable/sandtable/internal/landlock"
	"github.com/sandtable/sandtable/internal/seccomp"
)

// The reduced backend's wrapper: the helper's argv (this program,
// re-executed as the landlock helper) with the planned ruleset and the two
// seccomp filters behind its descriptors. prefix takes it instead of
// bwrap's when the backend resolves to landlock.

// landlockHelperArg marks the landlock helper, as os.Args[1].
const landlockHelperArg = "-sandtable-landlock-helper"

// The helper's words, before its "--". The network mode's lists and
// refused= are the wrap helper's (wraphelper.go), and so are stdio=as-is and
// protect=.
const (
	llWordRuleset   = "ruleset="   // the descriptor of the encoded ruleset
	llWordSeccomp   = "seccomp="   // a seccomp filter to load, in order
	llWordNetwork   = "network="   // proxy, off or host
	llWordWorkspace = "workspace=" // the command's working directory
	llWordRoot      = "root="      // a writable root, for the protected paths' watch
	llWordInteract  = "interactive"
	llWordNproc     = "nproc="    // RLIMIT_NPROC for the command
	llWordDetect    = "detect"    // protect the protected= paths by detection
	llWordRedirect  = "redirect=" // ENV:FD: a redacted copy for the run's TMPDIR
)

// redirectedCopy is the redacted copy p holds of the file of redact row
// id, found at the path the row names under $HOME (or its variable's),
// resolved as the plan resolved it.
func redirectedCopy(p *plan, id string) ([]byte, bool) {
	for _, rf := range redactFiles {
		if rf.id != id {
			continue
		}
		home, _ := os.UserHomeDir()
		path := redactPath(rf, home)
		if path == "" {
			return nil, false
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, false
		}
		for i, f := range p.redacted {
			if f.path == real && i < len(p.redactData) && p.redactData[i] != nil {
				return p.redactData[i], true
			}
		}
	}
	return nil, false
}

// landlockRefuse is the configuration the reduced backend cannot enforce:
// one error naming what and the row that says so.
func landlockRefuse(cfg Config, p *plan) error {
	bad := func(what, rule string) error {
		return &unavailableError{
			reason: "the reduced backend (landlock) cannot enforce " + what + " (rule " + rule + ", its landlock column)",
			hint:   "use the bwrap backend where user namespaces can be made, or leave it out",
		}
	}
	switch l := cfg.Limits; {
	case len(p.socketGrants) > 0:
		return bad("Config.Sockets: no unix socket can be made", "grant-socket")
	case l.TmpSize != 0:
		return bad("Limits.TmpSize: there is no private tmpfs", "limit-tmp")
	case l.ShmSize != 0:
		return bad("Limits.ShmSize: there is no private tmpfs", "limit-shm")
	case l.Processes != 0:
		return bad("Limits.Processes: RLIMIT_NPROC counts every process of the caller", "limit-processes")
	case l.Memory != 0:
		return bad("Limits.Memory: there is no cgroup", "limit-memory")
	case l.CPUTime != 0:
		return bad("Limits.CPUTime: RLIMIT_CPU cannot be set on the command alone before it runs", "limit-cpu-time")
	}
	return nil
}

// landlockPrefix is the wrapper for plan p under the reduced backend.
// asIs: the caller has applied the stdio rows itself (NewCmd).
func landlockPrefix(cfg Config, p *plan, check hostCheck, asIs bool) (Wrap, error) {
	mode := landlockMode(p)
	if err := landlockRefuse(cfg, p); err != nil {
		return Wrap{}, err
	}
	abi := landlock.ABI()
	if check != checkNone {
		if err := landlockUsable(mode); err != nil {
			return Wrap{}, err
		}
	} else if abi < 1 {
		abi = 7 // rendered for a current kernel
	}
	ro := cfg.LandlockProtectReadOnly
	rs, err := planLandlock(p, mode, abi, ro)
	if err != nil {
		return Wrap{}, err
	}
	w := Wrap{Program: wrapHelperExe, Env: append(tableEnv(p), wrapHelperParent()), Backend: BackendLandlock, Reduced: Reduced(abi)}
	args := []string{landlockHelperArg}
	add := func(word string, data []byte) {
		args = append(args, word+strconv.Itoa(3+len(w.Files)))
		w.Files = append(w.Files, WrapFile{Data: data})
	}
	add(llWordRuleset, rs.Marshal())
	second := landlockSeccomp()
	if len(landlockDropRows) > 0 {
		second = seccomp.ReducedFilter(runtime.GOARCH, slices.DeleteFunc(slices.Clone(landlockSeccompRows[:]), func(r seccomp.ReducedRow) bool { return landlockDropRows[r.Rule] }))
	}
	for _, f := range [][]byte{nativeSeccomp(), second} {
		if f != nil {
			add(llWordSeccomp, f)
		}
	}
	for _, r := range landlockRedirects {
		if data, ok := redirectedCopy(p, r.redact); ok {
			add(llWordRedirect+r.env+":", data)
		}
	}
	args = append(args, llWordNetwork+mode.String(), llWordWorkspace+p.workspace)
	if mode == NetworkProxy {
		for _, a := range p.net.Allow {
			args = append(args, "allow="+a)
		}
		for _, a := range p.net.Private {
			args = append(args, "private="+a)
		}
		switch {
		case p.net.conns > 0:
			args = append(args, wrapHelperConns+strconv.Itoa(p.net.conns))
		case p.net.conns < 0:
			args = append(args, wrapHelperConns+"none")
		}
	}
	for _, f := range p.write {
		args = append(args, llWordRoot+f.path)
	}
	if p.interactive {
		args = append(args, llWordInteract)
	}
	if asIs {
		args = append(args, wrapHelperStdioAsIs)
	}
	if n := p.run.procs; n > 0 {
		// The helper sets it only where it runs as a user that is not
		// root: uid 0 is exempt.
		args = append(args, llWordNproc+strconv.FormatUint(n, 10))
	}
	if len(p.protected) > 0 && !ro && landlockProtectDefault == "detect" {
		args = append(args, llWordDetect)
		args = append(args, protectPathWords(p)...)
	}
	w.Args = append(args, "--")
	return w, nil
}
