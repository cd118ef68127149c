package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// The refuse section of rules/common.yaml lists every configuration the
// runtime refuses; zz_generated.go compiles it into refuseRows, in table
// order. A place that has an input in hand (a path just resolved, a
// loader variable's entry) describes it in a refuseSubject and calls refuse,
// which runs every row that names the input, first to last, and names the
// row in the error. Each check kind is one function below; a check that
// lacks what it looks at (no writable roots yet, no file info) passes, so
// an input is checked wherever its facts are known (docs/POLICY.md,
// "Refused configurations").

// refuseInput is one input of the refuse section, as a bit.
type refuseInput uint16

// refuseCheckKind is one check of the refuse section's vocabulary.
type refuseCheckKind uint8

// refuseRow is one row of the refuse section.
type refuseRow struct {
	id     string
	check  refuseCheckKind
	inputs refuseInput
}

// refuseSubject is one input as the checks see it; the zero value of a field is
// "not known here", and the checks that need it pass.
type refuseSubject struct {
	in    refuseInput
	field string // the Config field or source, for the error
	// path is the input as the caller spelled it; under, when set, is the
	// home it lies under (path is then relative), so the spelling is built
	// only for an error.
	path  string
	under string
	// as, when set, is the value the spelled checks look at, path being a
	// label for it (a derived path's "$env:NAME=VALUE").
	as string
	// spelled: check path itself, before resolution (is-root,
	// is-workspace). resolved: check real, where path resolves.
	spelled, resolved bool
	real              string
	fi                fs.FileInfo // for second-name; nil when missing
	// lfi is the path's own lstat, not followed (is-symlink,
	// foreign-owner); nil when not known here.
	lfi fs.FileInfo
	err error // the resolve's error, for unreadable-in-writable
	// guard is set where the sandbox guards against its command (every
	// policy but Off): only is-root and is-workspace run without it.
	guard bool
	// r made the last resolve (its via, for through-writable-link) and
	// roots are the writable roots; nil roots: not known here.
	r     *resolver
	roots []string
	// via, when set, are the links of the input's own resolve, made
	// earlier; else r's last resolve's.
	via  []string
	ws   string // the workspace, as spelled (spelled) or resolved
	home string // a resolved home directory, for holds-home
	// loader is a loader variable's name, for loader-writable (path is
	// the entry).
	loader string
	// size and max are a file's size as read and its reader's bound, for
	// oversized.
	size, max int64
	// pattern is the path as a macOS profile pattern must match it, for
	// holds-caret and unfoldable; empty where no pattern is made.
	pattern string
	// envValue is an environment variable's value as set, for
	// not-clean-absolute; sock is a socket grant's file info (followed),
	// for not-socket.
	envValue string
	sock     fs.FileInfo
}

// refuseList is the check list refuse runs: refuseRows, all of them;
// TestRefuseRowRemoved runs it without one.
var refuseList = refuseRows[:]

// refuse runs the rows that name s.in, in table order, and returns the
// first refusal, naming its row.
func refuse(s *refuseSubject) error {
	for i := range refuseList {
		row := &refuseList[i]
		if row.inputs&s.in == 0 {
			continue
		}
		if err := s.run(row.check); err != nil {
			if pe, ok := err.(*pathError); ok {
				pe.problem += " (refuse: " + row.id + ")"
				return pe
			}
			return fmt.Errorf("%w (refuse: %s)", err, row.id)
		}
	}
	return nil
}

// run applies one check kind.
func (s *refuseSubject) run(k refuseCheckKind) error {
	switch k {
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
	}
	return fmt.Errorf("sandbox: refuse: unknown check %d: %w", k, ErrBadPolicy)
}

// spelling is the input as the caller spelled it.
func (s *refuseSubject) spelling() string {
	if s.under != "" {
		return s.under + "/" + s.path
	}
	return s.path
}

// throughWritableLink refuses a path the last resolve took through a
// symlink in a writable root: a sandboxed command can re-point it between
// runs, and the next run would grant, or hide, whatever it names by then.
func (s *refuseSubject) throughWritableLink() error {
	if !s.guard || len(s.roots) == 0 || s.r == nil {
		return nil
	}
	via := s.via
	if via == nil {
		via = s.r.via
	}
	link := s.r.plantableIn(via, s.roots)
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
	case s.spelled && s.path == s.ws:
		return badPath(s.field, s.spelling(), "is the workspace")
	case s.resolved && s.real == s.ws:
		return badPath(s.field, s.spelling(), "resolves to the workspace")
	}
	return nil
}

// holdsHome refuses a workspace or write path (s.real, resolved) that is
// the home directory s.home or contains it: a sandboxed command could
// write the shell's startup files, which run unsandboxed at the next
// login, or move the default hidden paths out from under a later run.
func (s *refuseSubject) holdsHome() error {
	if !s.guard || s.home == "" || s.real == "" || !s.r.within(s.home, []string{s.real}) {
		return nil
	}
	what := "is the home directory"
	if s.home != s.real {
		what = "contains the home directory " + strconv.Quote(s.home)
	}
	return badPath(s.field, s.spelling(), what+": a sandboxed command could write ~/.bashrc and the like, "+
		"which run outside the sandbox at the next login (want a directory under it)")
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
	return fmt.Errorf("%w: over %d bytes", errTooLarge, s.max)
}

// isSymlink refuses a path that is itself a symlink where the sandbox
// could have planted it or can re-point it: a .git the host follows to
// find what to protect, a protected path, a cache directory bound
// writable.
func (s *refuseSubject) isSymlink() error {
	if !s.guard || s.lfi == nil || s.lfi.Mode()&fs.ModeSymlink == 0 {
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
	if !s.guard || s.lfi == nil {
		return nil
	}
	if uid, ok := ownerOf(s.lfi); ok && uid != uint32(os.Geteuid()) {
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
// macOS (s.pattern) holding a character beyond the fold table
// (writeFolded): APFS takes spellings of it that no pattern lists.
func (s *refuseSubject) unfoldable() error {
	if s.pattern == "" || strings.Contains(s.pattern, "^") {
		return nil
	}
	var b strings.Builder
	if writeFolded(&b, s.pattern, false) {
		return nil
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
	if s.sock == nil || s.sock.Mode()&fs.ModeSocket != 0 {
		return nil
	}
	return badPath(s.field, s.spelling(), "not a unix socket")
}
