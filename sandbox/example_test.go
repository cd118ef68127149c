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
	fmt.Println(w.Program, w.Args[0], w.Args[2])
	// The rules before the file grants, which name this machine's paths.
	head, _, _ := strings.Cut(w.Profile, "(allow file-read*\n")
	fmt.Print(strings.ReplaceAll(head, ws, "$WORKSPACE"))
	// Output:
	// /usr/bin/sandbox-exec -p --
	// (version 1)
	// (deny default)
	// (allow process-exec*)
	// (allow process-fork)
	// (allow signal (target same-sandbox))
	// (allow process-info* (target same-sandbox))
	// (allow mach-priv-task-port (target same-sandbox))
	// (allow network-outbound (remote unix-socket (path-literal "/private/var/run/syslog")))
	// (allow sysctl-read
	//     (sysctl-name "hw.activecpu")
	//     (sysctl-name "hw.byteorder")
	//     (sysctl-name "hw.cachelinesize")
	//     (sysctl-name "hw.cpufamily")
	//     (sysctl-name "hw.cputype")
	//     (sysctl-name "hw.l1dcachesize")
	//     (sysctl-name "hw.l2cachesize")
	//     (sysctl-name "hw.logicalcpu")
	//     (sysctl-name "hw.logicalcpu_max")
	//     (sysctl-name "hw.machine")
	//     (sysctl-name "hw.memsize")
	//     (sysctl-name "hw.model")
	//     (sysctl-name "hw.ncpu")
	//     (sysctl-name "hw.nperflevels")
	//     (sysctl-name "hw.pagesize")
	//     (sysctl-name "hw.physicalcpu")
	//     (sysctl-name "hw.physicalcpu_max")
	//     (sysctl-name "kern.argmax")
	//     (sysctl-name "kern.hostname")
	//     (sysctl-name "kern.maxfilesperproc")
	//     (sysctl-name "kern.maxproc")
	//     (sysctl-name "kern.osproductversion")
	//     (sysctl-name "kern.osrelease")
	//     (sysctl-name "kern.ostype")
	//     (sysctl-name "kern.osvariant_status")
	//     (sysctl-name "kern.osversion")
	//     (sysctl-name "kern.secure_kernel")
	//     (sysctl-name "kern.usrstack64")
	//     (sysctl-name "kern.version")
	//     (sysctl-name "machdep.cpu.brand_string")
	//     (sysctl-name "sysctl.proc_cputype")
	//     (sysctl-name "vm.loadavg")
	//     (sysctl-name-prefix "hw.optional.")
	//     (sysctl-name-prefix "hw.perflevel"))
	// (allow ipc-posix-sem)
	// (allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
	// (allow mach-lookup (global-name "com.apple.system.opendirectoryd.membership"))
	// (allow mach-lookup (global-name "com.apple.logd"))
	// (allow mach-lookup (global-name "com.apple.system.logger"))
	// (allow mach-lookup (global-name "com.apple.system.notification_center"))
	// (allow mach-lookup (global-name "com.apple.cfprefsd.daemon"))
	// (allow mach-lookup (global-name "com.apple.cfprefsd.agent"))
	// (allow mach-lookup (global-name "com.apple.bsd.dirhelper"))
	// (allow mach-lookup (global-name "com.apple.PowerManagement.control"))
	// (allow user-preference-read (preference-domain "kCFPreferencesAnyApplication"))
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
