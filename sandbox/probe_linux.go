package sandbox

import (
	"os"
	"strings"
	"sync"
)

// hostProgramWith finds the wrapper for goos on this machine and returns
// what the build needs to know about it. Under checkFound bwrap must exist; under
// checkWorks it must also have proved, once per process and bwrap binary,
// that it can build a sandbox here (by a probe, or by a NewCmd spawn that
// succeeded).
func hostProgramWith(goos string, p *plan, r *resolver, check hostCheck) (string, hostFacts, error) {
	if goos == "darwin" {
		return darwinProgram, hostFacts{}, nil // rendered here, never run here
	}
	prog, ok := findProgramWith(r, linuxProgram, p.roots)
	if !ok {
		if check != checkNone {
			return "", hostFacts{}, &unavailableError{
				reason: "bwrap not found on PATH (outside the workspace)",
				hint:   installHint(os.DirFS("/")),
			}
		}
		return linuxProgram, hostFacts{disableUserns: true}, nil // render for a current bwrap
	}
	h := bwrapHostFor(prog)
	if check == checkWorks {
		if err := h.works(p.workspace); err != nil {
			return "", hostFacts{}, err
		}
	}
	// After the probe, which may have learnt that this bwrap is too old.
	return prog, hostFacts{disableUserns: h.knowsDisableUserns()}, nil
}

// support is what this process knows about one bwrap option.
type support uint8

const (
	supportUnknown support = iota // assumed present until bwrap says otherwise
	supportYes
	supportNo
)

// bwrapHost is what one bwrap binary can do on this machine. Nothing is
// asked up front: an option is assumed until bwrap rejects it (it does so
// before creating anything, so a retry without it is safe), and the sandbox
// is assumed to work until a spawn or a probe shows it does not.
type bwrapHost struct {
	prog string

	mu            sync.Mutex
	disableUserns support // --disable-userns (0.8.0+)
	statusFD      support // --json-status-fd (0.3.2+)
	proven        bool    // a probe or a folded spawn ran a command in a sandbox
	probeErr      error   // the probe's verdict, kept for the life of the process

	probing sync.Mutex // one probe at a time
}

var bwrapHosts sync.Map // resolved program path -> *bwrapHost

func bwrapHostFor(prog string) *bwrapHost {
	h, _ := bwrapHosts.LoadOrStore(prog, &bwrapHost{prog: prog})
	return h.(*bwrapHost)
}

// knowsDisableUserns reports whether to pass --disable-userns: yes unless
// this bwrap has rejected it. Learning it costs no exec on the common path;
// an old bwrap costs one rejected exec, once per process.
func (h *bwrapHost) knowsDisableUserns() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.disableUserns != supportNo
}

func (h *bwrapHost) support() (disableUserns, statusFD support) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.disableUserns, h.statusFD
}

// learn records what bwrap's stderr says about the options it was given:
// rejecting one with "Unknown option" is the only failure that needs a
// retry. It reports whether it learnt something that makes a retry worth it.
func (h *bwrapHost) learn(stderr string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case strings.Contains(stderr, "bwrap: Unknown option --json-status-fd"):
		// 0.3.2 added it, long before 0.8.0 added --disable-userns.
		h.statusFD, h.disableUserns = supportNo, supportNo
		return true
	case strings.Contains(stderr, "bwrap: Unknown option --disable-userns") && h.disableUserns != supportNo:
		h.disableUserns = supportNo
		return true
	}
	return false
}

// accepted records that bwrap parsed an argv with these options and went on
// to create the sandbox.
func (h *bwrapHost) accepted(disableUserns, statusFD bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if disableUserns {
		h.disableUserns = supportYes
	}
	if statusFD {
		h.statusFD = supportYes
	}
}

// markWorking records that a command ran inside a sandbox this bwrap built,
// so a later Prefix or Command skips the probe.
func (h *bwrapHost) markWorking() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.proven, h.probeErr = true, nil
}

// verdict is the probe's cached answer: whether one was reached, and what.
func (h *bwrapHost) verdict() (known bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.proven || h.probeErr != nil, h.probeErr
}

// works runs `true` under the real argv shape, so a kernel that refuses
// unprivileged user namespaces, or a bwrap that rejects a flag, is caught
// with bwrap's own explanation before any real command is started. It is
// the cost Command and Prefix pay once per process; a NewCmd spawn that
// succeeded answers it for free.
func (h *bwrapHost) works(ws string) error {
	if known, err := h.verdict(); known {
		return err
	}
	h.probing.Lock()
	defer h.probing.Unlock()
	if known, err := h.verdict(); known {
		return err
	}
	for {
		p := probePlan(ws)
		p.mounts = sortMounts(linuxMounts(p, nil))
		hf := hostFacts{disableUserns: h.knowsDisableUserns()}
		fds, owned, err := openFiles(wrapFiles(p))
		if err != nil {
			return err // this spawn's trouble, not a verdict on bwrap
		}
		failure, ok := runProbe(h.prog, fds, append(linuxArgs(p.with(hf)), "true")...)
		closeAll(owned)
		if ok {
			h.accepted(hf.disableUserns, false)
			h.markWorking()
			return nil
		}
		if hf.disableUserns && h.learn(failure) {
			continue // an old bwrap: once more without --disable-userns
		}
		err = &unavailableError{
			reason: h.prog + " cannot create a sandbox",
			hint:   probeHint(os.DirFS("/"), failure),
		}
		h.mu.Lock()
		h.probeErr = err
		h.mu.Unlock()
		return err
	}
}
