//go:build !linux && !darwin

package sandbox

// closeStrayFDs has nothing to do where there is no sandbox to spawn.
func closeStrayFDs() error { return nil }
