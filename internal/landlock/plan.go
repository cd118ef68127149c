package landlock

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Grant says what the tree at Path may do. For any path, the grant with
// the longest Path that is the path or one of its ancestors decides;
// Plan turns grants into rules, which the kernel only adds up: "/" may
// read, "/home/u/.ssh" only list, is the complement of .ssh among the
// entries of /, /home and /home/u (rules on every sibling of each of
// .ssh's ancestors), since a rule on /home/u would reach .ssh too. Every
// directory above a grant gets on itself, and on entries made in it
// later, only what the whole tree below may do: a grant on a file that
// leaves out a directory's right (read-dir for /dev/null) takes it from
// each directory above.
type Grant struct {
	Path   string
	Access AccessFS
	// Must is a path that must exist (a writable root): Plan and Apply
	// fail without it. Any other missing path has nothing to grant.
	Must bool
}

// Spec is what the ruleset must enforce.
type Spec struct {
	// Handled are the file system rights the ruleset restricts: a right
	// outside it is allowed everywhere.
	Handled AccessFS
	// Grants are what each tree may do; a path no grant covers may do
	// nothing Handled names.
	Grants []Grant
	// HandledNet are the network rights it restricts; Connect and Bind
	// the TCP ports it allows them on (any address).
	HandledNet    AccessNet
	Connect, Bind []uint16
	// Scoped are the scopes the domain gets.
	Scoped Scope
}

// Kind is what a path is, without following a final symlink.
type Kind uint8

// The kinds.
const (
	KindMissing Kind = iota
	KindDir
	KindFile // anything but a directory or a symlink
	KindSymlink
)

// Entry is one directory entry.
type Entry struct {
	Name string
	Kind Kind
}

// FS is what Plan reads of the file system: the kind of a path (lstat)
// and a directory's entries. A missing path is KindMissing and a nil
// error; ReadDir of a missing directory returns an error wrapping
// fs.ErrNotExist.
type FS interface {
	Lstat(path string) (Kind, error)
	ReadDir(dir string) ([]Entry, error)
}

// Rule is one landlock_add_rule: the tree at Path (a directory) or the
// file at Path gets Access.
type Rule struct {
	Path   string
	Access AccessFS
	Dir    bool
	Must   bool
}

// Missing is one part of a Spec this ABI cannot enforce, by the name of
// the right or scope (rules/linux.yaml's words) and the first ABI that
// has it.
type Missing struct {
	Name string
	ABI  int
}

// Ruleset is a planned ruleset for one ABI.
type Ruleset struct {
	ABI        int
	HandledFS  AccessFS
	HandledNet AccessNet
	Scoped     Scope
	Rules      []Rule
	// Connect and Bind are the TCP ports allowed; empty with the right
	// handled, nothing is.
	Connect, Bind []uint16
	// Lost is what the Spec asked for that the ABI lacks, in bit order:
	// the ruleset is applied without it.
	Lost []Missing
}

// ErrNoLandlock is a kernel without Landlock, with it disabled, or a
// seccomp filter (an older Docker profile) refusing its system calls.
var ErrNoLandlock = errors.New("landlock unavailable")

// node is one path of the grants' trie.
type node struct {
	name     string
	path     string
	children map[string]*node
	order    []string // children's names in the order first granted
	granted  bool
	kind     Kind
	access   AccessFS // the grant's, if granted
	must     bool     // a Must grant here or below
	desired  AccessFS // what the path itself may do
	sub      AccessFS // what every path of the tree may at least do
}

// Plan computes the ruleset that enforces spec on ABI abi, reading fsys
// for the kinds of the granted paths and the entries of each directory
// above a grant that restricts. It lists only those directories.
func Plan(spec Spec, abi int, fsys FS) (*Ruleset, error) {
	if abi < 1 {
		return nil, fmt.Errorf("landlock: plan: %w", ErrNoLandlock)
	}
	rs := &Ruleset{
		ABI:        abi,
		HandledFS:  spec.Handled & FSAt(abi),
		HandledNet: spec.HandledNet & NetAt(abi),
		Scoped:     spec.Scoped & ScopesAt(abi),
	}
	rs.Lost = lost(uint64(spec.Handled&^rs.HandledFS), fsNames, func(i int) int { return fsABI[i] })
	rs.Lost = append(rs.Lost, lost(uint64(spec.HandledNet&^rs.HandledNet), netNames, func(int) int { return 4 })...)
	rs.Lost = append(rs.Lost, lost(uint64(spec.Scoped&^rs.Scoped), scopeNames, func(int) int { return 6 })...)
	if rs.HandledNet&ConnectTCP != 0 {
		rs.Connect = slices.Clone(spec.Connect)
	}
	if rs.HandledNet&BindTCP != 0 {
		rs.Bind = slices.Clone(spec.Bind)
	}
	if rs.HandledFS == 0 {
		return rs, nil
	}
	root, err := trie(spec.Grants, rs.HandledFS)
	if err != nil {
		return nil, err
	}
	if err := root.fill(fsys, 0); err != nil {
		return nil, err
	}
	p := planner{fsys: fsys, rs: rs}
	if err := p.place(root, 0); err != nil {
		return nil, err
	}
	return rs, nil
}

func lost(bits uint64, all []string, abi func(int) int) []Missing {
	var out []Missing
	for i, n := range all {
		if bits&(1<<i) != 0 {
			out = append(out, Missing{Name: n, ABI: abi(i)})
		}
	}
	return out
}

// trie builds the grants' trie, with every access masked to handled. The
// same path granted twice gets what both allow.
func trie(grants []Grant, handled AccessFS) (*node, error) {
	root := &node{name: "/", path: "/"}
	for _, g := range grants {
		if !path.IsAbs(g.Path) || path.Clean(g.Path) != g.Path {
			return nil, fmt.Errorf("landlock: plan: grant %q: not a clean absolute path", g.Path)
		}
		n := root
		if g.Path != "/" {
			for _, name := range strings.Split(g.Path[1:], "/") {
				c := n.children[name]
				if c == nil {
					if n.children == nil {
						n.children = map[string]*node{}
					}
					c = &node{name: name, path: path.Join(n.path, name)}
					n.children[name] = c
					n.order = append(n.order, name)
				}
				n = c
			}
		}
		a := g.Access & handled
		if n.granted {
			a &= n.access
		}
		n.granted, n.access = true, a
		if g.Must {
			n.must = true
		}
	}
	return root, nil
}

// fill reads each node's kind and sets desired and sub down the trie, and
// must up it.
func (n *node) fill(fsys FS, inherited AccessFS) error {
	kind, err := fsys.Lstat(n.path)
	if err != nil {
		return fmt.Errorf("landlock: plan: %w", err)
	}
	n.kind = kind
	n.desired = inherited
	if n.granted {
		n.desired = n.access
	}
	n.sub = n.desired
	for _, name := range n.order {
		c := n.children[name]
		if err := c.fill(fsys, n.desired); err != nil {
			return err
		}
		n.sub &= c.sub
		if c.must {
			n.must = true
		}
	}
	return nil
}

type planner struct {
	fsys FS
	rs   *Ruleset
}

// place adds the rules for n's tree, which its ancestors' rules already
// give inh: what all of the tree may do on n itself, and, when a grant
// below restricts, the rest on each entry of n that leads to no grant.
// New entries of such an n get only what n's rule gives.
func (p *planner) place(n *node, inh AccessFS) error {
	switch n.kind {
	case KindMissing:
		if n.must {
			return fmt.Errorf("landlock: plan: %s: %w", n.path, fs.ErrNotExist)
		}
		return nil
	case KindSymlink:
		// What a link reaches is decided at its target; a grant names
		// resolved paths, so one here changed since they were resolved.
		if n.granted || n.must {
			return fmt.Errorf("landlock: plan: %s is a symlink (want the resolved path)", n.path)
		}
		return nil
	case KindFile:
		if len(n.children) > 0 {
			// A grant below a file names nothing that exists.
			if n.must {
				return fmt.Errorf("landlock: plan: %s: not a directory", n.path)
			}
		}
		p.add(n.path, (n.desired&^inh)&FileRights, false, n.must)
		return nil
	}
	add := n.sub &^ inh & n.desired
	p.add(n.path, add, true, n.must)
	have := inh | add
	if len(n.children) == 0 {
		return nil
	}
	if have == n.desired {
		// Nothing below asks for less than n: only the grants that ask
		// for more need rules.
		for _, name := range n.order {
			if err := p.place(n.children[name], have); err != nil {
				return err
			}
		}
		return nil
	}
	entries, err := p.fsys.ReadDir(n.path)
	if err != nil {
		return fmt.Errorf("landlock: plan: %w", err)
	}
	rest := n.desired &^ have
	done := make(map[string]bool, len(n.children))
	for _, e := range entries {
		if c := n.children[e.Name]; c != nil {
			done[e.Name] = true
			if err := p.place(c, have); err != nil {
				return err
			}
			continue
		}
		full := path.Join(n.path, e.Name)
		switch e.Kind {
		case KindDir:
			p.add(full, rest, true, false)
		case KindFile:
			p.add(full, rest&FileRights, false, false)
		}
	}
	for _, name := range n.order {
		if !done[name] {
			if err := p.place(n.children[name], have); err != nil { // missing, or a must grant: says so
				return err
			}
		}
	}
	return nil
}

func (p *planner) add(path string, a AccessFS, dir, must bool) {
	if a == 0 {
		return
	}
	p.rs.Rules = append(p.rs.Rules, Rule{Path: path, Access: a, Dir: dir, Must: must})
}
