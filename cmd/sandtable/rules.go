package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/sandtable/sandtable/sandbox"
)

var rulesHelp = helpText{
	synopsis: "rules [--os linux|darwin|any] [--why] [--hidden] [ID...]",
	description: `Print the rule table compiled into this binary, one rule per line: the
platform, the id, what it applies to (the flag, path, pattern or value it
emits, with its variables such as $home unexpanded; shortened to fit, in
full with ID), the condition (shortened likewise) under which it applies (for: one emission
per path of that kind; when: the facts it needs) and its place in rules/.
--why adds why it exists. With IDs it prints each of those rows whole.
"any" rules (the stripped environment, the default hidden set, the
refusals) apply on every platform. rules/*.yaml is the source;
docs/POLICY.md has the rest.

--hidden prints instead the default hidden set as this machine resolves it
for the flags given (the run flags: --workspace, --hide, --reveal, ...):
each default-hidden and redact row with the path it hides here and its
state: hidden, absent (nothing there now; on Linux nothing is mounted and
a run it appears in is stopped), redacted, or none (the row names nothing
here: revealed, its variable unset, or no home).`,
	example: `  sandtable rules --os linux
  sandtable rules hide-ssh no-home-grant
  sandtable rules --hidden
  sandtable rules --why | grep hide-`,
}

// appliesWidth bounds the APPLIES TO column of the listing: an SBPL form
// can be hundreds of characters, which rules ID prints whole.
const (
	appliesWidth   = 48
	conditionWidth = 36
)

func cmdRules(args []string) int {
	fs := newFlagSet("rules")
	var sf sandboxFlags
	sf.register(fs)
	goos := fs.String("os", "", "show only `linux`, darwin or any (linux and darwin include any; default: all)")
	withWhy := fs.Bool("why", false, "add why each rule exists")
	hidden := fs.Bool("hidden", false, "the default hidden set as this machine resolves it")
	if code, done := parseFlags(fs, rulesHelp, args); done {
		return code
	}
	switch *goos {
	case "", "linux", "darwin", "any":
	default:
		return report("rules", usageError{fmt.Errorf("--os %q: want linux, darwin or any", *goos)})
	}
	if *hidden {
		if err := noArgs(fs); err != nil {
			return report("rules", err)
		}
		return rulesHidden(&sf, *goos)
	}
	var rows []sandbox.Rule
	for _, r := range sandbox.Rules() {
		if *goos != "" && r.Platform != *goos && r.Platform != "any" {
			continue
		}
		rows = append(rows, r)
	}
	if fs.NArg() > 0 {
		return rulesWhole(rows, fs.Args())
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	head := "PLATFORM\tID\tAPPLIES TO\tCONDITION\tSOURCE"
	if *withWhy {
		head += "\tWHY"
	}
	fmt.Fprintln(tw, head)
	for _, r := range rows {
		line := r.Platform + "\t" + r.ID + "\t" + shorten(r.Emits, appliesWidth) + "\t" + shorten(condition(r), conditionWidth) + "\t" + r.Source
		if *withWhy {
			line += "\t" + r.Why
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return report("rules", fmt.Errorf("write: %w", err))
	}
	return 0
}

// rulesWhole prints each row ids names, whole; an id no row has is a
// usage error.
func rulesWhole(rows []sandbox.Rule, ids []string) int {
	for i, id := range ids {
		found := false
		for _, r := range rows {
			if r.ID != id {
				continue
			}
			if found || i > 0 {
				fmt.Println()
			}
			found = true
			writeRule(os.Stdout, r)
		}
		if !found {
			return report("rules", usageError{fmt.Errorf("no rule %q (sandtable rules lists them)", id)})
		}
	}
	return 0
}

// writeRule prints one row as rules/*.yaml has it.
func writeRule(w io.Writer, r sandbox.Rule) {
	fmt.Fprintf(w, "%s (%s, %s)\n", r.ID, r.Platform, r.Source)
	fmt.Fprintf(w, "  applies to  %s\n", r.Emits)
	fmt.Fprintf(w, "  condition   %s\n", condition(r))
	if r.Reviewed != "" {
		fmt.Fprintln(w, "  reviewed")
		writeWrapped(w, "    ", r.Reviewed)
	}
	fmt.Fprintln(w, "  why")
	writeWrapped(w, "    ", r.Why)
}

// rulesHidden prints the resolved hidden set for the run flags in sf.
func rulesHidden(sf *sandboxFlags, goos string) int {
	if goos == "" || goos == "any" {
		goos = runtime.GOOS
	}
	cfg, err := sf.config()
	if err != nil {
		return report("rules", err)
	}
	set, err := sandbox.HiddenSet(goos, cfg)
	if err != nil {
		return report("rules", err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tPATH\tID\tSOURCE")
	for _, h := range set {
		id, src, p := h.Rule.ID, h.Rule.Source, h.Path
		if id == "" {
			id, src = "--hide", "(flag)"
		}
		if p == "" {
			p = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.State, p, id, src)
	}
	if err := tw.Flush(); err != nil {
		return report("rules", fmt.Errorf("write: %w", err))
	}
	return 0
}

// shorten cuts s to at most n runes, marking the cut with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
