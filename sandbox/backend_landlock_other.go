//go:build !linux

package sandbox

import "os/exec"

// landlockNewCmd and landlockCommand are Linux's: elsewhere the reduced
// backend is refused before a Cmd is made (landlockPrefix).
func landlockNewCmd(*Cmd, *plan) error       { return nil }
func landlockCommand(*exec.Cmd, *plan) error { return nil }
