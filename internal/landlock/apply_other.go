//go:build !linux

package landlock

import "fmt"

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Apply fails: Landlock is Linux's.
func (rs *Ruleset) Apply() error { return fmt.Errorf("landlock: apply: %w", ErrNoLandlock) }
