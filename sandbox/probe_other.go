//go:build !linux && !darwin

package sandbox

import "runtime"

// hostProgram renders either wrapper here, and can run neither: there is no
// sandbox for this GOOS, so Required refuses to spawn.
func hostProgram(goos string, p *plan, check bool) (string, error) {
	return hostProgramWith(goos, p, nil, check)
}

// hostProgramWith is hostProgram; it takes the spawn's resolver only to
// match the Linux signature, which uses it for the PATH lookup.
func hostProgramWith(goos string, p *plan, _ *resolver, check bool) (string, error) {
	if check {
		return "", &unavailableError{reason: "no sandbox for GOOS " + runtime.GOOS, hint: optOut()}
	}
	if goos == "darwin" {
		return darwinProgram, nil
	}
	p.disableUserns = true
	return linuxProgram, nil
}
