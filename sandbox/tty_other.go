//go:build !darwin

package sandbox

// ownTerminals is macOS's: only its profile names the terminal.
func ownTerminals() []pathFact { return nil }
