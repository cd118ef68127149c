package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

var whyHelp = helpText{
	synopsis: "why [flags] [--os linux|darwin] [--json] TARGET...",
	description: `Say what the sandbox 'sandtable run' would start with these flags decides
about each TARGET, and which row of the rule table decides it, with its
place in rules/ and the flag that would change it (or the refuse row that
forbids that flag). Nothing is run.

Without TARGET it answers for the paths the flags name (why --write DIR:
what --write DIR makes of DIR, or the refuse row that refuses it).

A TARGET is
  a path (absolute, relative to the current directory, ~ or ~/x; a name
    that exists here is a path): hidden, redacted, read-only, protected,
    writable, private (the sandbox's own, such as /tmp), or for a host
    socket hidden or reachable;
  a URL or HOST:PORT (a name with a dot or a colon; port 443 when none):
    reachable or refused in this network mode, by the proxy's own policy
    in mode proxy (the name is resolved once here, as the proxy would);
  the name of an environment variable: stripped (by which pattern), set
    by the table, passed, or unset.

On Linux a path's answer is the last mount over it in the bwrap argv that
'sandtable explain' prints: the bwrap backend's. What the reduced backend
(--backend landlock) keeps of each row is its landlock column in
docs/POLICY.md. --os darwin answers from the plan's lists as the
macOS profile's rows use them.

--json prints one object per TARGET: {"target", "kind", "decision", "rule",
"source", "why", "via", "via_source", "change", "refused", "refused_source",
"refused_why", "detail"}; a field without a value is left out.`,
	example: `  sandtable why ~/.ssh/id_rsa
  sandtable why --write ~/data ~/data/out.txt
  sandtable why https://registry.npmjs.org/ GITHUB_TOKEN`,
}

// whyJSON is one answer as --json prints it.
type whyJSON struct {
	Target        string `json:"target"`
	Kind          string `json:"kind"`
	Decision      string `json:"decision"`
	Rule          string `json:"rule,omitempty"`
	Source        string `json:"source,omitempty"`
	Why           string `json:"why,omitempty"`
	Via           string `json:"via,omitempty"`
	ViaSource     string `json:"via_source,omitempty"`
	Change        string `json:"change,omitempty"`
	Refused       string `json:"refused,omitempty"`
	RefusedSource string `json:"refused_source,omitempty"`
	RefusedWhy    string `json:"refused_why,omitempty"`
	Detail        string `json:"detail,omitempty"`
}

func cmdWhy(args []string) int {
	fs := newFlagSet("why")
	var sf sandboxFlags
	sf.register(fs)
	goos := fs.String("os", runtime.GOOS, "answer for `linux` or darwin")
	asJSON := fs.Bool("json", false, "print one JSON object per target")
	if code, done := parseFlags(fs, whyHelp, args); done {
		return code
	}
	if *goos != "linux" && *goos != "darwin" {
		return report("why", usageError{fmt.Errorf("--os %q: want linux or darwin", *goos)})
	}
	targets := fs.Args()
	if len(targets) == 0 {
		// What the path flags themselves do: why --write DIR.
		for _, l := range []pathList{sf.write, sf.hide, sf.reveal, sf.read, sf.sockets} {
			targets = append(targets, l...)
		}
	}
	if len(targets) == 0 {
		return report("why", usageError{fmt.Errorf("no TARGET: name a path, a URL or HOST:PORT, or a variable")})
	}
	cfg, err := sf.config()
	if err != nil {
		return report("why", err)
	}
	var answers []sandbox.Answer
	for _, t := range targets {
		target, err := whyTarget(t)
		if err != nil {
			return report("why", err)
		}
		a, err := sandbox.Why(*goos, cfg, target)
		if err != nil {
			code := report("why", err)
			if row, ok := sandbox.RefusedBy(err); ok {
				fmt.Fprintf(os.Stderr, "  rule    %s (%s)\n", row.ID, row.Source)
				writeWrapped(os.Stderr, "          ", row.Why)
			}
			return code
		}
		answers = append(answers, a)
	}
	if *asJSON {
		out := make([]whyJSON, 0, len(answers))
		for _, a := range answers {
			out = append(out, answerJSON(a))
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return report("why", fmt.Errorf("write: %w", err))
		}
		return 0
	}
	for i, a := range answers {
		if i > 0 {
			fmt.Println()
		}
		writeAnswer(os.Stdout, a)
	}
	return 0
}

// whyTarget makes a path target absolute as the other flags' paths are
// (~ expanded, relative to the current directory); a name that exists
// here is a path too. Anything else goes to the library as it is.
func whyTarget(t string) (string, error) {
	if t == "" {
		return "", usageError{fmt.Errorf("empty TARGET")}
	}
	_, statErr := os.Lstat(t)
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.HasPrefix(t, ".") || statErr == nil ||
		strings.Contains(t, "/") && !strings.Contains(t, "://") {
		cwd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		return absPath(cwd, "TARGET", filepath.Clean(t))
	}
	return t, nil
}

func answerJSON(a sandbox.Answer) whyJSON {
	j := whyJSON{Target: a.Target, Kind: a.Kind, Decision: a.Decision, Rule: a.Rule.ID, Source: a.Rule.Source, Why: a.Rule.Why, Change: a.Change, Detail: a.Detail}
	if a.Via != nil {
		j.Via, j.ViaSource = a.Via.ID, a.Via.Source
	}
	if a.Refused != nil {
		j.Refused, j.RefusedSource, j.RefusedWhy = a.Refused.ID, a.Refused.Source, a.Refused.Why
	}
	return j
}

// writeAnswer prints one answer: the target and its decision, then the
// row (its place and why), the row that carries it out, what it means
// here, and the flag that changes it.
func writeAnswer(w io.Writer, a sandbox.Answer) {
	fmt.Fprintf(w, "%s: %s\n", a.Target, a.Decision)
	if a.Rule.ID != "" {
		fmt.Fprintf(w, "  rule    %s (%s)\n", a.Rule.ID, a.Rule.Source)
		writeWrapped(w, "          ", firstSentence(a.Rule.Why))
	} else {
		fmt.Fprintf(w, "  rule    none: no row of the table decides it\n")
	}
	if a.Via != nil {
		fmt.Fprintf(w, "  via     %s (%s)\n", a.Via.ID, a.Via.Source)
	}
	if a.Detail != "" {
		fmt.Fprintf(w, "  here    %s\n", a.Detail)
	}
	switch {
	case a.Change != "" && a.Refused != nil:
		fmt.Fprintf(w, "  change  %s is refused by %s (%s)\n", a.Change, a.Refused.ID, a.Refused.Source)
		writeWrapped(w, "          ", firstSentence(a.Refused.Why))
	case a.Change != "":
		fmt.Fprintf(w, "  change  %s\n", a.Change)
	}
}

// firstSentence is a row's why up to its first full stop followed by a
// space (sandtable rules ID prints the rest).
func firstSentence(why string) string {
	if i := strings.Index(why, ". "); i >= 0 {
		return why[:i+1]
	}
	return why
}

// writeWrapped writes text in lines of at most 80 columns after indent.
func writeWrapped(w io.Writer, indent, text string) {
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > 80 {
			fmt.Fprintln(w, line)
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	if len(line) > len(indent) {
		fmt.Fprintln(w, line)
	}
}
