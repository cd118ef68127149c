package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/sandtable/sandtable/sandbox"
)

// secretEnv gives e a hidden file (so bwrap needs descriptor 3) and a hidden
// directory under its HOME.
func secretEnv(t *testing.T) *env {
	e := newEnv(t)
	e.write(t, filepath.Join(e.home, ".netrc"), "password hunter2\n", 0o600)
	if err := os.Mkdir(filepath.Join(e.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.write(t, filepath.Join(e.home, ".ssh", "id_ed25519"), "key\n", 0o600)
	return e
}

// TestExplainPasteable runs explain's output through bash, as a user
// pasting it would, from the workspace (whose name has a space and must be
// quoted). The seccomp filter's bytes come from a process substitution, so
// sh will not do.
func TestExplainPasteable(t *testing.T) {
	requireBwrap(t)
	e := secretEnv(t)
	script := `echo ok; cat "$HOME/.netrc"; ls "$HOME/.ssh"; echo x > "it's here"; grep '^Seccomp:' /proc/self/status`
	r := e.run(t, "", "explain", "--", "/bin/sh", "-c", script)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("explain: exit %d, stderr %q", r.code, r.stderr)
	}
	// The redacted copies of the password database's home's files, if it
	// has any (this machine's), come between /dev/null and the filter.
	redirect := "\n  3</dev/null \\\n"
	filter := "\n  -- \\\n"
	seccomp := "Seccomp:\t0\n" // this test process is not filtered, nor a child without the rule
	if m := regexp.MustCompile("\n  --seccomp ([0-9]+) \\\\\n").FindStringSubmatch(r.stdout); m != nil {
		filter = "\n  " + m[1] + "< <(printf '\\x"
		seccomp = "Seccomp:\t2\n" // filter mode: the pasted line loaded the filter
	}
	for _, want := range []string{" \\\n  --ro-bind / / \\\n", "\n  --bind '" + e.ws + "' '" + e.ws + "' \\\n",
		"\n  --ro-bind-data 3 " + e.home + "/.netrc \\\n", redirect, filter, "\n  -- \\\n  /bin/sh -c '"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, r.stdout)
		}
	}
	if self, err := os.ReadFile("/proc/self/status"); err != nil || !strings.Contains(string(self), "\nSeccomp:\t0\n") {
		t.Fatalf("this test needs an unfiltered process to tell a filtered child from: %v\n%s", err, self)
	}
	out := e.shell(t, r.stdout)
	if out != "ok\n"+seccomp {
		t.Errorf("pasted into bash: output %q, want %q (hidden files empty, hidden dirs empty)", out, "ok\n"+seccomp)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "it's here")); err != nil {
		t.Errorf("the pasted command did not write in the workspace: %v", err)
	}

	r = e.run(t, "", "explain")
	if r.code != 0 || !strings.HasSuffix(r.stdout, " \\\n  --\n") || !strings.Contains(r.stdout, "\n  3</dev/null \\\n") {
		t.Fatalf("explain without CMD: exit %d, output ends %q, want it to end with the redirections and --", r.code, r.stdout[max(0, len(r.stdout)-40):])
	}
	if out := e.shell(t, strings.TrimSuffix(r.stdout, "\n")+" /bin/echo appended"); out != "appended\n" {
		t.Errorf("explain without CMD, with a command appended: output %q, want %q", out, "appended\n")
	}
}

// TestExplainStripsEnv pastes explain's output into bash with the table's
// stripped variables set (every exact name, and names the patterns catch),
// and near misses that are not stripped, and checks that the command sees
// exactly what it sees under run: run removes them from CMD's environment,
// so the pasted line must too, with the policy off as well as on, and with
// --keep-env passing one on.
func TestExplainStripsEnv(t *testing.T) {
	e := newEnv(t)
	stripped := exactStripped()
	stripped = append(stripped, "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NPM_TOKEN", "PGPASSWORD")
	kept := []string{"ASTRID_HOMEX", "astrid_home", "ASTRID_SESSION_TOKEN_X", "TOKENIZERS_PARALLELISM", "GIT_AUTHOR_NAME", "AWS_ACCESS_KEY_ID"}
	var names []string
	for _, name := range stripped {
		e.vars = append(e.vars, name+"=/s3cret/"+name)
		names = append(names, regexp.QuoteMeta(name))
	}
	for _, name := range kept {
		e.vars = append(e.vars, name+"=kept "+name)
		names = append(names, regexp.QuoteMeta(name))
	}
	script := `env | grep -E '^(` + strings.Join(names, "|") + `)=' | sort`
	for _, c := range []struct {
		policy string
		keep   []string
	}{{"required", nil}, {"off", nil}, {"required", []string{"GITHUB_TOKEN", "SSH_AUTH_SOCK"}}} {
		t.Run(c.policy+strings.Join(c.keep, "+"), func(t *testing.T) {
			if c.policy != "off" {
				requireBwrap(t)
			}
			var want, flags []string
			for _, name := range append(slices.Clone(kept), c.keep...) {
				if slices.Contains(stripped, name) {
					want = append(want, name+"=/s3cret/"+name)
				} else {
					want = append(want, name+"=kept "+name)
				}
			}
			slices.Sort(want)
			flags = append(flags, "--policy", c.policy)
			for _, k := range c.keep {
				flags = append(flags, "--keep-env", k)
			}
			args := append(append([]string{"run"}, flags...), "--", "sh", "-c", script)
			r := e.run(t, "", args...)
			if r.code != 0 || r.stdout != strings.Join(want, "\n")+"\n" {
				t.Fatalf("run: exit %d, stdout %q, stderr %q; want the environment without %v:\n%s", r.code, r.stdout, r.stderr, stripped, strings.Join(want, "\n"))
			}
			args[0] = "explain"
			x := e.run(t, "", args...)
			if x.code != 0 || !strings.HasPrefix(x.stdout, "env -u ") {
				t.Fatalf("explain: exit %d, stdout %q, stderr %q; want it to start with env -u", x.code, x.stdout, x.stderr)
			}
			if out := e.shell(t, x.stdout); out != r.stdout {
				t.Errorf("pasted into bash, the command sees\n%s\nunder run it sees\n%s\nexplain printed\n%s", out, r.stdout, x.stdout)
			}
		})
	}
	if r := e.run(t, "", "run", "--keep-env", "A=B", "--", "true"); r.code != 2 || !strings.Contains(r.stderr, "keep-env name") {
		t.Errorf("--keep-env A=B: exit %d, stderr %q; want 2 and the name refused", r.code, r.stderr)
	}
}

// exactStripped are the strip-env rows that name one variable, in table
// order: read from the rule listing, not the way explain finds them.
func exactStripped() []string {
	var names []string
	for _, r := range sandbox.Rules() {
		if name, ok := strings.CutPrefix(r.Emits, "unset "); ok && r.Platform == "any" && !strings.Contains(name, "*") {
			names = append(names, name)
		}
	}
	return names
}

// shell runs script with bash in the workspace and returns its stdout.
func (e *env) shell(t *testing.T, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir, cmd.Env = e.ws, e.environ()
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("bash -c %q: %v; stderr %q", script, err, stderr)
	}
	return string(out)
}

type explained struct {
	Program  string
	Args     []string
	Profile  string
	Files    []map[string]string
	UnsetEnv []string `json:"unset_env"`
	Steps    []struct {
		Rule string
		Args []string
	}
}

func (e *env) explainJSON(t *testing.T, args ...string) explained {
	t.Helper()
	r := e.run(t, "", append([]string{"explain", "--json"}, args...)...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("explain --json %q: exit %d, stderr %q", args, r.code, r.stderr)
	}
	var x explained
	if err := json.Unmarshal([]byte(r.stdout), &x); err != nil {
		t.Fatalf("explain --json %q: %v in %s", args, err, r.stdout)
	}
	return x
}

// TestExplainJSON needs no bwrap: explain renders without checking that the
// sandbox works.
func TestExplainJSON(t *testing.T) {
	e := secretEnv(t)
	x := e.explainJSON(t, "--rules", "--", "echo", "hi")
	if filepath.Base(x.Program) != "bwrap" || x.Profile != "" || len(x.Files) == 0 || len(x.Files[0]) != 1 || x.Files[0]["path"] != os.DevNull {
		t.Errorf("linux: program %q, profile %q, files %q; want bwrap, none, [{path: /dev/null} ...]", x.Program, x.Profile, x.Files)
	}
	// The filter, when there is one, is the last descriptor (after the
	// redacted copies of this machine's password database home's files,
	// if it has any), and its bytes are the instructions of a classic BPF
	// program.
	if i := slices.Index(x.Args, "--seccomp"); i >= 0 {
		last := len(x.Files) - 1
		if len(x.Files) < 2 || len(x.Files[last]) != 1 || x.Args[i+1] != strconv.Itoa(3+last) {
			t.Errorf("--seccomp %s with files %q, want the last of [/dev/null, ..., the filter]", x.Args[i+1], x.Files)
		} else if data, err := base64.StdEncoding.DecodeString(x.Files[last]["data_base64"]); err != nil || len(data) == 0 || len(data)%8 != 0 {
			t.Errorf("filter data_base64 %q: %v, %d bytes, want a whole number of 8-byte instructions", x.Files[last]["data_base64"], err, len(data))
		}
	} else if slices.ContainsFunc(x.Files[1:], func(f map[string]string) bool { return f["path"] != "" }) {
		t.Errorf("no --seccomp, but files %q", x.Files)
	}
	if n := len(x.Args); n < 3 || !slices.Equal(x.Args[n-3:], []string{"--", "echo", "hi"}) {
		t.Errorf("linux args end %q, want -- echo hi", x.Args)
	}
	// The steps explain exactly the argv, in order.
	var fromSteps []string
	for _, s := range x.Steps {
		fromSteps = append(fromSteps, s.Args...)
	}
	if !slices.Equal(fromSteps, x.Args[:len(x.Args)-2]) {
		t.Errorf("steps give\n%q\nargs are\n%q", fromSteps, x.Args)
	}
	if len(x.Steps) == 0 || x.Steps[0].Rule != "root-read-only" || x.Steps[len(x.Steps)-1].Rule != "end-of-options" {
		t.Errorf("steps %v, want root-read-only first and end-of-options last", x.Steps)
	}

	if !slices.Equal(x.UnsetEnv, unsetEnv()) {
		t.Errorf("linux: unset_env %q, want the table's stripped variables %q", x.UnsetEnv, unsetEnv())
	}

	x = e.explainJSON(t, "--os", "darwin", "--", "echo", "hi")
	if x.Program != "/usr/bin/sandbox-exec" || !strings.HasPrefix(x.Profile, "(version 1)\n(deny default)\n") ||
		!slices.Equal(x.Args, []string{"-p", x.Profile, "--", "echo", "hi"}) || len(x.Files) != 0 || x.Steps != nil {
		t.Errorf("darwin: %+v", x)
	}
	if !slices.Equal(x.UnsetEnv, unsetEnv()) {
		t.Errorf("darwin: unset_env %q, want %q", x.UnsetEnv, unsetEnv())
	}
	x = e.explainJSON(t, "--os", "darwin", "--allow-all-mach", "--", "true")
	if !strings.Contains(x.Profile, "(allow mach*)\n") {
		t.Errorf("darwin, --allow-all-mach: no (allow mach*) in\n%s", x.Profile)
	}
	if x = e.explainJSON(t, "--os", "darwin", "--", "true"); strings.Contains(x.Profile, "(allow mach*)") {
		t.Errorf("darwin: (allow mach*) without --allow-all-mach")
	}
	// A command named -p with a profile after it stays the command:
	// sandbox-exec's options end before it (rule end-of-options).
	x = e.explainJSON(t, "--os", "darwin", "--", "-p", "(version 1)(allow default)", "/bin/sh")
	if !slices.Equal(x.Args, []string{"-p", x.Profile, "--", "-p", "(version 1)(allow default)", "/bin/sh"}) {
		t.Errorf("darwin, a command named -p: args %q, want the options ended before it", x.Args)
	}

	x = e.explainJSON(t, "--policy", "off", "--", "echo", "hi")
	if x.Program != "echo" || !slices.Equal(x.Args, []string{"hi"}) || !slices.Equal(x.UnsetEnv, unsetEnv()) {
		t.Errorf("policy off: program %q, args %q, unset_env %q; want the command unwrapped, and %q", x.Program, x.Args, x.UnsetEnv, unsetEnv())
	}
	r := e.run(t, "", "explain", "--policy", "off", "--", "echo", "hi there")
	want := "env -u " + strings.Join(unsetEnv(), " \\\n  -u ") + " \\\n  echo 'hi there'\n"
	if r.code != 0 || r.stdout != want || !strings.Contains(r.stderr, "policy is off") {
		t.Errorf("explain --policy off: exit %d, stdout %q, stderr %q; want stdout %q", r.code, r.stdout, r.stderr, want)
	}
}

// unsetEnv names the variables explain removes in the test's environment,
// where no variable a strip-env pattern matches is set: the exact names.
func unsetEnv() []string { return exactStripped() }

// TestExplainRules checks that every line of explain --rules starts with
// the rule table entry it comes from, and that the rule column stays
// within the first 32 columns (readable at 100 columns, however long the
// argv's paths are).
func TestExplainRules(t *testing.T) {
	e := secretEnv(t)
	ids := map[string]bool{"program": true, "command": true}
	for _, r := range sandbox.Rules() {
		ids[r.ID] = true
		ids["read by "+r.ID] = true
	}
	r := e.run(t, "", "explain", "--rules", "--", "echo", "hi")
	if r.code != 0 {
		t.Fatalf("explain --rules: exit %d, stderr %q", r.code, r.stderr)
	}
	line := regexp.MustCompile(`^([^ ]+|read by [^ ]+)( \([^)]*\))?  +\S.*$`)
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil || !ids[m[1]] {
			t.Errorf("line %q does not start with a known rule id", l)
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if note, _, _ := strings.Cut(l, "  "); len(note) > noteWidth && !strings.HasPrefix(note, "read by ") {
			t.Errorf("line %q: its rule is wider than %d columns", l, noteWidth)
		}
		if i := strings.Index(l, "  "); i > noteWidth+2 && !strings.HasPrefix(l, "read by ") {
			t.Errorf("line %q: its text starts at column %d, past the rule column", l, i)
		}
	}
	for _, want := range []string{"--tmpfs " + e.home + "/.ssh", "--ro-bind-data 3 " + e.home + "/.netrc", "  echo hi"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain --rules lacks %q:\n%s", want, r.stdout)
		}
	}
	if !regexp.MustCompile(`\nread by hide-file +  3</dev/null\n`).MatchString(r.stdout) {
		t.Errorf("explain --rules does not say which rule reads descriptor 3:\n%s", r.stdout)
	}
	// The command line starts with env, one -u a line, each naming the
	// strip-env entry it comes from; under --policy off too.
	for _, policy := range []string{"required", "off"} {
		r := e.run(t, "", "explain", "--rules", "--policy", policy, "--", "echo", "hi")
		var want []string
		for _, rule := range sandbox.Rules() {
			if name, ok := strings.CutPrefix(rule.Emits, "unset "); ok && rule.Platform == "any" && !strings.Contains(name, "*") {
				prefix := "  "
				if len(want) == 0 {
					prefix = "env "
				}
				want = append(want, regexp.QuoteMeta(rule.ID)+" +"+regexp.QuoteMeta(prefix+"-u "+name))
			}
		}
		if len(want) == 0 || !regexp.MustCompile(`^`+strings.Join(want, `\n`)+`\n\S+ +  \S`).MatchString(r.stdout) {
			t.Errorf("explain --rules --policy %s does not start with env -u for each stripped variable, naming its rule:\n%s", policy, r.stdout)
		}
	}
}

// TestGoldenExplainDarwin renders the macOS profile for a fixed set of
// flags. The machine-specific parts are replaced: the workspace and HOME
// by placeholders, and the default hidden paths outside HOME (whose kind,
// file or directory, varies between machines) are revealed.
func TestGoldenExplainDarwin(t *testing.T) {
	e := newEnv(t)
	e.write(t, filepath.Join(e.ws, "secret.env"), "TOKEN=x\n", 0o600)
	for _, d := range []string{"vendor", "cache"} {
		if err := os.Mkdir(filepath.Join(e.ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"explain", "--os", "darwin", "--no-network", "--hide", "secret.env", "--hide", "~/.config/tool",
		"--read", "/usr", "--write", "cache", "--hide", "vendor"}
	for _, r := range sandbox.Rules() {
		if p, ok := strings.CutPrefix(r.Emits, "hide /"); ok && r.Platform == "any" {
			args = append(args, "--reveal", "/"+p)
		}
	}
	g := goldie.New(t, goldie.WithFixtureDir(fixtures), goldie.WithTestNameForDir(true), goldie.WithNameSuffix(".golden"))
	for _, c := range []struct {
		name  string
		extra []string
	}{{"profile", nil}, {"rules", []string{"--rules"}}} {
		r := e.run(t, "", append(args, c.extra...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		// The case-folded denies spell the same paths another way.
		out := r.stdout
		// So do the regexes, with each dot as [.].
		for _, p := range [][2]string{{e.ws, "$WORKSPACE"}, {e.home, "$HOME"}, {filepath.Dir(e.ws), "$TESTDIR"}} {
			out = strings.ReplaceAll(out, `"^`+foldedForTest(p[0]), `"^`+p[1])
			out = strings.ReplaceAll(out, `"^`+strings.ReplaceAll(p[0], ".", "[.]"), `"^`+p[1])
		}
		out = strings.ReplaceAll(strings.ReplaceAll(out, e.ws, "$WORKSPACE"), e.home, "$HOME")
		// The directories above the workspace, stat-able in the profile.
		out = strings.ReplaceAll(out, filepath.Dir(e.ws), "$TESTDIR")
		// The workspace's own cache directory is named by a hash of its
		// temporary path.
		out = cacheScopeDir.ReplaceAllString(out, "ws-$$KEY")
		// The password database's home is hidden too, and what it holds
		// (a file or not decides literal or subpath) is the machine's: it
		// is checked here, and kept out of the golden file.
		if ph := passwdHome(t); ph != "" {
			if !strings.Contains(out, `(deny file-read* (subpath "`+ph+`/.ssh"))`) {
				t.Errorf("%s: no deny of %s/.ssh:\n%s", c.name, ph, out)
			}
			out = dropLinesNaming(out, `"`+ph+`/`)
			out = dropLinesNaming(out, `"^`+foldedForTest(ph)+`/`)
		}
		// Where the test directory lies is the machine's (testkit.HostDir):
		// the directories above it, stat-able in the profile, are left out.
		for a := filepath.Dir(filepath.Dir(e.ws)); a != "/"; a = filepath.Dir(a) {
			out = dropLinesNaming(out, `(allow file-read-metadata (literal "`+a+`"))`)
		}
		g.Assert(t, c.name, []byte(out))
	}
}

// passwdHome is this user's home in /etc/passwd, whose defaults sandtable
// hides as well as $HOME's: the golden file names it $PASSWD_HOME.
func passwdHome(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	uid := strconv.Itoa(os.Getuid())
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, ":"); len(f) >= 7 && f[2] == uid {
			return f[5]
		}
	}
	return ""
}

// dropLinesNaming removes the lines that contain s, and the rule comment
// (a line starting with ";") just before each of them.
// foldedForTest spells an ASCII p as the profile's case-folded patterns
// do: [aA] for a letter, with the Kelvin sign and the long s for k and s,
// [.] for a metacharacter.
func foldedForTest(p string) string {
	var b strings.Builder
	for _, c := range p {
		switch {
		case c == 'k' || c == 'K':
			b.WriteString("(K|k|\u212a)")
		case c == 's' || c == 'S':
			b.WriteString("(S|s|\u017f)")
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			b.WriteString("[" + strings.ToLower(string(c)) + strings.ToUpper(string(c)) + "]")
		case strings.ContainsRune(".+*?()[]{}|$", c):
			b.WriteString("[" + string(c) + "]")
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func dropLinesNaming(text, s string) string {
	lines := strings.SplitAfter(text, "\n")
	var out []string
	for i, l := range lines {
		if strings.Contains(l, s) {
			continue
		}
		if strings.HasPrefix(l, ";") {
			next := i + 1
			for next < len(lines) && strings.HasPrefix(lines[next], "(") && strings.Contains(lines[next], s) {
				next++
			}
			if next > i+1 {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

// cacheScopeDir is the directory of one workspace's caches, whose name is
// a hash of the workspace's path.
var cacheScopeDir = regexp.MustCompile(`ws-[0-9a-f]{32}`)
