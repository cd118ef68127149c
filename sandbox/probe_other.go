//go:build !linux && !darwin

package sandbox

import "runtime"

// hostProgram renders either wrapper here, and can run neither: there is no
// sandbox for this GOOS, so Required refuses to spawn.
func hostProgram(goos string, p *plan, check bool) (string, error) {
	c := checkNone
	if check {
		c = checkWorks
	}
	return hostProgramWith(goos, p, nil, c)
}

// hostProgramWith is hostProgram; it takes the spawn's resolver only to
// match the Linux signature, which uses it for the PATH lookup.
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
