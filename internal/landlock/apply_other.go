//go:build !linux

package landlock

import "fmt"

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Apply fails: Landlock is Linux's.
func (rs *Ruleset) Apply() error { return fmt.Errorf("landlock: apply: %w", ErrNoLandlock) }

// Prepared is Linux's.
type Prepared struct{}

// Prepare fails: Landlock is Linux's.
func (rs *Ruleset) Prepare() (*Prepared, error) {
	return nil, fmt.Errorf("landlock: apply: %w", ErrNoLandlock)
}

// Restrict fails: Landlock is Linux's.
func (p *Prepared) Restrict() error { return fmt.Errorf("landlock: apply: %w", ErrNoLandlock) }
