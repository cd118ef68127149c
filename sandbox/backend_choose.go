package sandbox

import (
	"errors"
	"fmt"
)

// chooseBackend resolves cfg.Backend for a spawn of plan p for goos:
// bwrap's program and facts, or landlock, the reduced backend. Auto takes
// bwrap where its probe builds a sandbox here (and always when only
// rendering), else the reduced backend where it can run; when neither
// can, the error is bwrap's, with the reduced backend's reason after it.
func chooseBackend(goos string, cfg Config, p *plan, r *resolver, check hostCheck) (prog string, hf hostFacts, landlock bool, err error) {
	b, err := cfg.Backend.resolve()
	if err != nil {
		return "", hostFacts{}, false, err
	}
	switch {
	case goos == "darwin" && b == BackendLandlock:
		return "", hostFacts{}, false, fmt.Errorf("sandbox: backend landlock: the reduced backend is Linux's (macOS has Seatbelt only): %w", ErrBadPolicy)
	case goos == "darwin" || b == BackendBwrap:
		prog, hf, err = hostProgramWith(goos, p, r, check)
		return prog, hf, false, err
	case b == BackendLandlock:
		return "", hostFacts{}, true, nil
	}
	// Auto.
	if check == checkNone {
		prog, hf, err = hostProgramWith(goos, p, r, check)
		return prog, hf, false, err
	}
	prog, hf, err = hostProgramWith(goos, p, r, checkWorks)
	if err == nil || !errors.Is(err, ErrUnavailable) {
		return prog, hf, false, err
	}
	if lerr := landlockUsable(landlockMode(p)); lerr != nil {
		return "", hostFacts{}, false, &unavailableError{reason: err.Error() + "; and " + lerr.Error()}
	}
	return "", hostFacts{}, true, nil
}

// landlockMode is p's network mode.
func landlockMode(p *plan) NetworkMode {
	switch {
	case p.netProxy:
		return NetworkProxy
	case p.netHost:
		return NetworkHost
	}
	return NetworkOff
}
