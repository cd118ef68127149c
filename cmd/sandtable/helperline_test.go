package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestHelperLineOnlyExplains: the wrap helper sandtable serves for
// explain's line in mode proxy runs only such a line. Given another
// mode's words, another program, or a copy of bwrap under another path,
// it refuses with status 125 and says what and why, and the program never
// runs (as root and as the unprivileged user); control: explain's own
// line, pasted, runs its command in the sandbox.
func TestHelperLineOnlyExplains(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the wrap helper is Linux's")
	}
	requireBwrap(t)
	e := newEnv(t)
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	bwrap, _ = filepath.EvalSymlinks(bwrap)
	copied := filepath.Join(t.TempDir(), "bwrap")
	b, err := os.ReadFile(bwrap)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(copied), 0o755); err != nil {
		t.Fatal(err)
	}
	ce := newEnv(t)
	// Control: explain's own line runs through the same check.
	r := ce.run(t, "", "explain", "--", "sh", "-c", "echo inside")
	if r.code != 0 || !strings.Contains(r.stdout, " -sandtable-network-proxy-helper -- \\\n  "+bwrap+" \\\n") {
		t.Fatalf("explain: exit %d, stdout %q, stderr %q; want the helper's line with %s", r.code, r.stdout, r.stderr, bwrap)
	}
	sh := exec.Command("bash")
	sh.Stdin = strings.NewReader(r.stdout)
	sh.Dir, sh.Env = ce.ws, ce.environ()
	if out, err := sh.CombinedOutput(); err != nil || string(out) != "inside\n" {
		t.Errorf("control: explain's line pasted: %v, %q; want it to run", err, out)
	}
	// bwrap's argv for a command that is barely sandboxed.
	open := []string{"--ro-bind", "/", "/", "--", "/bin/sh", "-c", "echo escaped; id"}
	for _, u := range callers(t) {
		t.Run(u.label, func(t *testing.T) {
			prog := u.own(t, e)
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"network=host", "--", "/bin/sh", "-c", "echo escaped; id"}, `argument "network=host" is not one explain's line holds`},
				{[]string{"network=off", "--", bwrap, "--bind", "/", "/", "/bin/sh", "-c", "echo escaped"}, `argument "network=off"`},
				{[]string{"stdio=as-is", "--", bwrap}, `argument "stdio=as-is"`},
				{[]string{"--", "/bin/sh", "-c", "echo escaped; id"}, `program "/bin/sh" is not bwrap as explain resolves it (` + bwrap + `)`},
				{append([]string{"--", copied}, open...), `program "` + copied + `" is not bwrap as explain resolves it`},
				{[]string{"allow=example.org"}, "no program after --"},
				// bwrap itself, where the argv makes its own directory writable.
				{[]string{"--", bwrap, "--bind", "/", "/", "/bin/sh", "-c", "echo escaped"}, "no bwrap on PATH outside the sandbox's writable paths"},
			} {
				cmd := exec.Command(prog, append([]string{"-sandtable-network-proxy-helper"}, c.args...)...)
				cmd.Dir, cmd.Env, cmd.SysProcAttr = e.ws, e.environ(), u.attr()
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				code := cmd.ProcessState.ExitCode()
				if err == nil || code != 125 || strings.Contains(out.String(), "escaped") || !strings.Contains(errb.String(), c.want) {
					t.Errorf("sandtable -sandtable-network-proxy-helper %q: exit %d, stdout %q, stderr %q; want 125, nothing run, and %q", c.args, code, out.String(), errb.String(), c.want)
				}
			}
		})
	}
}
