package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

var explainHelp = helpText{
	synopsis: "explain [flags] [--os linux|darwin] [--json] [--rules] [-- CMD [ARGS...]]",
	description: `Print what 'sandtable run' would run, without running anything and without
checking that the sandbox works here (that is 'sandtable probe').

On Linux the output is the bwrap command line, one flag and its operands per
line, shell-quoted, with \ continuations, so it can be pasted into a shell
and run as it is. It starts with env -u NAME for each variable that run
removes from CMD's environment (the rule table's strip-env rows: every
exact name, and each variable set here that a pattern such as *_TOKEN
matches; --keep-env leaves one), so the pasted line does not pass them on
either. A variable set after explain ran is not on the line: paste it
where explain ran, or run explain again. The descriptors bwrap reads are
redirected on the line before "--": 3</dev/null when a hidden file is
replaced by an empty one, and the seccomp filter's bytes as a bash process
substitution, N< <(printf ...), so output that has one needs bash (or zsh),
not sh. Without CMD the output ends with "--": append a command to it.
Paste it in the workspace: run starts CMD there, the pasted line where you
are. With --policy off the output is CMD itself, after the same env -u.

--os darwin prints the Seatbelt (SBPL) profile instead, as sandbox-exec -p
would get it; CMD and the variables to remove then appear only in --json.

--rules names the rule behind each line in a first column of its own
(Linux: the rule id, then the line; a descriptor's line names the rule that
reads it) or a "; rule-id" comment before each form (macOS, which stays a
valid profile). The Linux output is then for reading, not for pasting.
'sandtable rules ID' prints a rule whole; 'sandtable why PATH' names the
rule that decides a path.

--json prints {"program", "args", "profile", "files", "unset_env",
"set_env"} (and "steps" with --rules), where args is the whole argv after
program, CMD included, files lists descriptors 3, 4, ... as {"path": FILE}
or {"data_base64": BYTES}, unset_env names the variables to remove from
program's environment, as run does, set_env the NAME=VALUE it sets (the
private tool caches: the caches section of the rule table; off with
--no-cache; the Linux line sets them through env too), and steps lists
{"rule": ID, "args": [...]} for each rule's part of args.

Path facts (what exists, what is a file) come from this machine, whatever
--os says. Where the search for the git repositories below a writable
root stopped at a bound (the rule table's git-search rows), explain says
so on stderr, with the row and the first directory left out: the
repositories there and beyond are not protected.`,
	example: `  sandtable explain -- make test
  sandtable explain --rules --hide ~/secrets
  sandtable explain --os darwin --no-network`,
}

func cmdExplain(args []string) int {
	fs := newFlagSet("explain")
	var sf sandboxFlags
	sf.register(fs)
	goos := fs.String("os", runtime.GOOS, "render for `linux` or darwin")
	asJSON := fs.Bool("json", false, "print JSON: program, args, profile, files, unset_env")
	withRules := fs.Bool("rules", false, "name the rule behind each line (Linux output is then not pasteable)")
	if code, done := parseFlags(fs, explainHelp, args); done {
		return code
	}
	if *goos != "linux" && *goos != "darwin" {
		return report("explain", usageError{fmt.Errorf("--os %q: want linux or darwin", *goos)})
	}
	cfg, err := sf.config()
	if err != nil {
		return report("explain", err)
	}
	wrap, steps, err := explainPrefix(*goos, cfg, *withRules, *asJSON)
	if err != nil {
		return report("explain", err)
	}
	cmdArgs := fs.Args()
	vars := strippedVars(cfg)
	if wrap.Program == "" && !*asJSON {
		fmt.Fprintf(os.Stderr, "sandtable explain: policy is off: the command runs without a sandbox\n")
	}
	var helper []string
	if wrap.Program != "" && *goos == "linux" && netMode(*goos, cfg) == sandbox.NetworkProxy {
		// Run alone, the argv would share the host's network: in mode
		// proxy --share-net keeps the helper's namespace. The pasteable
		// line starts with sandtable itself as the helper that makes it.
		if *withRules && !*asJSON {
			fmt.Fprintf(os.Stderr, "sandtable explain: network mode proxy: this argv runs inside the network helper's namespace; run alone, its --share-net shares the host's network (explain without --rules prints the line that runs it through sandtable)\n")
		}
		if !*asJSON && !*withRules {
			exe, err := os.Executable()
			if err != nil {
				return report("explain", fmt.Errorf("network mode proxy: the line runs through sandtable itself: %w", err))
			}
			helper = sandbox.NetworkHelperArgv(exe, cfg.Network)
		}
	}
	switch {
	case *asJSON:
		err = writeJSON(os.Stdout, wrap, cmdArgs, vars, steps, *withRules)
	case wrap.Program == "":
		err = writeLines(os.Stdout, unwrappedLines(vars, cmdArgs), *withRules)
	case *goos == "darwin" && *withRules:
		err = writeProfileSteps(os.Stdout, steps)
	case *goos == "darwin":
		_, err = io.WriteString(os.Stdout, wrap.Profile)
	case *withRules:
		err = writeLines(os.Stdout, linuxStepLines(wrap, vars, steps, cmdArgs), true)
	default:
		err = writeLines(os.Stdout, linuxLines(wrap, helper, vars, cmdArgs), false)
	}
	if err != nil {
		return report("explain", fmt.Errorf("write: %w", err))
	}
	if wrap.Program != "" && *goos == "linux" && *withRules && !*asJSON {
		explainLimits(cfg)
	}
	if wrap.Program != "" {
		explainGitSearch(*goos, cfg)
	}
	return 0
}

// strippedVar is a variable run removes from CMD's environment, and the
// rule table entry that removes it.
type strippedVar struct{ name, rule string }

// strippedVars are what run removes from CMD's environment: every exact
// strip-env name, then the variables of this environment a strip-env
// pattern matches, less --keep-env's (sandbox.RemovedEnv).
func strippedVars(cfg sandbox.Config) []strippedVar {
	var vars []strippedVar
	for _, v := range sandbox.RemovedEnv(cfg, os.Environ()) {
		vars = append(vars, strippedVar{v.Name, v.Rule})
	}
	return vars
}

func varNames(vars []strippedVar) []string {
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.name
	}
	return names
}

// line is one line of the shell output, and what --rules says made it.
type line struct{ text, note string }

// envLines run what follows them with vars removed from its environment:
// "env -u NAME" and then "-u NAME" for the others, one a line, for --rules
// to name each one's entry. Without vars, env is left out.
func envLines(vars []strippedVar) []line {
	var lines []line
	for i, v := range vars {
		text := "-u " + shellQuote(v.name)
		if i == 0 {
			text = "env " + text
		}
		lines = append(lines, line{text, v.rule})
	}
	return lines
}

// programWords are the words that run prog, after envLines when viaEnv:
// prog itself unless env (or, without env, the shell) would read it as
// something else. A name with "=" is an assignment to both, so a shell
// runs it with exec, as a name; a name starting with "-" follows env's
// "--". Neither is bwrap's path; both can be CMD under --policy off.
func programWords(prog string, viaEnv bool) []string {
	switch {
	case strings.Contains(prog, "="):
		return []string{"/bin/sh", "-c", `exec "$0" "$@"`, prog}
	case viaEnv && strings.HasPrefix(prog, "-"):
		return []string{"--", prog}
	}
	return []string{prog}
}

// unwrappedLines run CMD as run does under --policy off: unwrapped, in the
// stripped environment. Without CMD they end with env's options, for a
// command to be appended.
func unwrappedLines(vars []strippedVar, cmdArgs []string) []line {
	lines := envLines(vars)
	if len(cmdArgs) > 0 {
		words := append(programWords(cmdArgs[0], len(vars) > 0), cmdArgs[1:]...)
		lines = append(lines, line{shellJoin(words), "command"})
	}
	return lines
}

// programLine is the line that starts bwrap, after the env lines.
func programLine(wrap sandbox.Wrap) line {
	return line{shellJoin(programWords(wrap.Program, true)), "program"}
}

// bwrapEnvLines are envLines and then env's -C /: bwrap starts in /, as run
// starts it (the table's chdir rule says why), whatever directory the
// line is pasted in.
func bwrapEnvLines(vars []strippedVar, set []string) []line {
	lines := envLines(vars)
	if len(lines) == 0 {
		return append([]line{{"env -C /", "chdir"}}, setEnvLines(set)...)
	}
	return append(append(lines, line{"-C /", "chdir"}), setEnvLines(set)...)
}

// linuxLines are the pasteable command line.
func linuxLines(wrap sandbox.Wrap, helper []string, vars []strippedVar, cmdArgs []string) []line {
	lines := bwrapEnvLines(vars, wrap.Env)
	if len(helper) > 0 {
		lines = append(lines, line{shellJoin(append(programWords(helper[0], true), helper[1:]...)), "network helper"})
	}
	lines = append(lines, programLine(wrap))
	opts := wrap.Args
	if n := len(opts); n > 0 && opts[n-1] == "--" {
		opts = opts[:n-1]
	}
	for _, g := range flagGroups(opts) {
		lines = append(lines, line{text: shellJoin(g)})
	}
	for _, r := range redirections(wrap.Files, false) {
		lines = append(lines, line{text: r})
	}
	lines = append(lines, line{text: "--"})
	if len(cmdArgs) > 0 {
		lines = append(lines, line{text: shellJoin(cmdArgs)})
	}
	return lines
}

// linuxStepLines are the same lines as linuxLines, each noting the rule
// that emitted it, with the filter's bytes abbreviated.
func linuxStepLines(wrap sandbox.Wrap, vars []strippedVar, steps []sandbox.Step, cmdArgs []string) []line {
	lines := append(bwrapEnvLines(vars, wrap.Env), programLine(wrap))
	for _, s := range steps {
		if len(s.Args) == 1 && s.Args[0] == "--" {
			for i, r := range redirections(wrap.Files, true) {
				what := ""
				if f := wrap.Files[i]; f.Path == "" {
					what = fmt.Sprintf("  # %d bytes; explain without --rules prints them all", len(f.Data))
				}
				lines = append(lines, line{r + what, "read by " + reader(steps, 3+i)})
			}
		}
		for _, g := range flagGroups(s.Args) {
			lines = append(lines, line{shellJoin(g), s.Rule})
		}
	}
	if len(cmdArgs) > 0 {
		lines = append(lines, line{shellJoin(cmdArgs), "command"})
	}
	return lines
}

// noteWidth bounds explain --rules' first column: the widest rule id
// fits, and a longer note (a descriptor's "read by ... (N bytes; ...)")
// pushes its own line's text right rather than every line's.
const noteWidth = 30

// writeLines prints lines as one command, each line after the first
// indented: with \ continuations, to be pasted, or withRules with each
// line's note first, in a column of its own, to be read: the rule stays at
// the left edge however long the line after it is.
func writeLines(w io.Writer, lines []line, withRules bool) error {
	if withRules {
		width := 0
		for _, l := range lines {
			if n := len(l.note); n <= noteWidth {
				width = max(width, n)
			}
		}
		var b strings.Builder
		for i, l := range lines {
			indent := "  "
			if i == 0 {
				indent = ""
			}
			fmt.Fprintf(&b, "%-*s  %s%s\n", width, l.note, indent, l.text)
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(l.text)
		if i < len(lines)-1 {
			b.WriteString(" \\")
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeProfileSteps prints the SBPL profile with a comment naming the rule
// before each rule's forms.
func writeProfileSteps(w io.Writer, steps []sandbox.Step) error {
	var b strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&b, "; %s\n", s.Rule)
		for _, form := range s.Args {
			b.WriteString(form)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeJSON(w io.Writer, wrap sandbox.Wrap, cmdArgs []string, vars []strippedVar, steps []sandbox.Step, withRules bool) error {
	type step struct {
		Rule string   `json:"rule"`
		Args []string `json:"args"`
	}
	type file struct {
		Path string `json:"path,omitempty"`
		Data []byte `json:"data_base64,omitempty"`
	}
	out := struct {
		Program string   `json:"program"`
		Args    []string `json:"args"`
		Profile string   `json:"profile"`
		Files   []file   `json:"files"`
		Unset   []string `json:"unset_env"`
		Set     []string `json:"set_env"`
		Steps   []step   `json:"steps,omitempty"`
	}{Program: wrap.Program, Profile: wrap.Profile, Files: []file{}, Unset: varNames(vars), Set: append([]string{}, wrap.Env...)}
	out.Args = append(append([]string{}, wrap.Args...), cmdArgs...)
	if wrap.Program == "" && len(cmdArgs) > 0 {
		out.Program, out.Args = cmdArgs[0], cmdArgs[1:]
	}
	for _, f := range wrap.Files {
		out.Files = append(out.Files, file{Path: f.Path, Data: f.Data})
	}
	if withRules {
		out.Steps = []step{}
		for _, s := range steps {
			out.Steps = append(out.Steps, step{s.Rule, s.Args})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// flagGroups splits a bwrap argv into one group per option: the flag and
// the operands that follow it. Operands never start with "-": they are
// absolute paths, descriptor numbers and capability names.
func flagGroups(args []string) [][]string {
	var groups [][]string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || len(groups) == 0 {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], a)
	}
	return groups
}

// redirections opens files as descriptors 3, 4, ... for the shell, as
// exec.Cmd.ExtraFiles does for run: a path as it is, bytes from a printf
// in a process substitution (a pipe, which bwrap reads like run's memfd).
// abbreviate keeps only the first bytes, for output that is read, not run.
func redirections(files []sandbox.WrapFile, abbreviate bool) []string {
	r := make([]string, len(files))
	for i, f := range files {
		if f.Path != "" {
			r[i] = fmt.Sprintf("%d<%s", 3+i, shellQuote(f.Path))
			continue
		}
		data, more := f.Data, ""
		if abbreviate && len(data) > 8 {
			data, more = data[:8], "..."
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d< <(printf '", 3+i)
		for _, c := range data {
			fmt.Fprintf(&b, "\\x%02x", c)
		}
		b.WriteString(more + "')")
		r[i] = b.String()
	}
	return r
}

// reader names the rule whose operand is descriptor fd.
func reader(steps []sandbox.Step, fd int) string {
	n := strconv.Itoa(fd)
	for _, s := range steps {
		for _, a := range s.Args {
			if a == n {
				return s.Rule
			}
		}
	}
	return "bwrap"
}

// netMode is the network mode cfg has on goos, the table's default when it
// names none.
func netMode(goos string, cfg sandbox.Config) sandbox.NetworkMode {
	switch {
	case cfg.NoNetwork:
		return sandbox.NetworkOff
	case cfg.Network.Mode == sandbox.NetworkDefault:
		return sandbox.DefaultNetworkMode(goos)
	}
	return cfg.Network.Mode
}

// explainGitSearch says on stderr where the search for repositories below
// a writable root stopped at a bound (the git-search rows): what lies
// there and beyond is not protected.
func explainGitSearch(goos string, cfg sandbox.Config) {
	steps, err := sandbox.ExplainGitSearch(goos, cfg)
	if err != nil {
		return // the argv's build has reported it already
	}
	for _, s := range steps {
		fmt.Fprintf(os.Stderr, "sandtable explain: the search for git repositories below %s stopped at %s (rule %s), at %s: the repositories there and beyond are not protected\n", s.Args[0], s.Args[2], s.Rule, s.Args[1])
	}
}
