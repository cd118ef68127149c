package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bin is the sandtable binary TestMain builds once: every test runs the
// real command, as a user would, so exit statuses and signals are real.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sandtable-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "sandtable")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sandtable:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestHelp(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"run", "--help"}, {"run", "-h"},
		{"explain", "--help"}, {"explain", "-h"}, {"probe", "--help"}, {"probe", "-h"}, {"rules", "--help"}, {"rules", "-h"},
		{"why", "--help"}, {"version", "--help"}} {
		r := e.run(t, "", args...)
		if r.code != 0 || !strings.Contains(r.stdout, "usage: sandtable") || !strings.Contains(r.stdout, "example:\n  sandtable ") || r.stderr != "" {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 0, usage with an example on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestHelpNamesJSONFields: every key that explain --json --rules and why
// --json print, at any depth, is named in the command's --help as
// "key", so the help is the whole contract of the output. Control: a key
// the output lacks is not taken as named.
func TestHelpNamesJSONFields(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ help, out []string }{
		{[]string{"explain", "--help"}, []string{"explain", "--json", "--rules", "--", "true"}},
		{[]string{"why", "--help"}, []string{"why", "--json", "GITHUB_TOKEN", e.ws, "127.0.0.1:80"}},
	} {
		help := e.run(t, "", c.help...).stdout
		r := e.run(t, "", c.out...)
		var v any
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("sandtable %q: %v: %s %s", c.out, err, r.stdout, r.stderr)
		}
		keys := map[string]bool{}
		jsonKeys(v, keys)
		if len(keys) < 3 {
			t.Fatalf("sandtable %q printed keys %v", c.out, keys)
		}
		for k := range keys {
			if !strings.Contains(help, `"`+k+`"`) {
				t.Errorf("sandtable %q prints %q, which %q does not name", c.out, k, c.help)
			}
		}
		if strings.Contains(help, `"no-such-key-in-the-output"`) {
			t.Errorf("control: the help names a key by accident")
		}
	}
}

// jsonKeys adds every object key in v, at any depth, to keys.
func jsonKeys(v any, keys map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			keys[k] = true
			jsonKeys(e, keys)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, keys)
		}
	}
}

func TestUsageOnStderr(t *testing.T) {
	e := newEnv(t)
	for _, args := range [][]string{{}, {"frobnicate"}, {"-x"}} {
		r := e.run(t, "", args...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "usage: sandtable <command>") {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 2 and usage on stderr", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestUsageErrors checks that a mistake on the command line costs one line
// on stderr and exit 2, and spawns nothing: each command would create a
// file in the workspace.
func TestUsageErrors(t *testing.T) {
	e := newEnv(t)
	spawn := []string{"--", "sh", "-c", "touch spawned"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"run", "-x"}, spawn...), "sandtable run: flag provided but not defined: -x (run 'sandtable run --help' for usage)"},
		{[]string{"explain", "--bogus"}, "sandtable explain: flag provided but not defined: -bogus"},
		{[]string{"probe", "extra"}, `sandtable probe: unexpected argument "extra"`},
		{[]string{"rules", "--os", "plan9"}, `sandtable rules: --os "plan9": want linux, darwin or any`},
		{[]string{"explain", "--os", "windows"}, `sandtable explain: --os "windows": want linux or darwin`},
		{[]string{"run"}, "sandtable run: missing command"},
		{append([]string{"run", "--policy", "maybe"}, spawn...), `sandtable run: --policy: sandbox: policy "maybe": bad policy`},
		{append([]string{"run", "--workspace", "/nonexistent/ws"}, spawn...), `sandtable run: sandbox: workspace "/nonexistent/ws": does not exist`},
		{append([]string{"run", "--read", "missing-dir"}, spawn...), `sandtable run: sandbox: read path "` + e.ws + `/missing-dir": does not exist`},
		{append([]string{"run", "--write", ""}, spawn...), "sandtable run: --write: empty path: bad path"},
		{append([]string{"run", "--hide", "~bob/.ssh"}, spawn...), "sandtable run: --hide ~bob/.ssh: only ~ and ~/ are expanded: bad path"},
		{append([]string{"run", "--reveal", "/etc/passwd"}, spawn...), "sandtable run: sandbox: reveal path"},
		{append([]string{"run", "--hide", "/a/../b"}, spawn...), "sandtable run: sandbox: hidden path"},
		{append([]string{"explain", "--hide", "/x\"y"}, spawn...), "sandtable explain: sandbox: hidden path"},
	} {
		r := e.run(t, "", c.args...)
		if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("sandtable %q: exit %d, stdout %q, stderr %q; want 2 and one line starting %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(e.ws, "spawned")); err == nil {
		t.Error("a command was spawned despite a usage error")
	}
}
