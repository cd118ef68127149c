package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/sandtable/sandtable/sandbox"
)

// Exit statuses, as env(1) and timeout(1) use them, so that a caller can
// tell sandtable's own failures (2, 125) from the command's (126, 127, and
// everything the command returns itself).
const (
	exitUsage     = 2   // a bad flag, argument or path: nothing was spawned
	exitSetup     = 125 // the sandbox cannot be set up here
	exitCannotRun = 126 // CMD was found but cannot be executed
	exitNotFound  = 127 // CMD was not found
	exitSignal    = 128 // plus the number of the signal that killed CMD
)

// usageError is a mistake on the command line, reported as
// "sandtable CMD: ..." with exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries its own exit status, for CMD that cannot run.
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

// exitCode maps an error to the status sandtable exits with. A bad path,
// environment entry or limit is the caller's mistake like a bad flag;
// anything else that stops the sandbox
// from being set up, including an unreadable policy variable, is 125.
func exitCode(err error) int {
	var ee exitError
	var ue usageError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue), errors.Is(err, sandbox.ErrBadPath), errors.Is(err, sandbox.ErrBadEnv), errors.Is(err, sandbox.ErrBadLimit):
		return exitUsage
	}
	return exitSetup
}

// report prints err as one line on stderr and returns its exit status.
// Command-line mistakes are prefixed with the command ("sandtable run: "),
// so they read like the flag package's own errors; everything else with
// "sandtable: ".
func report(cmdName string, err error) int {
	code := exitCode(err)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "sandtable %s: %v (run 'sandtable %s --help' for usage)\n", cmdName, err, cmdName)
	case code == exitUsage:
		fmt.Fprintf(os.Stderr, "sandtable %s: %v\n", cmdName, err)
	default:
		fmt.Fprintf(os.Stderr, "sandtable: %v\n", err)
	}
	return code
}

// waitStatus is the shell's view of how a process ended: its exit status,
// or 128 plus the signal that killed it.
func waitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return exitSignal + int(ws.Signal())
	}
	return ps.ExitCode()
}
