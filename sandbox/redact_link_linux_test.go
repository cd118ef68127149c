package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRedactedFileOtherName: a redacted file is served redacted at its own
// path only, so one with a second hard link (ln ~/.npmrc ~/backup/npmrc)
// is refused (no-redact-second-name), as root and as the unprivileged
// user. The control runs the command built while the file had one name:
// the other name reads it whole, token included, while ~/.npmrc itself is
// served without it.
func TestRedactedFileOtherName(t *testing.T) {
	requireBwrap(t)
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			base := hostDir(t)
			if err := os.Chmod(base, 0o755); err != nil {
				t.Fatal(err)
			}
			p := &escPass{u: u, base: base, home: filepath.Join(base, "home")}
			p.escMkdir(t, p.home, 0o700)
			p.escMkdir(t, filepath.Join(p.home, "backup"), 0o700)
			ws := filepath.Join(base, "ws")
			p.escMkdir(t, ws, 0o755)
			t.Setenv("HOME", p.home)
			u.spawnAs(t)
			secret := escToken("npmrc-link")
			npmrc := filepath.Join(p.home, ".npmrc")
			p.escWrite(t, npmrc, "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken="+secret+"\n", 0o600)
			other := filepath.Join(p.home, "backup", "npmrc")

			cfg := Config{Workspace: ws, NoCache: u.cred != nil, Network: Network{Mode: NetworkHost}}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd, err := Command(ctx, cfg, "sh", "-c", `cat "$0"; echo; cat "$1"`, other, npmrc)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Link(npmrc, other); err != nil {
				t.Fatal(err)
			}
			if _, err := Prefix(cfg); !errors.Is(err, ErrBadPath) || !strings.Contains(err.Error(), "(refuse: no-redact-second-name)") {
				t.Errorf("Prefix = %v, want the redacted file with two names refused by no-redact-second-name", err)
			}
			if u.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
			}
			out, err := cmd.CombinedOutput()
			if strings.Count(string(out), secret) != 1 {
				t.Errorf("control: want the other name to read the token and ~/.npmrc not to (%v):\n%s", err, out)
			}
		})
	}
}
