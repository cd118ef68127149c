package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBadInputsRefused: inputs that used to run somewhere else than asked
// or fail with another tool's words get one line naming the flag and what
// to write, exit 2, and nothing spawned (each command would create a file
// in the workspace).
func TestBadInputsRefused(t *testing.T) {
	e := newEnv(t)
	spawn := []string{"--", "sh", "-c", "touch spawned"}
	many := filepath.Join(filepath.Dir(e.ws), "many")
	if err := os.Mkdir(many, 0o755); err != nil {
		t.Fatal(err)
	}
	var hides []string
	for i := range 3000 {
		f := filepath.Join(many, "f"+strconv.Itoa(i))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		hides = append(hides, "--hide", f)
	}
	for _, c := range []struct {
		name       string
		args       []string
		want, also string
	}{
		{"empty workspace", []string{"--workspace", ""}, "sandtable run: --workspace: empty (want a directory; leave the flag out for the current directory)", ""},
		{"empty policy", []string{"--policy", ""}, `sandtable run: --policy: sandbox: policy "": bad policy`, ""},
		// The count depends on this machine's host sockets.
		{"3000 hidden files", hides, "sandtable run: sandbox: bwrap argv: ", "over the 9000 bwrap takes: "},
		{"memory 1", []string{"--memory", "1"}, "sandtable run: sandbox: limits: Memory 1 (--memory): below the 16MiB", "--memory 16MiB"},
		{"memory 64K", []string{"--memory", "64K"}, "sandtable run: sandbox: limits: Memory 65536 (--memory): below the 16MiB", "--memory 16MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(filepath.Join(e.ws, "spawned"))
			r := e.run(t, "", append(append([]string{"run"}, c.args...), spawn...)...)
			if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, c.want) || !strings.Contains(r.stderr, c.also) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line starting %q, with %q", r.code, r.stdout, r.stderr, c.want, c.also)
			}
			if _, err := os.Stat(filepath.Join(e.ws, "spawned")); err == nil {
				t.Error("a command was spawned")
			}
		})
	}
}
