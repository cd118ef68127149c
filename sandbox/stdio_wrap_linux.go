package sandbox

import (
	"fmt"
	"os"
	"os/exec"
)

// wrapHelperStdioAsIs, among the wrap helper's words before its --, passes the
// helper's standard streams to bwrap as they are, without the stdio rows:
// for a caller that hands one over deliberately.
const wrapHelperStdioAsIs = "stdio=as-is"

// wrapStdio gives run, the wrap helper's bwrap, the helper's own standard
// streams after the table's stdio rules, as NewCmd's Start does: a pipe,
// FIFO, socket, file or device behind descriptor 0, 1 or 2 reaches bwrap
// through a pipe of the helper's own, which exec.Cmd copies; a terminal or
// /dev/null as it is. The copy into stdin ends with the caller's stream,
// closing the command's end, or as soon as the command has no reader left.
func wrapStdio(run *exec.Cmd, asIs bool) error {
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, os.Stdout, os.Stderr
	if asIs {
		return nil
	}
	g, err := guardStreams(os.Stdin, os.Stdout, os.Stderr, nil, nil)
	if err != nil {
		return fmt.Errorf("standard streams: %w", err)
	}
	run.Stdin, run.Stdout, run.Stderr = g.stdin, g.stdout, g.stderr
	return nil
}
