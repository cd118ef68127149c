//go:build !linux

package sandbox

// landlockPrefix is Linux's: the reduced backend's argv names this
// machine's protected paths and helper, so it is rendered on Linux only.
func landlockPrefix(cfg Config, p *plan, check hostCheck, asIs bool) (Wrap, error) {
	return Wrap{}, &unavailableError{reason: "the reduced backend (landlock) is rendered on Linux only"}
}
