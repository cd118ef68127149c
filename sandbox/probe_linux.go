package sandbox

import (
	"os"
	"os/exec"
	"sync"
)

// hostProgram is hostProgramWith on a fresh resolver, for callers outside a
// spawn (tests, tools).
func hostProgram(goos string, p *plan, check bool) (string, error) {
	var r resolver
	return hostProgramWith(goos, p, &r, check)
}

// hostProgramWith finds the wrapper for goos on this machine and records what
// the plan needs to know about it. With check set it also proves, once per
// process and bwrap binary, that the wrapper can build a sandbox here.
func hostProgramWith(goos string, p *plan, r *resolver, check bool) (string, error) {
	if goos == "darwin" {
		return darwinProgram, nil // rendered here, never run here
	}
	prog, ok := findProgramWith(r, linuxProgram, writableRoots(p))
	if !ok {
		if check {
			return "", &unavailableError{
				reason: "bwrap not found on PATH (outside the workspace)",
				hint:   installHint(os.DirFS("/")),
			}
		}
		p.disableUserns = true // render for a current bwrap
		return linuxProgram, nil
	}
	h := bwrapHostFor(prog)
	p.disableUserns = h.knowsDisableUserns()
	if check {
		if err := h.works(p.workspace); err != nil {
			return "", err
		}
	}
	return prog, nil
}

// bwrapHost is what one bwrap binary can do on this machine. Each question
// costs an exec, so each is asked at most once per process.
type bwrapHost struct {
	prog string

	versionOnce   sync.Once
	disableUserns bool

	probeOnce sync.Once
	probeErr  error
}

var bwrapHosts sync.Map // resolved program path -> *bwrapHost

func bwrapHostFor(prog string) *bwrapHost {
	h, _ := bwrapHosts.LoadOrStore(prog, &bwrapHost{prog: prog})
	return h.(*bwrapHost)
}

// knowsDisableUserns reports whether this bwrap has --disable-userns
// (0.8.0+); an older one would reject the whole argv.
func (h *bwrapHost) knowsDisableUserns() bool {
	h.versionOnce.Do(func() {
		out, err := exec.Command(h.prog, "--version").Output()
		h.disableUserns = err == nil && versionAtLeast(string(out), 0, 8)
	})
	return h.disableUserns
}

// works runs `true` under the real argv shape, so a kernel that refuses
// unprivileged user namespaces, or a bwrap that rejects a flag, is caught
// with bwrap's own explanation before any real command is started.
func (h *bwrapHost) works(ws string) error {
	h.probeOnce.Do(func() {
		p := probePlan(ws)
		p.disableUserns = h.knowsDisableUserns()
		p.mounts = sortMounts(linuxMounts(p, nil))
		args := append(linuxArgs(p), "true")
		if failure, ok := runProbe(h.prog, args...); !ok {
			h.probeErr = &unavailableError{
				reason: h.prog + " cannot create a sandbox",
				hint:   probeHint(os.DirFS("/"), failure),
			}
		}
	})
	return h.probeErr
}
