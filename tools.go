//go:build tools

// Package tools pins the versions of the developer tools the Makefile runs,
// so `make lint` uses the same staticcheck on every machine.
package tools

import (
	_ "honnef.co/go/tools/cmd/staticcheck"
)
