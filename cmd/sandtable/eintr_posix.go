//go:build linux || darwin

package main

import (
	"errors"

	"golang.org/x/sys/unix"
)

// retryEINTR calls f until it fails with anything but EINTR. Some terminal
// ioctls (TIOCSETD waits for output to drain, then returns EINTR if any
// signal is pending, which SA_RESTART does not restart) are interrupted
// by the Go runtime's own signals; a restore that gave up on one would
// leave the caller's terminal broken.
func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
