package sandbox

import "sync"

// hostProgramWith returns the wrapper for goos. With a check it proves,
// once per process, that sandbox-exec applies a (deny default) profile
// here: deprecated or not, the question is whether it enforces, not which
// macOS version this is. The resolver is unused; the Linux version needs
// it for the PATH lookup.
func hostProgramWith(goos string, p *plan, _ *resolver, check hostCheck) (string, hostFacts, error) {
	if goos == "linux" {
		return linuxProgram, hostFacts{disableUserns: true}, nil // rendered here, never run here
	}
	if check != checkNone {
		if err := seatbeltWorks(p.workspace); err != nil {
			return "", hostFacts{}, err
		}
	}
	return darwinProgram, hostFacts{}, nil
}

var seatbelt struct {
	once sync.Once
	err  error
}

func seatbeltWorks(ws string) error {
	seatbelt.once.Do(func() {
		if _, err := lstat(darwinProgram); err != nil {
			seatbelt.err = &unavailableError{reason: darwinProgram + " not found", hint: optOut()}
			return
		}
		if failure, ok := runProbe(darwinProgram, nil, append(darwinArgs(darwinProfile(probePlan(ws))), "/usr/bin/true")...); !ok {
			seatbelt.err = &unavailableError{reason: "sandbox-exec cannot apply a profile", hint: failure + "; " + optOut()}
		}
	})
	return seatbelt.err
}
