//go:build !linux

package sandbox

// LimitReport says which limits this machine enforces: none, on macOS,
// whose sandbox has no private /tmp to bound and no moment to apply the
// others; a value set for them is refused.
func LimitReport() []string {
	return []string{"none of the limits applies here: a value set for processes, memory or cpu-time is refused"}
}
