//go:build !linux

package proctree

import "time"

// Stop stops nothing off Linux.
func Stop(int, time.Duration) ([]int, error) { return nil, nil }

// Continue continues nothing off Linux.
func Continue([]int) {}
