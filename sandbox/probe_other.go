//go:build !linux && !darwin

package sandbox

import "runtime"

// hostProgram renders either wrapper here, and can run neither: there is no
// sandbox for this GOOS, so Required refuses to spawn.
func hostProgram(goos string, p *plan, check bool) (string, error) {
	if check {
		return "", &unavailableError{reason: "no sandbox for GOOS " + runtime.GOOS, hint: optOut()}
	}
	if goos == "darwin" {
		return darwinProgram, nil
	}
	p.disableUserns = true
	return linuxProgram, nil
}
