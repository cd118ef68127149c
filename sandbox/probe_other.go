//go:build !linux && !darwin

package sandbox

import "runtime"

// hostProgramWith takes the spawn's resolver only to match the Linux
// signature, which uses it for the PATH lookup.
func hostProgramWith(goos string, p *plan, _ *resolver, check hostCheck) (string, hostFacts, error) {
	if check != checkNone {
		return "", hostFacts{}, &unavailableError{reason: "no sandbox for GOOS " + runtime.GOOS, hint: optOut()}
	}
	if goos == "darwin" {
		return darwinProgram, hostFacts{}, nil
	}
	return linuxProgram, hostFacts{disableUserns: true}, nil
}
