package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/sandtable/sandtable/sandbox"
)

var rulesHelp = helpText{
	synopsis: "rules [--os linux|darwin|any]",
	description: `Print the rule table compiled into this binary, one rule per line: the
platform, the id, the condition under which it applies (for: one emission
per path of that kind; when: the facts it needs) and why it exists.
"any" rules (the stripped environment and the default hidden set) apply on
every platform. rules/*.yaml is the source; docs/POLICY.md has the rest.`,
	example: `  sandtable rules --os linux
  sandtable rules | grep hide-`,
}

func cmdRules(args []string) int {
	fs := newFlagSet("rules")
	goos := fs.String("os", "", "show only `linux`, darwin or any (linux and darwin include any; default: all)")
	if code, done := parseFlags(fs, rulesHelp, args); done {
		return code
	}
	if err := noArgs(fs); err != nil {
		return report("rules", err)
	}
	switch *goos {
	case "", "linux", "darwin", "any":
	default:
		return report("rules", usageError{fmt.Errorf("--os %q: want linux, darwin or any", *goos)})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PLATFORM\tID\tCONDITION\tWHY")
	for _, r := range sandbox.Rules() {
		if *goos != "" && r.Platform != *goos && r.Platform != "any" {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Platform, r.ID, condition(r), r.Why)
	}
	if err := tw.Flush(); err != nil {
		return report("rules", fmt.Errorf("write: %w", err))
	}
	return 0
}

// condition spells a rule's for and when the way rules/*.yaml does.
func condition(r sandbox.Rule) string {
	var parts []string
	if r.For != "" {
		parts = append(parts, "for "+r.For)
	}
	if r.When != "" {
		parts = append(parts, "when "+r.When)
	}
	if len(parts) == 0 {
		return "always"
	}
	return strings.Join(parts, "; ")
}
