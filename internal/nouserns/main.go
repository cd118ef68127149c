//go:build linux

// Command nouserns runs a command in a simulation of a place without
// unprivileged user namespaces, for the tests of sandtable's diagnosis and
// of its Landlock backend (docs/reduced.md).
//
//	nouserns -env docker [-old-docker] [-docker-caps] -- CMD [ARGS...]
//	nouserns -env hardened [-uid N -gid N] -- CMD [ARGS...]
//
// docker installs a seccomp filter modelled on Docker's default profile
// before it executes CMD: clone with any CLONE_NEW* flag, unshare, setns,
// mount, umount2, pivot_root and the new mount system calls fail with
// EPERM, clone3 with ENOSYS (so that libc and Go fall back to clone, whose
// flags the filter reads); -old-docker also refuses the landlock_* calls
// with EPERM, as profiles before Landlock was allowed did; -docker-caps
// keeps only the capabilities Docker gives a container's root.
//
// hardened makes a user namespace (identity-mapped for uids and gids below
// 65536 when the caller is root, the caller mapped to root otherwise),
// sets user.max_user_namespaces to 0 in it, which no process beneath can
// raise, and executes CMD there: what a kernel with the sysctl at 0 does.
// With -uid and -gid (a root caller only) CMD runs as that user, without
// capabilities, as an unprivileged user on such a kernel would.
//
// Nothing on the host changes: both last as long as CMD and its children.
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hardenedStage marks the process the hardened simulation runs inside its
// user namespace, as os.Args[1].
const hardenedStage = "-nouserns-hardened-stage"

func main() {
	runtime.LockOSThread()
	if len(os.Args) > 1 && os.Args[1] == hardenedStage {
		fail(hardenedInside(os.Args[2:]))
	}
	env := flag.String("env", "", "docker or hardened")
	old := flag.Bool("old-docker", false, "docker: also refuse landlock_* with EPERM")
	caps := flag.Bool("docker-caps", false, "docker: keep only Docker's default capabilities")
	uid := flag.Int("uid", -1, "hardened: run CMD as this uid (root callers)")
	gid := flag.Int("gid", -1, "hardened: and this gid")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fail(errors.New("usage: nouserns -env docker|hardened [-old-docker] [-docker-caps] -- CMD [ARGS...]"))
	}
	switch *env {
	case "docker":
		fail(dockerExec(args, *old, *caps))
	case "hardened":
		if (*uid >= 0) != (*gid >= 0) {
			fail(errors.New("-uid and -gid go together"))
		}
		fail(hardenedStart(args, *uid, *gid))
	}
	fail(fmt.Errorf("-env %q: want docker or hardened", *env))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "nouserns: %v\n", err)
	os.Exit(125)
}

// dockerExec installs the filter on this thread, which execve makes the
// whole process, and executes args.
func dockerExec(args []string, oldDocker, dockerCaps bool) error {
	path, err := exec.LookPath(args[0])
	if err != nil {
		return err
	}
	if dockerCaps {
		if err := keepDockerCaps(); err != nil {
			return err
		}
	}
	filter, err := dockerFilter(oldDocker)
	if err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		// Without CAP_SYS_ADMIN a filter needs no_new_privs.
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
	}
	prog := unix.SockFprog{Len: uint16(len(filter) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&filter[0]))}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, 1 /* SECCOMP_SET_MODE_FILTER */, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return unix.Exec(path, args, os.Environ())
}

// dockerCapNames are the capabilities Docker's default leaves a
// container's root (moby's oci/caps/defaults.go).
var dockerCapNames = []int{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FSETID, unix.CAP_FOWNER,
	unix.CAP_MKNOD, unix.CAP_NET_RAW, unix.CAP_SETGID, unix.CAP_SETUID,
	unix.CAP_SETFCAP, unix.CAP_SETPCAP, unix.CAP_NET_BIND_SERVICE,
	unix.CAP_SYS_CHROOT, unix.CAP_KILL, unix.CAP_AUDIT_WRITE,
}

// keepDockerCaps drops every other capability from the bounding set, so
// a root CMD starts with Docker's set.
func keepDockerCaps() error {
	keep := map[int]bool{}
	for _, c := range dockerCapNames {
		keep[c] = true
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if keep[c] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	return nil
}

// cloneNewFlags are clone's namespace flags, each refused by Docker's
// profile to a container without CAP_SYS_ADMIN.
const cloneNewFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// dockerFilter assembles the filter for this architecture (amd64 or
// arm64): classic BPF over struct seccomp_data.
func dockerFilter(oldDocker bool) ([]byte, error) {
	var audit uint32
	switch runtime.GOARCH {
	case "amd64":
		audit = 0xc000003e
	case "arm64":
		audit = 0xc00000b7
	default:
		return nil, fmt.Errorf("no filter for %s", runtime.GOARCH)
	}
	eperm := []uintptr{unix.SYS_UNSHARE, unix.SYS_SETNS, unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT,
		unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
		unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR}
	if oldDocker {
		eperm = append(eperm, unix.SYS_LANDLOCK_CREATE_RULESET, unix.SYS_LANDLOCK_ADD_RULE, unix.SYS_LANDLOCK_RESTRICT_SELF)
	}
	const (
		ldAbs  = 0x20
		jeq    = 0x15
		jset   = 0x45
		ret    = 0x06
		allow  = 0x7fff0000
		errno  = 0x00050000
		offNr  = 0
		offArc = 4
		offA0  = 16 // low word of args[0]
	)
	type insn struct {
		code   uint16
		jt, jf uint8
		k      uint32
	}
	// Layout: arch check, nr load, one jeq per EPERM call, clone3, clone,
	// allow; then the verdicts, whose offsets are counted from the end.
	var prog []insn
	n := len(eperm)
	// Instructions after the nr load: n eperm jumps, clone3, clone, allow,
	// [clone flags: load, jset, allow], eperm, enosys.
	prog = append(prog, insn{code: ldAbs, k: offArc})
	prog = append(prog, insn{code: jeq, jt: 0, jf: uint8(n + 9), k: audit}) // foreign arch: allow (the last insn)
	prog = append(prog, insn{code: ldAbs, k: offNr})
	for i, nr := range eperm {
		// To the EPERM verdict: remaining eperm jumps, clone3, clone,
		// allow, flag load, jset, allow.
		prog = append(prog, insn{code: jeq, jt: uint8(n - i - 1 + 6), k: uint32(nr)})
	}
	prog = append(prog, insn{code: jeq, jt: 6, k: unix.SYS_CLONE3}) // to ENOSYS
	prog = append(prog, insn{code: jeq, jt: 1, k: unix.SYS_CLONE})  // to the flag check
	prog = append(prog, insn{code: ret, k: allow})                  // any other call
	prog = append(prog, insn{code: ldAbs, k: offA0})                // clone's flags
	prog = append(prog, insn{code: jset, jt: 1, k: cloneNewFlags})  // to EPERM
	prog = append(prog, insn{code: ret, k: allow})                  // clone without them
	prog = append(prog, insn{code: ret, k: errno | uint32(unix.EPERM)})
	prog = append(prog, insn{code: ret, k: errno | uint32(unix.ENOSYS)})
	prog = append(prog, insn{code: ret, k: allow}) // a foreign arch
	out := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		out = binary.LittleEndian.AppendUint16(out, in.code)
		out = append(out, in.jt, in.jf)
		out = binary.LittleEndian.AppendUint32(out, in.k)
	}
	return out, nil
}

// hardenedStart re-executes this program in a new user namespace, where
// hardenedInside sets the limit and executes args.
func hardenedStart(args []string, asUID, asGID int) error {
	uid, gid := os.Getuid(), os.Getgid()
	if asUID >= 0 && (uid != 0 || asUID >= 65536 || asGID >= 65536) {
		return errors.New("hardened: -uid needs a root caller and ids below 65536")
	}
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	if uid == 0 {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}
		attr.GidMappingsEnableSetgroups = true
	} else {
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	}
	stage := []string{hardenedStage, strconv.Itoa(asUID), strconv.Itoa(asGID)}
	cmd := exec.Command("/proc/self/exe", append(stage, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = attr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			os.Exit(128 + int(ws.Signal()))
		}
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("user namespace: %w", err)
	}
	os.Exit(0)
	return nil
}

// hardenedInside runs in the new user namespace: sets its limit to 0,
// becomes the uid and gid its first two words name (-1: stays), and
// executes the rest.
func hardenedInside(args []string) error {
	if len(args) < 2 {
		return errors.New("hardened: no ids")
	}
	uid, err1 := strconv.Atoi(args[0])
	gid, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		return errors.New("hardened: bad ids")
	}
	args = args[2:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errors.New("hardened: no command")
	}
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0); err != nil {
		return fmt.Errorf("hardened: %w", err)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return err
	}
	if uid >= 0 {
		// On this locked thread, which execve makes the process.
		if err := unix.Setgroups(nil); err != nil {
			return fmt.Errorf("hardened: setgroups: %w", err)
		}
		if err := unix.Setresgid(gid, gid, gid); err != nil {
			return fmt.Errorf("hardened: setresgid: %w", err)
		}
		if err := unix.Setresuid(uid, uid, uid); err != nil {
			return fmt.Errorf("hardened: setresuid: %w", err)
		}
	}
	return unix.Exec(path, args, os.Environ())
}
