package main

import (
	"slices"

	"github.com/sandtable/sandtable/sandbox"
)

// explainPrefix is the wrapper for goos and, when withRules asks for
// them, the steps that explain it. Each is built from the host's unix
// sockets as listed at that moment (hide-host-socket), so one that came
// or went in between would make the steps and the argv disagree: on
// Linux they are built again, up to five times, until they agree.
func explainPrefix(goos string, cfg sandbox.Config, withRules, asJSON bool) (sandbox.Wrap, []sandbox.Step, error) {
	for try := 0; ; try++ {
		wrap, err := sandbox.PrefixFor(goos, cfg)
		if err != nil || !withRules || wrap.Program == "" && !asJSON {
			return wrap, nil, err
		}
		steps, err := sandbox.Explain(goos, cfg)
		if err != nil {
			return sandbox.Wrap{}, nil, err
		}
		if goos != "linux" || wrap.Program == "" || try == 4 || slices.Equal(flatSteps(steps), wrap.Args) {
			return wrap, steps, nil
		}
	}
}

func flatSteps(steps []sandbox.Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Args...)
	}
	return out
}
