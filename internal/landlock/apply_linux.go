package landlock

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rulesetAttr is struct landlock_ruleset_attr up to scoped (ABI 6); a
// kernel that knows less accepts it with the fields it lacks zero.
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr, packed: the kernel
// reads its first 12 bytes.
type pathBeneathAttr struct {
	allowed uint64
	fd      int32
	_       [4]byte
}

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowed, port uint64
}

const ruleNetPort = 2 // LANDLOCK_RULE_NET_PORT

var abi = sync.OnceValue(func() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
})

// ABI is this kernel's Landlock ABI version, 0 when there is none for
// this process: no Landlock (ENOSYS), Landlock disabled (EOPNOTSUPP), or
// its calls refused by a seccomp filter (EPERM, older container
// profiles).
func ABI() int { return abi() }

// Apply puts the calling thread in a Landlock domain that enforces rs,
// and sets its no_new_privs, which an unprivileged thread needs for it.
// Both hold for the thread and every process it starts from now on; the
// caller locks the thread to its goroutine first and never unlocks it.
// A rule on a path that is gone, or that this thread may not reach, is
// skipped unless it is a Must rule; one on a path that is now a symlink
// is skipped (a symlink's target decides); a directory's rights on what
// is now a file are cut to a file's.
func (rs *Ruleset) Apply() error {
	p, err := rs.Prepare()
	if err != nil {
		return err
	}
	return p.Restrict()
}

// Prepared is a ruleset made and filled, not yet enforced: what a thread
// opens with its privileges before it drops them.
type Prepared struct{ fd int }

// Prepare makes the ruleset and adds its rules (opening every path), so
// that the thread can then drop what it may open and Restrict.
func (rs *Ruleset) Prepare() (*Prepared, error) {
	fd, err := rs.build()
	if err != nil {
		return nil, err
	}
	return &Prepared{fd: fd}, nil
}

// Restrict sets no_new_privs and enforces the ruleset on the calling
// thread, then closes it.
func (p *Prepared) Restrict() error {
	defer unix.Close(p.fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("landlock: no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(p.fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict self: %w", errno)
	}
	return nil
}

// build creates the ruleset and adds its rules; the caller closes it.
func (rs *Ruleset) build() (int, error) {
	if rs.ABI < 1 || ABI() < 1 {
		return -1, fmt.Errorf("landlock: apply: %w", ErrNoLandlock)
	}
	attr := rulesetAttr{handledFS: uint64(rs.HandledFS), handledNet: uint64(rs.HandledNet), scoped: uint64(rs.Scoped)}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock: create ruleset (%s; net %s; scoped %s): %w", rs.HandledFS, rs.HandledNet, rs.Scoped, errno)
	}
	ruleset := int(fd)
	fail := func(err error) (int, error) {
		unix.Close(ruleset)
		return -1, err
	}
	for _, r := range rs.Rules {
		if err := addPath(ruleset, r, rs.HandledFS); err != nil {
			return fail(err)
		}
	}
	for _, p := range rs.Connect {
		if err := addPort(ruleset, ConnectTCP, p); err != nil {
			return fail(err)
		}
	}
	for _, p := range rs.Bind {
		if err := addPort(ruleset, BindTCP, p); err != nil {
			return fail(err)
		}
	}
	return ruleset, nil
}

func addPath(ruleset int, r Rule, handled AccessFS) error {
	fd, err := unix.Open(r.Path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if !r.Must && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES)) {
			return nil
		}
		return fmt.Errorf("landlock: add rule for %s: %w", r.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock: add rule for %s: %w", r.Path, err)
	}
	access := r.Access & handled
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		if r.Must {
			return fmt.Errorf("landlock: add rule for %s: now a symlink", r.Path)
		}
		return nil
	case unix.S_IFDIR:
	default:
		access &= FileRights
	}
	if access == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowed: uint64(access), fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: add rule for %s (%s): %w", r.Path, access, errno)
	}
	return nil
}

func addPort(ruleset int, a AccessNet, port uint16) error {
	attr := netPortAttr{allowed: uint64(a), port: uint64(port)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), ruleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: add rule for port %d (%s): %w", port, a, errno)
	}
	return nil
}
