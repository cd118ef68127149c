package sandbox

// markAllCloseOnExec reports false: macOS has no call that sets the flag on
// a range of descriptors, so closeStrayFDs lists them.
func markAllCloseOnExec() bool { return false }
