package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

// Render the macOS profile on any OS: the builders are pure, only the path
// facts come from this machine.
func ExamplePrefixFor() {
	dir, err := os.MkdirTemp("", "workspace")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ws, _ := filepath.EvalSymlinks(dir) // the profile names the real path

	// NoCache: the caches' grants name directories under this machine's
	// $HOME too.
	w, err := sandbox.PrefixFor("darwin", sandbox.Config{Workspace: ws, Network: sandbox.Network{Mode: sandbox.NetworkOff}, NoCache: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(w.Program, w.Args[0])
	// Everything before the per-path denies, which depend on what exists
	// under this machine's $HOME.
	head, _, _ := strings.Cut(w.Profile, "(deny file-read*")
	fmt.Print(strings.ReplaceAll(head, ws, "$WORKSPACE"))
	// Output:
	// /usr/bin/sandbox-exec -p
	// (version 1)
	// (deny default)
	// (allow process-exec*)
	// (allow process-fork)
	// (allow sysctl-read)
	// (allow ipc-posix-shm)
	// (allow mach*)
	// (allow file-read*
	//     (subpath "/usr")
	//     (subpath "/bin")
	//     (subpath "/sbin")
	//     (subpath "/System")
	//     (subpath "/Library")
	//     (subpath "/opt")
	//     (subpath "/dev")
	//     (subpath "$WORKSPACE")
	//     (subpath "/private/tmp")
	//     (subpath "/private/var/folders")
	//     (literal "/"))
	// (allow file-write*
	//     (subpath "$WORKSPACE")
	//     (subpath "/private/tmp")
	//     (subpath "/private/var/folders")
	//     (literal "/dev/null"))
}

// Paths are checked before anything is looked up or spawned, and the error
// names the field and the path.
func ExamplePrefixFor_badPath() {
	_, err := sandbox.PrefixFor("linux", sandbox.Config{Workspace: "/srv/app", Hidden: []string{"/a/../b"}})
	fmt.Println(err)
	fmt.Println(errors.Is(err, sandbox.ErrBadPath))
	// Output:
	// sandbox: hidden path "/a/../b": not clean (want "/b")
	// true
}

func ExampleParsePolicy() {
	p, err := sandbox.ParsePolicy("OFF")
	fmt.Println(p, err)

	// A typo never turns the sandbox off.
	p, err = sandbox.ParsePolicy("of")
	fmt.Println(p, errors.Is(err, sandbox.ErrBadPolicy))
	fmt.Println(err)
	// Output:
	// off <nil>
	// required true
	// sandbox: policy "of": bad policy (accepted: required, off)
}

// Run a build step with its writes confined to the project, no network and
// one extra secret hidden. The policy is left to ASTRID_SANDBOX_POLICY:
// required unless the operator set it to off, so a machine without a
// working sandbox gets an error that says how to fix it.
func Example() {
	cmd, err := sandbox.Command(context.Background(), sandbox.Config{
		Workspace: "/home/me/project",
		Hidden:    []string{"/home/me/project/.env"},
		Network:   sandbox.Network{Mode: sandbox.NetworkOff},
	}, "make", "test")
	if errors.Is(err, sandbox.ErrUnavailable) {
		log.Fatal(err) // e.g. "...; install it: sudo apt-get install bubblewrap; ..."
	}
	if err != nil {
		log.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}
