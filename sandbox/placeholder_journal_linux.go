package sandbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The journal of placeholders (placeholders.go): making them, removing
// them after the run, and the sweep that removes what a killed run left.

// placeholderMark is the extended attribute each placeholder carries, its
// record's nonce as the value.
const placeholderMark = "user.sandtable.placeholder"

// holderWait bounds how long a sweep waits for the processes that hold a
// record's placeholders in their argv to end (bwrap, killed with its
// caller, milliseconds later) before it leaves the record for a later
// sweep.
var holderWait = 2 * time.Second

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

// sweepRecords bounds the records one sweep looks at.
const sweepRecords = 256

// sweepJournal removes, for each record whose run is over (its lock is
// free, and its bwrap and the sandbox's first process are gone), each
// placeholder that is still what the record says, where no live run holds
// the directory's lock; a record is dropped once nothing of it is left.
// It reports whether the journal could be opened.
func sweepJournal(dir string, create bool) bool {
	jfd, err := openJournal(dir, create)
	if err != nil {
		return false
	}
	defer unix.Close(jfd)
	lfd, err := unix.Openat(jfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	f := os.NewFile(uintptr(lfd), dir)
	names, _ := f.Readdirnames(sweepRecords)
	f.Close()
	deadline := time.Now().Add(holderWait)
	for _, name := range names {
		if strings.HasPrefix(name, recordPrefix) && isNonce(strings.TrimPrefix(name, recordPrefix)) {
			sweepRecord(jfd, name, deadline)
		}
	}
	return true
}

func sweepRecord(jfd int, name string, deadline time.Time) {
	fd, err := unix.Openat(jfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Size > recordMax {
		return // not a record of this user's
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // its run is live
	}
	if unix.Fstat(fd, &st) != nil || st.Nlink == 0 {
		return // another sweep dropped it meanwhile
	}
	drop := func() {
		var now unix.Stat_t
		if unix.Fstatat(jfd, name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino {
			unix.Unlinkat(jfd, name, 0)
		}
	}
	data := make([]byte, st.Size)
	n, _ := unix.Pread(fd, data, 0)
	rec, err := parseRecord(data[:max(n, 0)])
	if err != nil {
		// Cut short before any placeholder could have a name (each gets
		// one only after its record is whole and on disk), or not a
		// record: nothing to repair from it.
		drop()
		return
	}
	if !waitUnheld(rec, deadline) {
		return // left for a later sweep
	}
	done := true
	for i, e := range rec.entries {
		done = repairEntry(rec.nonce, i, e) && done
	}
	if done {
		drop()
	}
}

// repairEntry removes what is left of entry i, and reports whether
// nothing is; false when a live run holds its directory's lock.
func repairEntry(nonce string, i int, e phEntry) bool {
	dfd, err := unix.Open(path.Dir(e.path), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		// Gone, or no longer a directory one can name without a link:
		// nothing there is this record's.
		return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
	}
	defer unix.Close(dfd)
	if unix.Flock(dfd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return false
	}
	if e.temp {
		removeTemp(dfd, nonce, i, e)
	}
	if e.known {
		removeIfOurs(dfd, path.Base(e.path), e, nonce, false)
	}
	return true
}

// removeTemp removes entry i's temporary name when it is an empty regular
// file (and the record's, where its identity says so): the name holds the
// record's nonce, which nothing else makes, and a kill between its
// creation and its mark leaves it unmarked.
func removeTemp(dfd int, nonce string, i int, e phEntry) {
	if !e.known {
		e = phEntry{}
	}
	removeIfOurs(dfd, tempName(nonce, i), e, nonce, true)
}

// removeIfOurs unlinks name in dfd when it is still the placeholder e
// describes: an empty regular file with e's device, inode and birth time,
// as far as e records them, that carries the record's mark, or, on a file
// system without user extended attributes, was recorded without one. A
// temporary name (byName) needs no mark, and before its identity is
// recorded only emptiness.
func removeIfOurs(dfd int, name string, e phEntry, nonce string, byName bool) {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !sameEmpty(&st, e) {
		return
	}
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if unix.Fstat(fd, &st) != nil || !sameEmpty(&st, e) {
		return
	}
	if e.known && e.btime != 0 && birthTime(fd) != e.btime {
		return
	}
	buf := make([]byte, nonceLen+1)
	n, err := unix.Fgetxattr(fd, placeholderMark, buf)
	switch {
	case err == nil && string(buf[:n]) == nonce:
	case err == nil || errors.Is(err, unix.ERANGE):
		return // another record's mark, or the user's attribute
	case byName:
	case errors.Is(err, unix.EOPNOTSUPP) && !e.mark:
		// No mark where the file system keeps none: the device, inode
		// and birth time alone say it is the one the record made.
	default:
		return // unmarked where a placeholder would carry its mark
	}
	unix.Unlinkat(dfd, name, 0)
}

func sameEmpty(st *unix.Stat_t, e phEntry) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 && (!e.known || st.Dev == e.dev && st.Ino == e.ino)
}

// birthTime is fd's birth time in ns, 0 when the file system keeps none.
func birthTime(fd int) int64 {
	var sx unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BTIME, &sx) != nil || sx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return sx.Btime.Sec*1e9 + int64(sx.Btime.Nsec)
}

// waitUnheld waits until no other process has the path of one of rec's
// placeholders that is still there, in a directory no live run holds
// locked, as an argument, and reports whether none has by deadline. Every
// process of a sandbox that binds a path has it in its argv: bwrap (dying
// with its killed caller, milliseconds later), bwrap's child building the
// sandbox, and the sandbox's init for as long as it lives. Removed while
// one of them lives, a placeholder's mount would detach, or one bwrap has
// yet to mount over would be made again by bwrap, unrecorded. A child of
// bwrap that outlived it before it started anything (bwrap sets its
// parent-death signal only once the sandbox is built, and one whose bwrap
// died before it let it go on waits forever) is killed: its caller was
// killed before.
func waitUnheld(rec record, deadline time.Time) bool {
	want := map[string]bool{}
	for i, e := range rec.entries {
		if !dirFree(path.Dir(e.path)) {
			continue // a live run's: repairEntry leaves it
		}
		for _, p := range []string{e.path, path.Join(path.Dir(e.path), tempName(rec.nonce, i))} {
			if _, err := os.Lstat(p); err == nil {
				want[p] = true
			}
		}
	}
	if len(want) == 0 {
		return true
	}
	for {
		held, ok := argvHolds(want)
		if ok && !held {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// dirFree reports whether no run holds dir's lock now.
func dirFree(dir string) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return true
	}
	defer unix.Close(fd)
	return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil
}

// argvHolds reports whether a process other than this one has one of
// paths as an argument, and kills each that is a bwrap child left behind
// before it started anything (orphanedSandbox); ok is false when /proc
// cannot be listed.
func argvHolds(paths map[string]bool) (held, ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false, false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false, false
	}
	self := strconv.Itoa(os.Getpid())
	for _, n := range names {
		if n == self || n[0] < '0' || n[0] > '9' {
			continue
		}
		argv, err := os.ReadFile("/proc/" + n + "/cmdline")
		if err != nil {
			continue // gone, or another user's behind hidepid
		}
		for data := argv; len(data) > 0; {
			arg, rest, _ := bytes.Cut(data, []byte{0})
			if paths[string(arg)] {
				held = true
				if pid, ok := orphanedSandbox(n, argv); ok {
					unix.Kill(pid, unix.SIGKILL)
				}
				break
			}
			data = rest
		}
	}
	return held, true
}

// orphanedSandbox reports whether process n, whose argv is argv, is a
// bwrap child left behind before it started anything: the first process
// of a sandbox (pid 1 of its own pid namespace) whose parent is no longer
// the bwrap that made it (a process with the same argv), with no child of
// its own. One whose command runs on is left to end.
func orphanedSandbox(n string, argv []byte) (int, bool) {
	status, err := os.ReadFile("/proc/" + n + "/status")
	if err != nil {
		return 0, false
	}
	var nspid []string
	ppid := ""
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			nspid = strings.Fields(v)
		} else if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			ppid = strings.TrimSpace(v)
		}
	}
	if len(nspid) < 2 || nspid[len(nspid)-1] != "1" || ppid == "" {
		return 0, false
	}
	if parent, err := os.ReadFile("/proc/" + ppid + "/cmdline"); err == nil && bytes.Equal(parent, argv) {
		return 0, false // its bwrap still runs
	}
	if kids, err := os.ReadFile("/proc/" + n + "/task/" + n + "/children"); err != nil || len(bytes.TrimSpace(kids)) > 0 {
		return 0, false
	}
	pid, err := strconv.Atoi(n)
	return pid, err == nil
}
