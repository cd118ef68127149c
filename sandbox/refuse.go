package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/sandtable/sandtable/internal/casefold"
)

// The refuse stage. The refuse section of rules/common.yaml lists every
// configuration the runtime refuses; zz_generated.go compiles it into
// refuseRows, in table order. The resolve stage describes each input it
// resolved (a path, a loader variable's entry, a git file it read) in a
// refuseSubject; refuseStage then runs the rows, first to last, each
// against every input it names, and the first refusal names its row: when
// two rows refuse, the one first in the table wins (docs/POLICY.md,
// "Refused configurations"). Each check kind is one function below; a
// check that lacks what it looks at (no file info, no pattern) passes.

// refuseInput is one input of the refuse section, as a bit.
type refuseInput uint32

// refuseCheckKind is one check of the refuse section's vocabulary.
type refuseCheckKind uint8

// refuseRow is one row of the refuse section; bound is a bounded check's
// number (the table's bound column), 0 for the others.
type refuseRow struct {
	id     string
	check  refuseCheckKind
	inputs refuseInput
	bound  uint64
}

// refuseSubject is one input as the checks see it; the zero value of a
// field is "not known", and the checks that need it pass. The resolve
// stage fills what it learnt of the input; refuseStage points it at what
// is the same for every input (refuseCtx).
type refuseSubject struct {
	*refuseCtx
	in    refuseInput
	field string // the Config field or source, for the error
	// path is the input as the caller spelled it; under, when set, is the
	// home it lies under (path is then relative), so the spelling is built
	// only for an error.
	path  string
	under string
	// as, when set, is the value the spelled checks look at, path being a
	// label for it (a derived path's "$env:NAME=VALUE"; a loader entry
	// as a path).
	as string
	// spelled: check path itself, as the caller wrote it (is-root,
	// is-workspace). resolved: check real, where path resolves.
	spelled, resolved bool
	real              string
	// fi is what the input is: followed for a hidden path (second-name)
	// and a socket grant (not-socket), its own lstat for a git directory,
	// a protected path and a cache directory (is-symlink,
	// foreign-owner); nil when missing.
	fi  fs.FileInfo
	err error // the resolve's error, for unreadable-in-writable
	// via are the links the input's own resolve went through, for
	// through-writable-link; nil for an input that was not resolved.
	via []string
	// loader is a loader variable's name, for loader-writable (path is
	// the entry).
	loader string
	// size and max are a file's size as read and its reader's bound, for
	// oversized.
	size, max int64
	// pattern is the path as a macOS profile pattern must match it, for
	// holds-caret and unfoldable; empty where no pattern is made. folds,
	// when set, is the part of it the pattern folds (a protected path's,
	// below its writable root), for unfoldable; else the whole.
	pattern, folds string
	// envValue is an environment variable's value as set, for
	// not-clean-absolute.
	envValue string
	// amount is what too-many and below-bound compare with the row's
	// bound: bwrap's argument count, the memory limit in bytes; of an
	// argv, cmd are the command's own (its name and arguments), mounts
	// the sandbox's mounts.
	amount      uint64
	cmd, mounts int
	// room is the file system an input lies on, for little-space and
	// few-inodes; nil where it was not looked at.
	room *fsSpace
}

// fsSpace is what statfs(2) says of a file system: below dir, the space
// and inodes free to an unprivileged writer (inodes 0 of 0 when it keeps
// no count).
type fsSpace struct {
	dir                 string
	free, inodes, files uint64
}

// refuseCtx is what the checks read that is the same for every input of
// one refuse stage.
type refuseCtx struct {
	// guard is set where the sandbox guards against its command (every
	// policy but Off): only is-root and is-workspace run without it.
	guard bool
	// r is the spawn's resolver, whose memo within reads, and roots are
	// the writable roots; none under Off.
	r     *resolver
	roots []string
	// ws is the workspace resolved, wsAs as spelled (is-workspace).
	ws, wsAs string
	// homes are the home directories resolved (where a missing one would
	// be), for holds-home.
	homes []string
	// cacheRoots are the plan's cache roots, for in-cache-root.
	cacheRoots []pathFact
}

// refuseStage runs rows (refuseRows; a test's copy lacks one) against
// res.inputs: row by row in table order, each row against every input it
// names in the order they were resolved. The first refusal is returned,
// naming its row; after the rows, a resolve error res kept for later.
func refuseStage(rows []refuseRow, res *resolved) error {
	c := &refuseCtx{guard: res.strict, r: res.r, roots: res.p.roots, ws: res.p.workspace, wsAs: res.wsAs, homes: res.realHomes,
		cacheRoots: res.p.cacheRoots}
	for i := range res.inputs {
		res.inputs[i].refuseCtx = c
	}
	if err := refuseInputs(rows, res.inputs); err != nil {
		return err
	}
	return res.later
}

// refuseInputs is refuseStage's loop over inputs whose context is set.
func refuseInputs(rows []refuseRow, inputs []refuseSubject) error {
	for i := range rows {
		row := &rows[i]
		for j := range inputs {
			s := &inputs[j]
			if row.inputs&s.in == 0 {
				continue
			}
			if err := s.run(row); err != nil {
				if pe, ok := err.(*pathError); ok {
					pe.problem += " (refuse: " + row.id + ")"
					pe.rule = row.id
					return pe
				}
				return &refusedError{rule: row.id, err: fmt.Errorf("%w (refuse: %s)", err, row.id)}
			}
		}
	}
	return nil
}

// run applies one row's check.
func (s *refuseSubject) run(row *refuseRow) error {
	switch row.check {
	case refuseCheckThroughWritableLink:
		return s.throughWritableLink()
	case refuseCheckUnreadableInWritable:
		return s.unreadableInWritable()
	case refuseCheckIsRoot:
		return s.isRoot()
	case refuseCheckIsWorkspace:
		return s.isWorkspace()
	case refuseCheckHoldsHome:
		return s.holdsHome()
	case refuseCheckSecondName:
		return s.secondName()
	case refuseCheckLoaderWritable:
		return s.loaderWritable()
	case refuseCheckOversized:
		return s.oversized()
	case refuseCheckIsSymlink:
		return s.isSymlink()
	case refuseCheckForeignOwner:
		return s.foreignOwner()
	case refuseCheckHoldsCaret:
		return s.holdsCaret()
	case refuseCheckUnfoldable:
		return s.unfoldable()
	case refuseCheckNotCleanAbsolute:
		return s.notCleanAbsolute()
	case refuseCheckNotSocket:
		return s.notSocket()
	case refuseCheckInCacheRoot:
		return s.inCacheRoot()
	case refuseCheckTooMany:
		return s.tooMany(row.bound)
	case refuseCheckBelowBound:
		return s.belowBound(row.bound)
	case refuseCheckLittleSpace:
		return s.littleSpace(row.bound)
	case refuseCheckFewInodes:
		return s.fewInodes(row.bound)
	}
	return fmt.Errorf("sandbox: refuse: unknown check %d: %w", row.check, ErrBadPolicy)
}

// spelling is the input as the caller spelled it.
func (s *refuseSubject) spelling() string {
	if s.under != "" {
		return s.under + "/" + s.path
	}
	return s.path
}

// throughWritableLink refuses a path whose resolve went through a
// symlink in a writable root: a sandboxed command can re-point it between
// runs, and the next run would grant, or hide, whatever it names by then.
func (s *refuseSubject) throughWritableLink() error {
	if !s.guard || len(s.roots) == 0 || s.r == nil || len(s.via) == 0 {
		return nil
	}
	link := s.r.plantableIn(s.via, s.roots)
	if link == "" {
		return nil
	}
	want := "the link's target named itself"
	switch s.field {
	case "home":
		want = "HOME set to the link's target"
	case "default hidden path":
		want = "the link replaced by what it points to"
	}
	return badPath(s.field, s.spelling(), "resolves through the symlink "+strconv.Quote(link)+
		", which a sandboxed command can write, and so re-point between runs (want "+want+")")
}

// unreadableInWritable refuses a hidden path (or the home that holds the
// default ones) that this process may not look at, s.err being its
// lookup's EACCES, when it lies where the sandbox can write: the command
// cannot see it either, for now, but it can chmod its way back in.
func (s *refuseSubject) unreadableInWritable() error {
	if !s.guard || len(s.roots) == 0 || !errors.Is(s.err, fs.ErrPermission) || !s.r.within(s.real, s.roots) {
		return nil
	}
	return badPath(s.field, s.spelling(), "cannot be looked at (permission denied) where a sandboxed command can write, "+
		"so it could make it readable again (want its directory's permissions restored)")
}

// isRoot refuses the root directory as a workspace, a write path, a
// hidden path or a home, by its spelling or where it resolves.
func (s *refuseSubject) isRoot() error {
	var spelled bool
	as := s.path
	if s.as != "" {
		as = s.as
	}
	switch {
	case s.spelled && as == "/":
		spelled = true
	case s.resolved && s.real == "/" && s.path != "/":
	default:
		return nil
	}
	var problem string
	switch s.in {
	case refuseWorkspace:
		problem = "resolves to the root: it would make everything writable"
		if spelled {
			problem = "the root cannot be the workspace: it would make everything writable"
		}
	case refuseWritePath:
		problem = "resolves to the root, which cannot be writable"
		if spelled {
			problem = "the root cannot be writable"
		}
	case refuseHiddenPath:
		problem = "resolves to the root"
		if spelled {
			problem = "the root cannot be hidden"
		}
	case refuseDerivedHidden:
		problem = "resolves to the root, which cannot be hidden"
		if spelled {
			problem = "names the root, which cannot be hidden (want the variable unset or pointed elsewhere)"
		}
	case refuseHome:
		problem = "the root cannot be the home directory: hiding under it would hide the system"
	default:
		problem = "is the root"
	}
	return badPath(s.field, s.spelling(), problem)
}

// isWorkspace refuses a hidden path that is, or resolves to, the
// workspace.
func (s *refuseSubject) isWorkspace() error {
	switch {
	case s.ws == "":
	case s.spelled && s.path == s.wsAs:
		return badPath(s.field, s.spelling(), "is the workspace")
	case s.resolved && s.real == s.ws:
		return badPath(s.field, s.spelling(), "resolves to the workspace")
	}
	return nil
}

// holdsHome refuses a workspace or write path (s.real, resolved) that is
// one of the home directories s.homes or contains it: a sandboxed command
// could write the shell's startup files, which run unsandboxed at the
// next login, or move the default hidden paths out from under a later run.
func (s *refuseSubject) holdsHome() error {
	if !s.guard || s.real == "" {
		return nil
	}
	for _, home := range s.homes {
		if home == "" || !s.r.within(home, []string{s.real}) {
			continue
		}
		what := "is the home directory"
		if home != s.real {
			what = "contains the home directory " + strconv.Quote(home)
		}
		return badPath(s.field, s.spelling(), what+": a sandboxed command could write ~/.bashrc and the like, "+
			"which run outside the sandbox at the next login (want a directory under it)")
	}
	return nil
}

// secondName refuses a hidden file with more than one name: bwrap hides
// the name, and a hard link elsewhere still reads the same file.
func (s *refuseSubject) secondName() error {
	if !s.guard || s.fi == nil || s.fi.IsDir() {
		return nil
	}
	if n := names(s.fi); n > 1 {
		return badPath(s.field, s.spelling(), fmt.Sprintf("is a file with %d names (hard links), and the others would still read it (want the other names removed)", n))
	}
	return nil
}

// oversized refuses a file read past its reader's bound: it is one a
// sandboxed command could have written, read by the host.
func (s *refuseSubject) oversized() error {
	if s.max == 0 || s.size <= s.max {
		return nil
	}
	return &pathError{field: s.field, path: s.spelling(), problem: fmt.Sprintf("cannot be read: %v: over %d bytes", errTooLarge, s.max), err: errTooLarge}
}

// isSymlink refuses a path that is itself a symlink where the sandbox
// could have planted it or can re-point it: a .git the host follows to
// find what to protect, a protected path, a cache directory bound
// writable.
func (s *refuseSubject) isSymlink() error {
	if !s.guard || s.fi == nil || s.fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	problem := "is a symlink, which a sandboxed command could re-point between runs (want the link replaced by its target)"
	switch s.in {
	case refuseGitDir:
		problem = "is a symlink, which a sandboxed command could re-point at a repository it made (want the link replaced by its target)"
	case refuseProtectedPath:
		problem = "is a symlink, which a sandboxed command could re-point at a file it writes " +
			"(want the link replaced by its target, or the target named as the path)"
	case refuseCacheMade:
		problem = "is a symlink, which a sandboxed command could have planted (want a directory; remove it)"
	}
	return badPath(s.field, s.spelling(), problem)
}

// foreignOwner refuses a directory of sandtable's own owned by another
// user, who could have put there what the command then trusts.
func (s *refuseSubject) foreignOwner() error {
	if !s.guard || s.fi == nil {
		return nil
	}
	if uid, ok := ownerOf(s.fi); ok && uid != uint32(os.Geteuid()) {
		return badPath(s.field, s.spelling(), "owned by uid "+strconv.FormatUint(uint64(uid), 10)+", not this caller (want it removed, or --no-cache)")
	}
	return nil
}

// holdsCaret refuses a path the macOS profile matches by a pattern
// (s.pattern) when it holds ^, which no bracket can hold alone.
func (s *refuseSubject) holdsCaret() error {
	if !strings.Contains(s.pattern, "^") {
		return nil
	}
	switch s.in {
	case refuseProtectedPath:
		return badPath(s.field, s.spelling(), "holds ^, which a pattern cannot match without a backslash (want a workspace without ^ on macOS)")
	case refuseHome:
		return badPath(s.field, s.spelling(), "holds ^, which the macOS profile's patterns cannot match (want a home directory without ^)")
	}
	return badPath(s.field, s.spelling(), "does not exist and holds ^: inside a writable place on macOS it must exist to be hidden")
}

// unfoldable refuses a missing hidden path inside a writable root on
// macOS (s.pattern), or a protected path below one (s.folds), holding a
// character beyond the fold table (casefold.Write): APFS takes spellings of
// it that no pattern lists.
func (s *refuseSubject) unfoldable() error {
	pat := s.pattern
	if s.folds != "" {
		pat = s.folds
	}
	if pat == "" || strings.Contains(pat, "^") {
		return nil
	}
	var b strings.Builder
	if casefold.Write(&b, pat, false) {
		return nil
	}
	if s.in == refuseProtectedPath {
		return badPath(s.field, s.spelling(), "holds a character beyond the Latin letters below its writable root: macOS, which treats other "+
			"spellings of it as the same name, would let the command write it under one (want a protected path of Latin letters on macOS)")
	}
	return badPath(s.field, s.spelling(), "does not exist and holds a character beyond the Latin letters: inside a writable place on macOS, "+
		"which treats other spellings of it as the same name, it must exist to be hidden")
}

// notCleanAbsolute refuses an environment variable's value that is not
// absolute or has a .. component (cleanEnvPath): what it names depends on
// the reader's directory or on a symlink.
func (s *refuseSubject) notCleanAbsolute() error {
	if s.envValue == "" {
		return nil
	}
	if _, problem := cleanEnvPath(s.envValue); problem != "" {
		return badPath(s.field, s.spelling(), problem)
	}
	return nil
}

// notSocket refuses a socket grant that resolves to anything but a unix
// socket: it would be a write grant of its own.
func (s *refuseSubject) notSocket() error {
	if s.fi == nil || s.fi.Mode()&fs.ModeSocket != 0 {
		return nil
	}
	return badPath(s.field, s.spelling(), "not a unix socket")
}

// tooMany refuses a bwrap argv longer than bwrap takes: it stops before
// building anything, saying only "Exceeded maximum number of arguments".
// Most of an argv is mounts, one for each hidden path, grant, cache and
// hidden host socket.
func (s *refuseSubject) tooMany(bound uint64) error {
	if bound == 0 || s.amount <= bound {
		return nil
	}
	return fmt.Errorf("sandbox: bwrap argv: %d arguments, over the %d bwrap takes: %d the sandbox's (%d mounts of about 3 each, for the hidden paths, grants, caches and host sockets) and %d the command's "+
		"(want fewer hidden or granted paths, or a command with fewer arguments): %w",
		s.amount, bound, s.amount-uint64(s.cmd), s.mounts, s.cmd, ErrBadPath)
}

// belowBound refuses a limit set below the least the sandbox's own start
// needs: bwrap, its child and the command's loader are charged to it,
// and each fails in its own way below (too many open files, argument
// list too long, killed).
func (s *refuseSubject) belowBound(bound uint64) error {
	if !s.guard || s.amount == 0 || s.amount >= bound {
		return nil
	}
	return fmt.Errorf("sandbox: limits: Memory %d (--memory): below the %s that bwrap's start, the sandbox's setup and the command's loader are charged for, "+
		"which fail below it naming something else (want %d bytes or more, --memory %s, or no limit): %w", s.amount, sizeText(bound), bound, sizeText(bound), ErrBadLimit)
}

// littleSpace refuses a cache root on a file system with less space free
// than the bound: the tools would fail as they write their caches, and
// some say something else (go: "package fmt is not in std").
func (s *refuseSubject) littleSpace(bound uint64) error {
	if !s.guard || s.room == nil || s.room.free >= bound {
		return nil
	}
	return &unavailableError{
		reason: fmt.Sprintf("the tool caches' file system (%s) has %d bytes free, less than the %s the caches need to be written (tools writing them would fail, some saying something else: go says \"package fmt is not in std\")",
			s.room.dir, s.room.free, sizeText(bound)),
		hint: "free space there, set XDG_CACHE_HOME to a directory on another file system, or run with --no-cache (Config.NoCache)",
	}
}

// fewInodes is littleSpace for the file system's inodes.
func (s *refuseSubject) fewInodes(bound uint64) error {
	if !s.guard || s.room == nil || s.room.files == 0 || s.room.inodes >= bound {
		return nil
	}
	return &unavailableError{
		reason: fmt.Sprintf("the tool caches' file system (%s) has %d free inodes, fewer than the %d the caches need to be written (tools writing them would fail, some saying something else: go says \"package fmt is not in std\")",
			s.room.dir, s.room.inodes, bound),
		hint: "free inodes there, set XDG_CACHE_HOME to a directory on another file system, or run with --no-cache (Config.NoCache)",
	}
}

// sizeText is n bytes as --memory and the table write it: 16MiB.
func sizeText(n uint64) string {
	for _, u := range []struct {
		suf  string
		mult uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatUint(n/u.mult, 10) + u.suf
		}
	}
	return strconv.FormatUint(n, 10) + " bytes"
}
