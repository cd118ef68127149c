package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// checkHelperLine checks the words a program passed to RunNetworkHelper,
// after the marker: before "--" only those NetworkHelperArgv renders (mode
// proxy's allow=, private= and connections=), and after it the bwrap that
// Prefix and explain resolve, by the same path: found on PATH outside what
// the argv's own binds make writable. So a program that serves explain's
// line (sandtable) runs nothing else outside the sandbox: not another
// mode's words, not another program, not another file called bwrap.
func checkHelperLine(args []string) error {
	i := slices.Index(args, "--")
	for _, a := range args[:max(i, 0)] {
		if !strings.HasPrefix(a, "allow=") && !strings.HasPrefix(a, "private=") && !strings.HasPrefix(a, wrapHelperConns) {
			return fmt.Errorf("argument %q is not one explain's line holds (want allow=, private= or %s, the proxy's lists): %w", a, wrapHelperConns, ErrBadPolicy)
		}
	}
	if i < 0 || i+1 >= len(args) {
		return fmt.Errorf("no program after -- (want %s, as explain prints it): %w", linuxProgram, ErrBadPolicy)
	}
	prog := args[i+1]
	want, ok := findProgram(linuxProgram, bindSources(args[i+2:]))
	if !ok {
		return fmt.Errorf("program %q: no %s on PATH outside the sandbox's writable paths: %w", prog, linuxProgram, ErrUnavailable)
	}
	if prog != want {
		return fmt.Errorf("program %q is not %s as explain resolves it (%s): the helper runs only the sandbox: %w", prog, linuxProgram, want, ErrBadPolicy)
	}
	return nil
}

// bindSources are the host paths a bwrap argv binds and does not make
// read-only (the vocabulary's shown mounts but --ro-*): the roots a
// planted bwrap could lie in. A descriptor's number, the source of the
// -data and --file flags, is no path and matches none.
func bindSources(bwrapArgs []string) []string {
	var out []string
	for j := 0; j+2 < len(bwrapArgs); j++ {
		a := bwrapArgs[j]
		switch {
		case bwrapModifier(a) > 0:
			j += bwrapModifier(a)
		case bwrapMount(a) == mountShown && !strings.HasPrefix(a, "--ro-"):
			out = append(out, bwrapArgs[j+1])
			j += 2
		}
	}
	return out
}
