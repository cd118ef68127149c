package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The journal of placeholders (placeholders.go): making them, removing
// them after the run, and the sweep that removes what a killed run left.

// placeholderMark is the extended attribute each placeholder carries, its
// record's nonce as the value.
const placeholderMark = "user.sandtable.placeholder"

// phRun is one run's placeholders, from before bwrap starts to after it
// has ended: the shared locks on the protected paths' directories, the
// run's record (open and locked while the run lives) and its entries.
type phRun struct {
	locks    dirLocks
	journals []string // the journals this run may record in, first choice first
	journal  string   // the one its record is in
	jfd      int      // the journal, open, when this run has a record; else -1
	rec      int      // the record, open and locked; -1 when there is none
	name     string   // its name in the journal
	nonce    string
	entries  []phEntry
	own      []phOwn // this run's bookkeeping, entry by entry
}

// phOwn is what the run knows of its entry beyond the record.
type phOwn struct {
	dir    int // its directory, open (the lock's descriptor)
	fd     int // the file while it has no name; -1
	linked bool
}

// startPlaceholders takes the shared locks on the directories of p's
// protected paths and makes the placeholders of the missing ones,
// recorded first in the first of journals this process can use (see
// placeholders.go). On an error nothing of it is left.
func startPlaceholders(p *plan, journals []string) (*phRun, error) {
	locks, err := lockProtectedDirs(p)
	if err != nil {
		return nil, err
	}
	r := &phRun{locks: locks, journals: journals, jfd: -1, rec: -1}
	crashPoint("locked")
	for _, f := range p.protected {
		if f.kind == kindMissing {
			r.entries = append(r.entries, phEntry{path: f.path})
			r.own = append(r.own, phOwn{dir: locks[path.Dir(f.path)], fd: -1})
		}
	}
	if len(r.entries) == 0 {
		return r, nil
	}
	if err := r.make(); err != nil {
		r.abort()
		return nil, err
	}
	return r, nil
}

func (r *phRun) make() error {
	err := fmt.Errorf("sandbox: placeholders: no directory for their journal (set HOME, or XDG_STATE_HOME to an absolute path): %w", ErrBadPath)
	for _, j := range r.journals {
		var jfd int
		if jfd, err = openJournal(j, true); err == nil {
			r.jfd, r.journal = jfd, j
			break
		}
	}
	if r.jfd < 0 {
		return err
	}
	if err := r.newRecord(); err != nil {
		return err
	}
	crashPoint("record-made")
	for i := range r.entries {
		if err := r.makeNameless(i); err != nil {
			return err
		}
	}
	crashPoint("tmpfiles")
	var lines []byte
	for i, e := range r.entries {
		lines = append(lines, entryLine(i, e)...)
	}
	if err := r.appendDurably(lines); err != nil {
		return err
	}
	crashPoint("record-durable")
	var ids []byte
	for i, e := range r.entries {
		if e.temp {
			if err := r.makeTemp(i); err != nil {
				return err
			}
			ids = append(ids, identityLine(i, r.entries[i])...)
		}
	}
	if len(ids) > 0 {
		crashPoint("temps-made")
		if err := r.appendDurably(ids); err != nil {
			return err
		}
		crashPoint("temps-durable")
	}
	for i := range r.entries {
		if err := r.link(i); err != nil {
			return err
		}
		if i == 0 {
			crashPoint("linked")
		}
	}
	crashPoint("linked-all")
	return nil
}

// newRecord creates the run's record, locked, with its header. A sweep
// that took the lock first (between the create and the lock) may have
// removed it as empty: then it is made again under a new name.
func (r *phRun) newRecord() error {
	for try := 0; ; try++ {
		var b [nonceLen / 2]byte
		if _, err := rand.Read(b[:]); err != nil {
			return fmt.Errorf("sandbox: placeholder journal: %w", err)
		}
		nonce := hex.EncodeToString(b[:])
		name := recordPrefix + nonce
		fd, err := unix.Openat(r.jfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return fmt.Errorf("sandbox: placeholder journal %s: create a record: %w", r.journal, err)
		}
		var st unix.Stat_t
		if err = unix.Flock(fd, unix.LOCK_EX); err == nil {
			err = unix.Fstat(fd, &st)
		}
		if err == nil && st.Nlink == 0 {
			unix.Close(fd)
			if try < 3 {
				continue
			}
			return fmt.Errorf("sandbox: placeholder journal %s: a record was removed as it was made, 4 times", r.journal)
		}
		if err == nil {
			_, err = unix.Pwrite(fd, recordHeader(nonce), 0)
		}
		if err != nil {
			unix.Unlinkat(r.jfd, name, 0)
			unix.Close(fd)
			return fmt.Errorf("sandbox: placeholder journal %s: write a record: %w", r.journal, err)
		}
		r.rec, r.name, r.nonce = fd, name, nonce
		return nil
	}
}

// appendDurably adds lines to the record and waits until it, and its name
// in the journal, are on disk: a placeholder gets a name only after the
// record of it would survive a power loss.
func (r *phRun) appendDurably(lines []byte) error {
	var st unix.Stat_t
	err := unix.Fstat(r.rec, &st)
	if err == nil {
		_, err = unix.Pwrite(r.rec, lines, st.Size)
	}
	if err == nil {
		err = unix.Fdatasync(r.rec)
	}
	if err == nil {
		err = unix.Fsync(r.jfd)
	}
	if err != nil {
		return fmt.Errorf("sandbox: placeholder journal %s: %w", r.journal, err)
	}
	return nil
}

// makeNameless makes entry i's file without a name in its directory; a
// file system without O_TMPFILE leaves it to makeTemp.
func (r *phRun) makeNameless(i int) error {
	fd, err := unix.Openat(r.own[i].dir, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	switch {
	case errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) || noTmpfile:
		if err == nil {
			unix.Close(fd)
		}
		r.entries[i].temp = true
		return nil
	case err != nil:
		return fmt.Errorf("sandbox: placeholder %s: %w", r.entries[i].path, err)
	}
	r.own[i].fd = fd
	return r.identify(i, fd)
}

// noTmpfile makes every placeholder through makeTemp, as on a file system
// without O_TMPFILE (TestPlaceholderCrash).
var noTmpfile bool

// makeTemp makes entry i's file under its temporary name.
func (r *phRun) makeTemp(i int) error {
	fd, err := unix.Openat(r.own[i].dir, tempName(r.nonce, i), unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox: placeholder %s: %w", r.entries[i].path, err)
	}
	r.own[i].fd = fd
	return r.identify(i, fd)
}

// identify marks entry i's file, gives it the mode a file the user made
// would have (0644: read-only in the sandbox is the mount's doing) and
// records what it is. A file system without user extended attributes keeps no mark; on
// one that has them, every placeholder has its mark.
func (r *phRun) identify(i int, fd int) error {
	e := &r.entries[i]
	err := unix.Fsetxattr(fd, placeholderMark, []byte(r.nonce), 0)
	e.mark = err == nil
	if errors.Is(err, unix.EOPNOTSUPP) {
		err = nil
	}
	var st unix.Stat_t
	if err == nil {
		err = unix.Fchmod(fd, 0o644)
	}
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if err != nil {
		return fmt.Errorf("sandbox: placeholder %s: %w", e.path, err)
	}
	e.dev, e.ino, e.btime, e.known = st.Dev, st.Ino, birthTime(fd), true
	return nil
}

// link gives entry i's file its name; a name taken meanwhile (by the user,
// or a concurrent run) is left as it is, and bwrap binds over that.
func (r *phRun) link(i int) error {
	e, o := &r.entries[i], &r.own[i]
	base := path.Base(e.path)
	var err error
	if e.temp {
		err = unix.Renameat2(o.dir, tempName(r.nonce, i), o.dir, base, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			if err = unix.Linkat(o.dir, tempName(r.nonce, i), o.dir, base, 0); err == nil || errors.Is(err, unix.EEXIST) {
				unix.Unlinkat(o.dir, tempName(r.nonce, i), 0)
			}
		}
		if errors.Is(err, unix.EEXIST) {
			unix.Unlinkat(o.dir, tempName(r.nonce, i), 0)
		}
	} else {
		err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(o.fd), o.dir, base, unix.AT_SYMLINK_FOLLOW)
	}
	unix.Close(o.fd)
	o.fd = -1
	switch {
	case errors.Is(err, unix.EEXIST):
		return nil
	case err != nil:
		return fmt.Errorf("sandbox: placeholder %s: %w", e.path, err)
	}
	o.linked = true
	return nil
}

// spawned is the step at which bwrap runs with the placeholders in place.
func (r *phRun) spawned() {
	if r != nil {
		crashPoint("spawned")
	}
}

// finish removes the run's placeholders once bwrap has ended, where this
// run alone holds the directory's lock (a concurrent run may have bound
// one as the user's file: removing it would detach that mount); drops the
// record when nothing of it is left; releases the locks; and sweeps the
// journal for what other runs left (a placeholder of a run that ended
// while this one held the lock, or of a killed one).
func (r *phRun) finish() {
	if r == nil {
		return
	}
	crashPoint("ended")
	left, removed := false, false
	for i, e := range r.entries {
		o := r.own[i]
		if !o.linked {
			continue
		}
		if !r.locks.exclusive(path.Dir(e.path)) {
			left = true
			continue
		}
		removeIfOurs(o.dir, path.Base(e.path), e, r.nonce, false)
		if !removed {
			removed = true
			crashPoint("removed")
		}
	}
	r.closeRecord(!left)
	r.locks.release()
	crashPoint("released")
	for _, j := range r.journals {
		sweepJournal(j, false)
	}
}

// abort undoes a start that failed: whatever has a name is removed as
// finish would, the rest never had one.
func (r *phRun) abort() {
	for i := range r.entries {
		if fd := r.own[i].fd; fd >= 0 {
			unix.Close(fd)
			r.own[i].fd = -1
		}
		if r.entries[i].temp && r.nonce != "" {
			removeTemp(r.own[i].dir, r.nonce, i, r.entries[i])
		}
	}
	r.finish()
}

func (r *phRun) closeRecord(drop bool) {
	if r.rec >= 0 {
		if drop {
			unix.Unlinkat(r.jfd, r.name, 0)
			crashPoint("record-dropped")
		}
		unix.Close(r.rec)
		r.rec = -1
	}
	if r.jfd >= 0 {
		unix.Close(r.jfd)
		r.jfd = -1
	}
}

// repairPlaceholders sweeps this process's journals before a spawn is
// planned, so the plan sees the workspace as it was before a killed run;
// it makes the one the spawn will record in (the first it can make), so
// that the default-hidden rows hide it from this spawn, and no watch sees
// it appear. It is best effort: a journal that cannot be named or opened
// is left to the spawn that needs it, which says why.
func repairPlaceholders() {
	made := false
	for _, dir := range journalDirs("") {
		made = sweepJournal(dir, !made) || made
	}
}

// journalDirs are the journals this process may record in, first choice
// first: first (a helper's caller's), then placeholderJournal's, then
// the one under its home in the password database, which a process that
// runs as another user than the home its environment names (a Credential,
// sudo -E) can make its own.
func journalDirs(first string) []string {
	var out []string
	add := func(j string) {
		if j != "" && !slices.Contains(out, j) {
			out = append(out, j)
		}
	}
	add(first)
	if j, err := placeholderJournal(); err == nil {
		add(j)
	}
	if home := strings.TrimRight(ownPasswdHome(), "/"); strings.HasPrefix(home, "/") && checkPath("home", home) == nil {
		add(childPath(home, ".local/state/"+journalSubdir))
	}
	return out
}

// openJournal opens the journal directory, made first (makeJournal) when
// create is set and it is missing. It must be a directory, not a link,
// writable by its owner alone, and owned by this process's user (root
// accepts any owner: it trusts only the records it owns).
func openJournal(dir string, create bool) (int, error) {
	if create {
		if err := makeJournal(dir); err != nil {
			return -1, fmt.Errorf("sandbox: placeholder journal: %w", err)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("sandbox: placeholder journal %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("sandbox: placeholder journal %s: %w", dir, err)
	}
	euid := os.Geteuid()
	if euid != 0 && int(st.Uid) != euid || st.Mode&0o022 != 0 {
		unix.Close(fd)
		return -1, fmt.Errorf("sandbox: placeholder journal %s: owned by uid %d with mode %#o (want a directory of uid %d's, writable by it alone): %w",
			dir, st.Uid, st.Mode&0o7777, euid, ErrBadPath)
	}
	return fd, nil
}

// makeJournal makes what is missing of dir below the nearest directory
// above it that exists, which must be a directory (not a link) of this
// user's, or, for root, of anyone's: what root makes there is given to
// that directory's owner (a home under sudo -E, or a Credential's), so
// it stays theirs. Each is made and opened without following a link;
// those above the journal are searchable by all, as mkdir -p makes them,
// since a bwrap run as another user (a Credential) mounts over it.
func makeJournal(dir string) error {
	at := dir
	var st unix.Stat_t
	for {
		err := unix.Lstat(at, &st)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.ENOENT) || at == "/" {
			return &os.PathError{Op: "lstat", Path: at, Err: err}
		}
		at = path.Dir(at)
	}
	if at == dir {
		return nil
	}
	euid := os.Geteuid()
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || euid != 0 && int(st.Uid) != euid {
		return fmt.Errorf("mkdir %s: %s is not a directory of uid %d's: %w", dir, at, euid, ErrBadPath)
	}
	fd, err := unix.Open(at, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: at, Err: err}
	}
	rest := strings.Split(strings.TrimPrefix(strings.TrimPrefix(dir, at), "/"), "/")
	for i, name := range rest {
		mode := uint32(0o755)
		if i == len(rest)-1 {
			mode = 0o700
		}
		err := unix.Mkdirat(fd, name, mode)
		if err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(fd)
			return &os.PathError{Op: "mkdir", Path: path.Join(at, name), Err: err}
		}
		made := err == nil
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return &os.PathError{Op: "open", Path: path.Join(at, name), Err: err}
		}
		fd = next
		if made && euid == 0 && st.Uid != 0 {
			if err := unix.Fchown(fd, int(st.Uid), int(st.Gid)); err != nil {
				unix.Close(fd)
				return &os.PathError{Op: "chown", Path: path.Join(at, name), Err: err}
			}
		}
		at = path.Join(at, name)
	}
	unix.Close(fd)
	return nil
}
