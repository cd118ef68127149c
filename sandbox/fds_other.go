//go:build !linux

package sandbox

// closeStrayFDs does nothing outside Linux: it reads /proc/self/fd, which
// macOS lacks. A descriptor this process inherited without close-on-exec
// still reaches a child under sandbox-exec, as it would without a sandbox.
func closeStrayFDs() error { return nil }
