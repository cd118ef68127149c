//go:build !linux && !darwin

package sandbox

import "runtime"

// hostProgramWith takes the spawn's resolver only to match the Linux
// signature, which uses it for the PATH lookup.
func hostProgramWith(goos string, p *plan, _ *resolver, check hostCheck) (string, error) {
	if check != checkNone {
		return "", &unavailableError{reason: "no sandbox for GOOS " + runtime.GOOS, hint: optOut()}
	}
	if goos == "darwin" {
		return darwinProgram, nil
	}
	p.disableUserns = true
	return linuxProgram, nil
}
