// Package landlock is the mechanism of sandtable's reduced backend: the
// Landlock ruleset that stands in for bwrap's mounts where user
// namespaces cannot be made (docs/reduced.md).
//
// The ruleset is computed (Plan) from what each tree of the file system
// may do, most specific path first, as pure computation over a directory
// lister, so it is tested and benchmarked on any OS; Apply, on Linux
// only, turns a planned ruleset into landlock_create_ruleset,
// landlock_add_rule and landlock_restrict_self on the calling thread.
// The only dependency is golang.org/x/sys.
package landlock

import (
	"fmt"
	"strings"
)

// AccessFS is a set of Landlock file system rights (LANDLOCK_ACCESS_FS_*).
type AccessFS uint64

// The file system rights, as the kernel numbers them.
const (
	Execute     AccessFS = 1 << iota // ABI 1
	WriteFile                        // ABI 1
	ReadFile                         // ABI 1
	ReadDir                          // ABI 1
	RemoveDir                        // ABI 1
	RemoveFile                       // ABI 1
	MakeChar                         // ABI 1
	MakeDir                          // ABI 1
	MakeReg                          // ABI 1
	MakeSock                         // ABI 1
	MakeFifo                         // ABI 1
	MakeBlock                        // ABI 1
	MakeSym                          // ABI 1
	Refer                            // ABI 2: link or rename across directories
	Truncate                         // ABI 3
	IoctlDev                         // ABI 5
	ResolveUnix                      // ABI 9: connect to a named unix socket
)

// FileRights are the rights a rule on a file that is not a directory may
// carry; the others are a directory's (the kernel refuses them, EINVAL,
// on anything else).
const FileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev | ResolveUnix

// AccessNet is a set of Landlock network rights (LANDLOCK_ACCESS_NET_*).
type AccessNet uint64

// The network rights.
const (
	BindTCP    AccessNet = 1 << iota // ABI 4
	ConnectTCP                       // ABI 4
)

// Scope is a set of Landlock scopes (LANDLOCK_SCOPE_*): what a process of
// the domain cannot reach outside it.
type Scope uint64

// The scopes.
const (
	ScopeAbstractUnix Scope = 1 << iota // ABI 6: abstract unix sockets made outside
	ScopeSignal                         // ABI 6: processes outside, by signal
)

// fsNames and the others are the rights' names as rules/linux.yaml spells
// them, in bit order.
var (
	fsNames = []string{"execute", "write-file", "read-file", "read-dir", "remove-dir", "remove-file",
		"make-char", "make-dir", "make-reg", "make-sock", "make-fifo", "make-block", "make-sym",
		"refer", "truncate", "ioctl-dev", "resolve-unix"}
	netNames   = []string{"bind-tcp", "connect-tcp"}
	scopeNames = []string{"abstract-unix-socket", "signal"}
)

// fsABI is the first ABI that has each right, in bit order.
var fsABI = []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 5, 9}

// FSAt is every file system right ABI abi has.
func FSAt(abi int) AccessFS {
	var s AccessFS
	for i, v := range fsABI {
		if abi >= v {
			s |= 1 << i
		}
	}
	return s
}

// NetAt is every network right ABI abi has.
func NetAt(abi int) AccessNet {
	if abi >= 4 {
		return BindTCP | ConnectTCP
	}
	return 0
}

// ScopesAt is every scope ABI abi has.
func ScopesAt(abi int) Scope {
	if abi >= 6 {
		return ScopeAbstractUnix | ScopeSignal
	}
	return 0
}

func names(bits uint64, all []string) string {
	var out []string
	for i, n := range all {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	if rest := bits &^ (1<<len(all) - 1); rest != 0 {
		out = append(out, fmt.Sprintf("%#x", rest))
	}
	return strings.Join(out, ",")
}

func parse(s string, all []string) (uint64, error) {
	var bits uint64
	for _, w := range strings.Split(s, ",") {
		if w == "" {
			continue
		}
		i := indexOf(all, w)
		if i < 0 {
			return 0, fmt.Errorf("landlock: unknown right %q", w)
		}
		bits |= 1 << i
	}
	return bits, nil
}

func indexOf(all []string, w string) int {
	for i, n := range all {
		if n == w {
			return i
		}
	}
	return -1
}

func (a AccessFS) String() string  { return names(uint64(a), fsNames) }
func (a AccessNet) String() string { return names(uint64(a), netNames) }
func (s Scope) String() string     { return names(uint64(s), scopeNames) }

// ParseFS reads a comma-separated list of file system right names.
func ParseFS(s string) (AccessFS, error) { b, err := parse(s, fsNames); return AccessFS(b), err }

// ParseNet reads a comma-separated list of network right names.
func ParseNet(s string) (AccessNet, error) { b, err := parse(s, netNames); return AccessNet(b), err }

// ParseScope reads a comma-separated list of scope names.
func ParseScope(s string) (Scope, error) { b, err := parse(s, scopeNames); return Scope(b), err }

// FSNames, NetNames and ScopeNames are the names the Parse functions
// accept, in bit order.
func FSNames() []string    { return append([]string(nil), fsNames...) }
func NetNames() []string   { return append([]string(nil), netNames...) }
func ScopeNames() []string { return append([]string(nil), scopeNames...) }
