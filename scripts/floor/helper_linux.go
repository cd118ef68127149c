package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// The least a network helper can cost, as docs/performance.md measures
// it: this program starts itself again (asHelper) in a user and network
// namespace that it owns, as sandbox's network helper does for a caller
// that is not root, and there (runHelper) brings loopback up and executes
// bwrap in place. No plan, proxy, listener or hand-over: what is left is a
// second Go process's start inside new namespaces. FLOOR_HELPER=exec
// starts it again in no new namespace, FLOOR_HELPER=user in a user
// namespace alone (loopback left as it is in both), to tell the parts
// apart.

// helperArg0 marks the second start; helperArg0+"-exec" and
// helperArg0+"-user" the parts.
const helperArg0 = "floor-helper"

// asHelper makes cmd start this program again as the helper (mode "1",
// "exec" or "user"), which then executes cmd's program with cmd's
// arguments.
func asHelper(cmd *exec.Cmd, mode string) {
	if mode != "1" && mode != "exec" && mode != "user" {
		os.Exit(fail(errors.New("FLOOR_HELPER is " + mode + ", not 1, exec or user")))
	}
	arg0 := helperArg0
	if mode != "1" {
		arg0 += "-" + mode
	}
	cmd.Args = append([]string{arg0}, os.Args[1:]...)
	cmd.Path = "/proc/self/exe"
	if mode == "exec" {
		return
	}
	uid, gid := os.Getuid(), os.Getgid()
	maps := func(id int) []syscall.SysProcIDMap {
		return []syscall.SysProcIDMap{{ContainerID: id, HostID: id, Size: 1}}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: maps(uid),
		GidMappings: maps(gid),
		AmbientCaps: []uintptr{unix.CAP_NET_ADMIN},
	}
	if uid == 0 {
		all := []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		cmd.SysProcAttr.UidMappings, cmd.SysProcAttr.GidMappings = all, all
		cmd.SysProcAttr.GidMappingsEnableSetgroups = true
	}
	if mode == "user" {
		cmd.SysProcAttr.Cloneflags &^= syscall.CLONE_NEWNET
		cmd.SysProcAttr.AmbientCaps = nil
	}
}

// runHelper brings this namespace's loopback up, drops the capability it
// needed and executes argv[1:]; it returns only on failure.
func runHelper() int {
	if os.Args[0] != helperArg0 {
		return fail(syscall.Exec(os.Args[1], os.Args[1:], os.Environ()))
	}
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fail(err)
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fail(err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fail(err)
	}
	unix.Close(s)
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fail(err)
	}
	return fail(syscall.Exec(os.Args[1], os.Args[1:], os.Environ()))
}

func fail(err error) int {
	os.Stderr.WriteString("floor: helper: " + err.Error() + "\n")
	return 1
}
