//go:build !linux && !darwin

package main

import "os"

// stopSignals: no job control here.
var stopSignals []os.Signal

func stopSelf() {}

func foreground([]savedTerminal) bool { return true }
