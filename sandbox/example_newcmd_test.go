package sandbox_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sandtable/sandtable/sandbox"
)

// Run a command with its writes confined to a workspace, one file in it
// hidden, no network, and the sandbox required whatever the environment
// says. README.md's library example is this function's body, word for word
// (TestMarkdownGoBlocks); TestExampleNewCmdRuns runs it where bwrap works
// and checks what it prints.
func ExampleNewCmd() {
	ctx := context.Background()
	// The workspace is the one writable place, besides a private /tmp.
	ws, err := os.MkdirTemp("", "project")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(ws)
	secret := filepath.Join(ws, ".env")
	if err := os.WriteFile(secret, []byte("API_KEY=hunter2\n"), 0o600); err != nil {
		log.Fatal(err)
	}

	cfg := sandbox.Config{
		Workspace: ws,
		Hidden:    []string{secret}, // besides the default set: ~/.ssh, ~/.aws, ...
		Network:   sandbox.Network{Mode: sandbox.NetworkOff},
		Policy:    sandbox.Required, // ASTRID_SANDBOX_POLICY=off cannot turn it off
	}
	cmd, err := sandbox.NewCmd(ctx, cfg, "sh", "-c", "echo built > out.txt; cat out.txt .env")
	if err != nil {
		log.Fatal(err) // errors.Is(err, sandbox.ErrBadPath): a rejected path; nothing ran
	}
	out, err := cmd.Output()
	// errors.Is(err, sandbox.ErrUnavailable): no usable sandbox here, and the
	// message says how to fix it (the install command, the sysctl);
	// errors.Is(err, exec.ErrNotFound): sh does not exist inside the sandbox.
	fmt.Printf("%q %v\n", out, err)
	// Prints "built\n" <nil>: the hidden .env reads as an empty file.
}

// TestExampleNewCmdRuns runs ExampleNewCmd, which has no Output comment
// because it needs a working sandbox, and checks what it prints: the write
// landed in the workspace and the hidden file read as empty.
func TestExampleNewCmdRuns(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
		skip = t.Fatalf
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		skip("bwrap not on PATH (install bubblewrap; SANDTABLE_REQUIRE_BWRAP=1 makes this a failure): %v", err)
		return
	}
	if _, err := sandbox.Prefix(sandbox.Config{Workspace: t.TempDir(), Policy: sandbox.Required}); err != nil {
		skip("bwrap cannot build a sandbox here (SANDTABLE_REQUIRE_BWRAP=1 makes this a failure): %v", err)
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer func() { os.Stdout = stdout }()
		ExampleNewCmd()
	}()
	w.Close()
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := `"built\n" <nil>` + "\n"; string(got) != want {
		t.Errorf("ExampleNewCmd printed %q, want %q", got, want)
	}
}
