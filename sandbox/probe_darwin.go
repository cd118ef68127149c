package sandbox

import "sync"

// hostProgramWith returns the wrapper for goos. With a check it proves,
// once per process, that sandbox-exec applies a (deny default) profile
// here: deprecated or not, the question is whether it enforces, not which
// macOS version this is. The resolver is unused; the Linux version needs
// it for the PATH lookup.
func hostProgramWith(goos string, p *plan, _ *resolver, check hostCheck) (string, error) {
	if goos == "linux" {
		p.disableUserns = true // rendered here, never run here
		return linuxProgram, nil
	}
	if check != checkNone {
		if err := seatbeltWorks(p.workspace); err != nil {
			return "", err
		}
	}
	return darwinProgram, nil
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
