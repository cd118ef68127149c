package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func hiddenPaths(t *testing.T, cfg Config) []string {
	t.Helper()
	p, err := newPlan("linux", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range p.hidden {
		out = append(out, f.path)
	}
	return out
}

func TestDerivedHidden(t *testing.T) {
	clearDerivedEnv(t)
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	t.Setenv("HOME", mkdir(t, dir, "home"))
	xdg := mkdir(t, dir, "xdg")
	gh := mkdir(t, xdg, "gh")
	astrid := mkdir(t, dir, "astrid")
	kubeA := writeFile(t, dir, "kube-a", "a")
	kubeB := writeFile(t, dir, "kube-b", "b")

	// A trailing slash and a doubled one are cleaned; empty list entries
	// name nothing; a missing path is kept as missing.
	t.Setenv("XDG_CONFIG_HOME", xdg+"/")
	t.Setenv("ASTRID_HOME", strings.Replace(astrid, "/astrid", "//astrid", 1))
	t.Setenv("KUBECONFIG", kubeA+"::"+kubeB+":"+filepath.Join(dir, "missing"))
	got := hiddenPaths(t, Config{Workspace: ws})
	for _, want := range []string{gh, astrid, kubeA, kubeB, filepath.Join(dir, "missing")} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not hidden; hidden: %q", want, got)
		}
	}

	// Reveal takes the expanded path, one list entry at a time.
	got = hiddenPaths(t, Config{Workspace: ws, Reveal: []string{gh, kubeB}})
	if slices.Contains(got, gh) || slices.Contains(got, kubeB) || !slices.Contains(got, kubeA) {
		t.Errorf("revealing %s and %s: hidden %q", gh, kubeB, got)
	}
	_, err := newPlan("linux", Config{Workspace: ws, Reveal: []string{filepath.Join(xdg, "nothing")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), gh) {
		t.Errorf("a reveal that names nothing: %v, want ErrBadPath listing %s", err, gh)
	}

	// Under Off nothing is hidden for the sandbox's sake: a bad value does
	// not stop the command.
	t.Setenv("ASTRID_HOME", "relative/astrid")
	if _, err := newPlan("linux", Config{Workspace: ws, Policy: Off}); err != nil {
		t.Errorf("policy off, relative ASTRID_HOME: %v", err)
	}
}

// TestDerivedHiddenRefused checks each value a derived row cannot hide
// exactly: refused, with the variable and its value in the error.
func TestDerivedHiddenRefused(t *testing.T) {
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	t.Setenv("HOME", mkdir(t, dir, "home"))
	for _, c := range []struct{ name, value, want string }{
		{"ASTRID_HOME", "relative/astrid", "not absolute"},
		{"ASTRID_HOME", "./astrid", "not absolute"},
		{"KUBECONFIG", dir + "/kube:kube2", "not absolute"},
		{"GNUPGHOME", dir + "/a/../b", ".. component"},
		{"ASTRID_HOME", "/", "root"},
		{"DOCKER_CONFIG", dir + "/quo\"te", "double quote"},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			clearDerivedEnv(t)
			t.Setenv(c.name, c.value)
			_, err := newPlan("linux", Config{Workspace: ws})
			if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "$env:"+c.name) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want ErrBadPath naming $env:%s and %q", err, c.name, c.want)
			}
		})
	}
}

// TestDerivedHiddenRefusals checks that a derived path gets the refusals
// every hidden path gets: a file with a second name, and a path through a
// link inside the workspace, which the command could re-point.
func TestDerivedHiddenRefusals(t *testing.T) {
	clearDerivedEnv(t)
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	t.Setenv("HOME", mkdir(t, dir, "home"))
	creds := writeFile(t, dir, "credentials", "secret")
	if err := os.Link(creds, filepath.Join(dir, "credentials.bak")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "hard links") {
		t.Errorf("a derived file with two names: %v, want it refused", err)
	}
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "")
	real := mkdir(t, dir, "gnupg")
	if err := os.Symlink(real, filepath.Join(ws, "gnupg")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GNUPGHOME", filepath.Join(ws, "gnupg"))
	if _, err := newPlan("linux", Config{Workspace: ws}); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "re-point") {
		t.Errorf("a derived path through a link in the workspace: %v, want it refused", err)
	}
}

// TestDerivedRedacted checks that a derived path a redact row serves
// (npm names ~/.npmrc in npm_config_userconfig for its scripts) is left
// to the redaction, and that the same variable naming another file hides
// it.
func TestDerivedRedacted(t *testing.T) {
	clearDerivedEnv(t)
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	npmrc := writeFile(t, home, ".npmrc", "registry=https://registry.example/\n")
	other := writeFile(t, dir, "npmrc", "//registry.example/:_authToken=x\n")
	t.Setenv("npm_config_userconfig", npmrc)
	if got := hiddenPaths(t, Config{Workspace: ws}); slices.Contains(got, npmrc) {
		t.Errorf("%s hidden whole, want it left to its redact row: %q", npmrc, got)
	}
	t.Setenv("npm_config_userconfig", other)
	if got := hiddenPaths(t, Config{Workspace: ws}); !slices.Contains(got, other) {
		t.Errorf("%s not hidden: %q", other, got)
	}
}

// TestDerivedLabelQuoted: a variable's value with a terminal's escapes
// reaches the error quoted, never as the raw bytes: the expansion's
// own, or the refuse stage's over what it gave it.
func TestDerivedLabelQuoted(t *testing.T) {
	for _, v := range []string{"/var/tmp/\x1b[31mred", "rel\x1b[2Jative", "/\x1b]0;t\x07/../x"} {
		res := &resolved{r: &resolver{}, p: &plan{}, strict: true}
		_, err := derivedHidden(res, func(name string) (string, bool) { return v, name == "XDG_CONFIG_HOME" })
		if err == nil {
			err = refuseStage(refuseRows[:], res)
		}
		if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") || !strings.Contains(err.Error(), `\x1b`) {
			t.Errorf("XDG_CONFIG_HOME=%q: %v, want an error with the value quoted", v, err)
		}
	}
}
