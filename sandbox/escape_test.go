//go:build linux

package sandbox

// The escape suite: a hostile child tries to break out of the
// sandbox in every way we could think of, as root and as an unprivileged
// caller. Each attempt is a small bash snippet run through Command and must
// fail; each one also runs a control that shows the same snippet succeeds
// once the rule that stops it is taken out of the argv (or outside the
// sandbox), so an attempt that "fails" because the snippet is broken cannot
// pass. TestEscapeSpecArgv replays the attempts against the original
// upstream argv (docs/security.md) and checks the suite catches
// the holes that argv leaves.
//
// The attempts themselves are in escape_attempts_test.go and the
// escape_TOPIC_test.go files, each table's fixtures (setups, programs,
// servers, runners) in the matching _fixtures_test.go file.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const (
	// escRan is printed by every snippet before it does anything else, so a
	// sandbox that never started is not mistaken for a blocked attack.
	escRan = "__SANDTABLE_ESCAPE_RAN__"
	// escPath is the child's PATH: no per-user directories (the test's own
	// PATH may point into /root, which the unprivileged user cannot read).
	escPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	// escParallel bounds the attempts in flight. Most of their time is spent
	// waiting (sleeps, timeouts, process start), not on the two CPUs.
	escParallel = 8
	// escUnprivileged is the account .ci/run creates for the unprivileged runs.
	escUnprivileged = "sandtable-test"
)

// escUser is one caller the suite runs as.
type escUser struct {
	label    string
	uid, gid int
	cred     *syscall.Credential // nil: the test process's own credentials
}

func (u *escUser) isRoot() bool { return u.uid == 0 }

// spawnAs makes the spawns built from here until t ends hide the host
// sockets u can reach (hide-host-socket), for a bwrap started as u: one
// that only the test process (root) reaches, in another test's or
// process's private directory, would fail that bwrap's mount over it.
func (u *escUser) spawnAs(t *testing.T) {
	if u.cred == nil {
		return
	}
	own := socketIdentity
	id := identity{uid: u.cred.Uid, gids: []uint32{u.cred.Gid}}
	socketIdentity = func() identity { return id }
	t.Cleanup(func() { socketIdentity = own })
}

// escUsers returns the current user and, when that is root, the
// unprivileged test user. A missing test user is a skip with a reason, or a
// failure when SANDTABLE_REQUIRE_BWRAP=1.
func escUsers(t *testing.T) []*escUser {
	t.Helper()
	cur := &escUser{label: "root", uid: os.Geteuid(), gid: os.Getegid()}
	if !cur.isRoot() {
		cur.label = "uid-" + strconv.Itoa(cur.uid)
		t.Logf("not root: running as uid %d only (the root runs need a root caller)", cur.uid)
		return []*escUser{cur}
	}
	users := []*escUser{cur}
	u, err := user.Lookup(escUnprivileged)
	if err != nil {
		msg := fmt.Sprintf("no %s user (.ci/run creates it with useradd -m): the unprivileged runs are skipped: %v", escUnprivileged, err)
		if os.Getenv("SANDTABLE_REQUIRE_BWRAP") == "1" {
			t.Fatal(msg)
		}
		t.Log(msg)
		return users
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || uid == 0 {
		t.Fatalf("%s: unusable uid %q gid %q", escUnprivileged, u.Uid, u.Gid)
	}
	return append(users, &escUser{
		label: "unprivileged", uid: uid, gid: gid,
		cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}},
	})
}

// escPass is everything one user's run of the suite shares: a base
// directory outside /tmp, a home with the usual secrets in it, and the
// process environment (HOME, the stripped variables) Command reads.
type escPass struct {
	u         *escUser
	base      string
	home      string
	sshKey    string // $HOME/.ssh/id_ed25519, hidden by the table's defaults
	sshSecret string
	astrid    string // the value of every stripped variable during the pass
	py        string // python3 on escPath, or "" when there is none
	bash      string
	// fixture holds what passFixtures made, by a name of their choosing.
	fixture map[string]string
	// sockets is set once an attempt listened on a path socket; see
	// socketGrace.
	sockets atomic.Bool
}

// socketGrace is how long a pass that made path sockets waits, once all of
// them are closed, before their files go with its directory: a spawn that
// listed one while it was open (hide-host-socket), in this process or
// another, fails if the file is gone before bwrap mounts over it. On a
// loaded machine (two cores, both test binaries spawning at once) that
// spawn can take well over the usual milliseconds.
const socketGrace = 3 * time.Second

// newEscPass builds the pass's fixtures and points HOME (and the stripped
// variables) at them for the rest of the calling test function: Command
// reads both from the process environment. Only the suite's own goroutines
// run meanwhile (top-level tests run one at a time), and restore puts the
// environment back.
func newEscPass(t *testing.T, u *escUser) (pass *escPass, restore func()) {
	t.Helper()
	p := &escPass{u: u, py: escLook("python3"), bash: escLook("bash")}
	if p.bash == "" {
		t.Fatalf("no bash on %s", escPath)
	}
	p.base = hostDir(t)
	t.Cleanup(func() { // before hostDir's removal
		if p.sockets.Load() {
			time.Sleep(socketGrace)
		}
	})
	if err := os.Chmod(p.base, 0o755); err != nil {
		t.Fatal(err)
	}
	p.home = filepath.Join(p.base, "home")
	p.escMkdir(t, p.home, 0o700)
	p.escMkdir(t, filepath.Join(p.home, ".ssh"), 0o700)
	p.sshSecret = escToken("ssh-key")
	p.sshKey = filepath.Join(p.home, ".ssh", "id_ed25519")
	p.escWrite(t, p.sshKey, p.sshSecret, 0o600)
	p.escMkdir(t, filepath.Join(p.home, ".gnupg"), 0o700)
	p.escWrite(t, filepath.Join(p.home, ".bashrc"), "# sandtable test home\n", 0o644)
	p.astrid = escToken("astrid-env")

	saved := map[string]*string{}
	set := func(k, v string) {
		if _, again := saved[k]; again {
			os.Setenv(k, v) // the value before the pass is already saved
			return
		}
		if old, ok := os.LookupEnv(k); ok {
			saved[k] = &old
		} else {
			saved[k] = nil
		}
		os.Setenv(k, v)
	}
	set("HOME", p.home)
	for _, name := range strippedEnv {
		set(name, p.astrid)
	}
	p.fixture = map[string]string{}
	for _, f := range passFixtures {
		f(t, p, set)
	}
	// bwrap runs as the pass's user: the host sockets worth hiding are the
	// ones that user can reach (hide-host-socket).
	u.spawnAs(t)
	return p, func() {
		for k, v := range saved {
			if v == nil {
				os.Unsetenv(k)
			} else {
				os.Setenv(k, *v)
			}
		}
	}
}

func (p *escPass) chown(t *testing.T, path string) {
	t.Helper()
	if p.u.cred == nil {
		return
	}
	if err := os.Lchown(path, p.u.uid, p.u.gid); err != nil {
		t.Fatal(err)
	}
}

func (p *escPass) escMkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	p.chown(t, dir)
}

func (p *escPass) escWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	p.chown(t, path)
}

// each runs fn for every attempt, escParallel at a time, each in a subtest
// named after the attempt. (t.Run may be called from several goroutines;
// this one waits for all of them.)
func (p *escPass) each(t *testing.T, attempts []*attempt, fn func(t *testing.T, e *escEnv)) {
	sem := make(chan struct{}, escParallel)
	var wg sync.WaitGroup
	for _, a := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(a.name, func(t *testing.T) {
				if e := p.newEnv(t, a); e != nil {
					fn(t, e)
				}
			})
		}()
	}
	wg.Wait()
}

// escEnv is one attempt's fixture for one user.
type escEnv struct {
	*escPass
	t   *testing.T
	a   *attempt
	dir string // the attempt's own directory, owned by the user
	ws  string // the workspace: dir/ws
	out string // a directory outside the workspace the user owns: dir/out

	cfg    Config
	vars   map[string]string // exported to the snippet, in every mode
	secret string            // the default check: this appears in the output
	stdin  *os.File
	wrap   func(cmd *exec.Cmd, m escMode) // adjusts the command (e.g. a keyring-holding launcher)
	victim *escVictim
	mode   escMode // the run in progress, for a runner that needs to know
}

func (p *escPass) newEnv(t *testing.T, a *attempt) *escEnv {
	t.Helper()
	for _, tool := range a.needs {
		if escLook(tool) == "" {
			t.Skipf("%s is not on %s", tool, escPath)
		}
	}
	e := &escEnv{escPass: p, t: t, a: a}
	e.dir = filepath.Join(p.base, a.name)
	e.ws = filepath.Join(e.dir, "ws")
	e.out = filepath.Join(e.dir, "out")
	for _, d := range []string{e.dir, e.ws, e.out} {
		p.escMkdir(t, d, 0o755)
	}
	// The unprivileged runs build the spawn as root and start it as the
	// test user, whom a cache directory made for the caller (root, 0700)
	// does not serve: their caches are off. The caches are attacked on
	// their own, as each user, in TestCacheEscape. The suite's controls run
	// and edit bwrap's own argv (a rule dropped or swapped, bwrap under a
	// launcher), which network mode proxy, the default, puts behind its
	// wrap helper: the suite asks for mode host, and an attempt about the
	// network names its own mode (TestNetworkProxyCommand runs the proxy's
	// attacks through Command).
	e.cfg = Config{Workspace: e.ws, NoCache: p.u.cred != nil, Network: Network{Mode: NetworkHost}}
	e.vars = map[string]string{"WS": e.ws, "OUT": e.out, "PY": p.py, "SSH_KEY": p.sshKey}
	if a.setup != nil {
		a.setup(e)
	}
	return e
}

// file writes a file the user owns.
func (e *escEnv) file(path, content string, mode os.FileMode) string {
	e.t.Helper()
	e.escWrite(e.t, path, content, mode)
	return path
}

// mkdir makes a directory the user owns.
func (e *escEnv) mkdir(path string) string {
	e.t.Helper()
	e.escMkdir(e.t, path, 0o755)
	return path
}

// secretFile writes a fresh secret to path and makes it the default check.
func (e *escEnv) secretFile(path string) string {
	e.t.Helper()
	e.secret = escToken(e.a.name)
	return e.file(path, e.secret+"\n", 0o600)
}

// escToken is unguessable, so finding it in the output proves a read.
func escToken(what string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return "SANDTABLE-" + strings.ToUpper(what) + "-" + hex.EncodeToString(b)
}

// escLook finds a program on escPath, as the child will.
func escLook(name string) string {
	for _, dir := range filepath.SplitList(escPath) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o001 != 0 {
			return p
		}
	}
	return ""
}

// ---- modes: how a snippet is run ----

type escKind int

const (
	modeSandbox    escKind = iota // sandbox.Command, as a caller would
	modeRules                     // the real argv with some rules' steps dropped or swapped
	modeOutside                   // no sandbox at all
	modeUnstripped                // the real argv, but the environment is not stripped
	modeSpec                      // the original upstream argv
	modeNone                      // no control is possible for this user
)

// escMode says how to run a snippet; for a control, which rules are out.
type escMode struct {
	kind escKind
	drop []string            // rule ids, or "rule=path" for the step that names path
	swap map[string][]string // rule id -> the args that replace its step
	why  string              // modeNone: why no control can succeed
	note string              // modeRules: what else the control changes
	// seccompOut are seccomp entries (rule ids) the control's filter is
	// assembled without; the rest of the filter stays.
	seccompOut []string
	// helperAdd and helperDrop are words the control adds to or drops
	// from the wrap helper's, before its "--" (stdio=as-is,
	// scope=abstract); see editHelper.
	helperAdd, helperDrop []string
}

func dropRules(ids ...string) escMode { return escMode{kind: modeRules, drop: ids} }
func swapRule(id string, args ...string) escMode {
	return escMode{kind: modeRules, swap: map[string][]string{id: args}}
}

// dropSeccomp keeps the filter but assembles it without these entries.
func dropSeccomp(ids ...string) escMode { return escMode{kind: modeRules, seccompOut: ids} }
func outsideCtl() escMode               { return escMode{kind: modeOutside} }
func noCtl(why string) escMode          { return escMode{kind: modeNone, why: why} }
func unstrippedCtl() escMode            { return escMode{kind: modeUnstripped} }

// realArgvCtl runs the real argv, every rule in, through exec.Cmd rather
// than Command: for an attack that a runtime step of Command stops, and
// that the control's setup (note) reopens.
func realArgvCtl(note string) escMode { return escMode{kind: modeRules, note: note} }

// asIsCtl is realArgvCtl with the wrap helper's stdio=as-is: the caller's
// streams reach the command as they are.
func asIsCtl(note string) escMode {
	return escMode{kind: modeRules, note: note, helperAdd: []string{wrapHelperStdioAsIs}}
}

// helperCtl runs the snippet through Command with the wrap helper's words
// edited: added, or dropped (each must be there).
func helperCtl(add, drop []string) escMode {
	return escMode{kind: modeSandbox, helperAdd: add, helperDrop: drop}
}

func rootOnly(e *escEnv, m escMode) escMode {
	if e.u.isRoot() {
		return m
	}
	return noCtl("needs uid 0 on the host: the kernel refuses it to this user with or without a sandbox")
}

func (m escMode) String() string {
	switch m.kind {
	case modeSandbox:
		s := "sandbox"
		if m.note != "" {
			s += " + " + m.note
		}
		return s + m.helperString()
	case modeOutside:
		return "outside the sandbox"
	case modeUnstripped:
		return "environment not stripped"
	case modeSpec:
		return "spec argv"
	case modeNone:
		return "n/a: " + m.why
	}
	var parts []string
	for _, d := range m.drop {
		parts = append(parts, "-"+d)
	}
	for _, id := range slices.Sorted(mapKeys(m.swap)) {
		parts = append(parts, id+"→"+strings.Join(m.swap[id], " "))
	}
	for _, id := range m.seccompOut {
		parts = append(parts, "-seccomp:"+id)
	}
	if len(parts) == 0 {
		parts = append(parts, "the real argv")
	}
	if m.note != "" {
		parts = append(parts, "+ "+m.note)
	}
	return strings.Join(parts, " ") + m.helperString()
}

func (m escMode) helperString() string {
	var s string
	for _, w := range m.helperAdd {
		s += " +helper:" + w
	}
	for _, w := range m.helperDrop {
		s += " -helper:" + w
	}
	return s
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// escResult is what one run of a snippet produced.
type escResult struct {
	out string // stdout and stderr together
	err error
	ran bool // the snippet started (escRan was printed)
}

// command builds the *exec.Cmd for one run of the attempt's snippet.
func (e *escEnv) command(ctx context.Context, m escMode) *exec.Cmd {
	e.t.Helper()
	script := "echo " + escRan + "\n" + e.a.script
	var cmd *exec.Cmd
	switch m.kind {
	case modeSandbox:
		c, err := Command(ctx, e.cfg, "bash", "-c", script)
		if err != nil {
			e.t.Fatalf("Command: %v", err)
		}
		if !runsBwrap(c) {
			e.t.Fatalf("Command did not sandbox: %v", c.Args)
		}
		cmd = c
	case modeOutside:
		cmd = exec.CommandContext(ctx, e.bash, "-c", script)
		cmd.Env = stripEnv(os.Environ())
		cmd.Dir = e.ws
	default:
		prog, argv, files := e.argv(m)
		cmd = exec.CommandContext(ctx, prog, append(argv, "bash", "-c", script)...)
		cmd.Env = stripEnv(os.Environ())
		if m.kind == modeUnstripped {
			cmd.Env = os.Environ()
		}
		if prog == wrapHelperExe {
			cmd.Env = append(cmd.Env, wrapHelperParent())
		}
		cmd.Dir = e.ws
		cmd.ExtraFiles = openTestFiles(e.t, files)
	}
	cmd.Args = editHelper(e.t, cmd.Args, m)
	cmd.Env = e.childEnv(cmd.Env)
	if e.u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: e.u.cred}
	}
	if e.stdin != nil {
		cmd.Stdin = e.stdin
	}
	cmd.WaitDelay = time.Second
	if e.wrap != nil {
		e.wrap(cmd, m)
	}
	return cmd
}

// childEnv filters env (Command's stripped environment) and adds the pass's
// HOME, the child's PATH and the attempt's variables.
func (e *escEnv) childEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(e.vars)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, mine := e.vars[k]; mine || k == "HOME" || k == "PATH" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+e.home, "PATH="+escPath)
	for _, k := range slices.Sorted(mapKeys(e.vars)) {
		out = append(out, k+"="+e.vars[k])
	}
	return out
}

// argv is bwrap, its arguments and the files behind their descriptors for
// a control or the upstream argv, built with the public API from the same facts
// Command uses: Prefix for the program and the real argv, Explain for each
// rule's share of it. A control that drops a rule still passes every file:
// a descriptor nothing names is harmless.
func (e *escEnv) argv(m escMode) (string, []string, []WrapFile) {
	e.t.Helper()
	var (
		w      Wrap
		helper []string // the wrap helper's argv up to its "--"
		steps  []Step
		err    error
	)
	// The host's sockets are listed anew by each call (hide-host-socket),
	// and a concurrent attempt's may come or go between the two.
	for try := 0; try < 5; try++ {
		if w, err = Prefix(e.cfg); err != nil {
			e.t.Fatal(err)
		}
		if helper, err = splitHelper(&w); err != nil {
			e.t.Fatal(err)
		}
		if steps, err = Explain("linux", e.cfg); err != nil {
			e.t.Fatal(err)
		}
		var flat []string
		for _, s := range steps {
			flat = append(flat, s.Args...)
		}
		if slices.Equal(flat, w.Args) {
			break
		}
	}
	switch m.kind {
	case modeSpec:
		return w.Program, e.specArgs(steps), nil // upstream had no helper
	case modeUnstripped:
		prog, args := withHelper(helper, w.Program, w.Args)
		return prog, args, w.Files
	}
	var all, a []string
	used := map[string]bool{}
	for _, s := range steps {
		all = append(all, s.Args...)
		if d := m.dropping(s); d != "" {
			used[d] = true
			continue
		}
		if r, ok := m.swap[s.Rule]; ok {
			used[s.Rule] = true
			a = append(a, r...)
			continue
		}
		a = append(a, s.Args...)
	}
	if !slices.Equal(all, w.Args) {
		e.t.Fatalf("Explain and Prefix disagree:\n%q\n%q", all, w.Args)
	}
	for _, d := range m.drop {
		if !used[d] {
			e.t.Fatalf("control drops %q, but no step matches it in %q", d, all)
		}
	}
	for id := range m.swap {
		if !used[id] {
			e.t.Fatalf("control swaps %q, but no step matches it in %q", id, all)
		}
	}
	prog, args := withHelper(helper, w.Program, a)
	return prog, args, e.withoutSeccomp(w.Files, m.seccompOut)
}

// splitHelper takes the wrap helper off w, whose Program and Args become
// bwrap's own, and returns the helper's words through its "--" (nil when
// there is no helper).
func splitHelper(w *Wrap) ([]string, error) {
	if w.Program != wrapHelperExe {
		return nil, nil
	}
	end := slices.Index(w.Args, "--")
	if len(w.Args) == 0 || w.Args[0] != wrapHelperArg || end < 0 || end+1 >= len(w.Args) {
		return nil, fmt.Errorf("malformed wrap helper argv %q", w.Args)
	}
	words := slices.Clone(w.Args[:end+1])
	w.Program, w.Args = w.Args[end+1], w.Args[end+2:]
	return words, nil
}

// withHelper puts bwrap's argv back behind the helper's words.
func withHelper(words []string, bwrap string, args []string) (string, []string) {
	if words == nil {
		return bwrap, args
	}
	return wrapHelperExe, append(append(slices.Clone(words), bwrap), args...)
}

// editHelper adds and drops the wrap helper's words in argv (an exec.Cmd's
// Args, argv[0] first) as m says. An edit is never silently lost: without
// a helper, or a dropped word that is not there, the test fails.
func editHelper(t *testing.T, argv []string, m escMode) []string {
	t.Helper()
	if len(m.helperAdd) == 0 && len(m.helperDrop) == 0 {
		return argv
	}
	end := slices.Index(argv, "--")
	if len(argv) < 2 || argv[1] != wrapHelperArg || end < 0 {
		t.Fatalf("control edits the wrap helper's words (%s), but the argv has no helper: %q", m.helperString(), argv)
	}
	words := slices.Clone(argv[2:end])
	for _, d := range m.helperDrop {
		i := slices.Index(words, d)
		if i < 0 {
			t.Fatalf("control drops the wrap helper's %q, which its words %q lack", d, words)
		}
		words = slices.Delete(words, i, i+1)
	}
	words = append(words, m.helperAdd...)
	out := append(append([]string{argv[0], argv[1]}, words...), argv[end:]...)
	return out
}

// withoutSeccomp replaces the filter among files by one assembled without
// the entries ids.
func (e *escEnv) withoutSeccomp(files []WrapFile, ids []string) []WrapFile {
	e.t.Helper()
	if len(ids) == 0 {
		return files
	}
	out := slices.Clone(files)
	for i, f := range out {
		if f.Path == "" && bytes.Equal(f.Data, nativeSeccomp()) {
			out[i].Data = seccompWithout(e.t, generatedSeccomp, ids...).Filter(runtime.GOARCH)
			return out
		}
	}
	e.t.Fatalf("control drops seccomp entries %q, but the argv loads no filter", ids)
	return nil
}

// openTestFiles opens a wrapper's descriptors for one spawn and closes the
// ones opened for it alone when the test ends.
func openTestFiles(t *testing.T, files []WrapFile) []*os.File {
	t.Helper()
	fds, owned, err := openFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeAll(owned) })
	return fds
}

// dropping returns the drop entry that removes step s, or "".
func (m escMode) dropping(s Step) string {
	for _, d := range m.drop {
		id, path, scoped := strings.Cut(d, "=")
		// A rule's -read-only companion remounts what the rule mounted,
		// and fails the spawn without it.
		if s.Rule != id && s.Rule != id+"-read-only" {
			continue
		}
		if !scoped || slices.Contains(s.Args, path) {
			return d
		}
	}
	return ""
}

// specArgs is the original upstream argv (build_bwrap_prefix): the host
// read-only, a fresh /dev, /proc and /tmp, every hidden path as a tmpfs
// before the workspace bind, then the namespaces. Hidden paths are the
// table's defaults that exist plus the caller's, as the caller spelled them.
// (Read and write grants have no counterpart upstream; they are bound
// after the workspace, in order.)
func (e *escEnv) specArgs(steps []Step) []string {
	e.t.Helper()
	defaults, err := Explain("linux", Config{Workspace: e.cfg.Workspace, Reveal: e.cfg.Reveal})
	if err != nil {
		e.t.Fatal(err)
	}
	a := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	// Default files are left out: upstream's tmpfs on a file fails every
	// spawn, and a host with /etc/shadow would then show no escape at all.
	for _, s := range defaults {
		if s.Rule == "hide-dir" {
			a = append(a, "--tmpfs", s.Args[len(s.Args)-1])
		}
	}
	for _, h := range e.cfg.Hidden {
		a = append(a, "--tmpfs", h)
	}
	network := false
	for _, s := range steps {
		if s.Rule == "workspace-bind" {
			a = append(a, s.Args...)
		}
		network = network || s.Rule == "share-net"
	}
	for _, s := range steps {
		switch s.Rule {
		case "read-path", "write-path":
			a = append(a, s.Args...)
		}
	}
	a = append(a, "--unshare-all")
	if network {
		a = append(a, "--share-net")
	}
	return append(a, "--die-with-parent", "--")
}

// run runs the snippet once in mode m.
func (e *escEnv) run(m escMode) *escResult {
	e.t.Helper()
	runner := e.a.run
	if runner == nil {
		runner = runPlain
	}
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(e.t.Context(), 20*time.Second)
		cmd := e.command(ctx, m)
		e.mode = m
		r := runner(e, cmd)
		cancel()
		// A host socket another attempt removed after this argv was built
		// fails bwrap's mount over it before anything runs; the library
		// says to run it again (hide-host-socket), as NewCmd does itself.
		if r.ran || try == 2 || !vanishedMountPoint(r.out) {
			return r
		}
		e.t.Logf("run again: %s", escShort(r.out))
	}
}

// vanishedMountPoint reports whether bwrap's output says it could not make
// a mount point that is no longer there on the host: a socket (the
// attempts name theirs *.sock).
func vanishedMountPoint(out string) bool {
	for _, prefix := range []string{"bwrap: Can't create file at ", "bwrap: Can't mkdir parents for "} {
		i := strings.Index(out, prefix)
		if i < 0 {
			continue
		}
		rest := out[i+len(prefix):]
		path, _, _ := strings.Cut(rest, ":")
		// Sockets only: an attempt may remove a hidden path on purpose.
		if _, err := os.Lstat(path); strings.HasSuffix(path, ".sock") && errors.Is(err, os.ErrNotExist) {
			return true
		}
	}
	return false
}

func runPlain(e *escEnv, cmd *exec.Cmd) *escResult {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return &escResult{out: buf.String(), err: err, ran: strings.Contains(buf.String(), escRan)}
}

func (e *escEnv) escaped(r *escResult) bool {
	if e.a.escaped != nil {
		return e.a.escaped(e, r)
	}
	if e.secret == "" {
		e.t.Fatalf("attempt %s has neither a check nor a secret", e.a.name)
	}
	return strings.Contains(r.out, e.secret)
}

// ---- the attempt and its verdict ----

// attempt is one escape: a snippet, the fixture it attacks, how to tell it
// worked, and the control that proves the check can see it work.
type attempt struct {
	name   string
	what   string // one line for the table
	needs  []string
	setup  func(e *escEnv)
	script string
	// escaped reports whether the attack worked; nil means e.secret
	// appeared in the output.
	escaped func(e *escEnv, r *escResult) bool
	// control returns how to run the snippet so that it must succeed.
	control func(e *escEnv) escMode
	// run replaces runPlain (a pty, a parent to kill).
	run func(e *escEnv, cmd *exec.Cmd) *escResult
	// hole names the rule whose absence leaves this attack open; while
	// rules/ has no rule of that id the attempt is reported, not failed.
	hole string
	// runtimeHole describes the runtime change that would close this
	// attack; until it lands the attempt is reported, not failed. Remove
	// it with the fix, and the attempt is enforced like the others.
	runtimeHole string
	// documented: the attack works by design; the test asserts it still
	// does, so the documentation stays true.
	documented string
}

// verdict runs the attempt in the sandbox and then its control, and returns
// the table cell.
func (e *escEnv) verdict() string {
	t := e.t
	r := e.run(escMode{kind: modeSandbox})
	if !r.ran {
		t.Fatalf("the sandbox did not run the snippet (%v):\n%s", r.err, r.out)
	}
	esc := e.escaped(r)
	t.Logf("in the sandbox (%v): %s", r.err, escShort(r.out))
	var cell string
	switch {
	case e.a.documented != "":
		if !esc {
			t.Errorf("documented as working (%s), but it did not:\n%s", e.a.documented, r.out)
			cell = "blocked (doc says leaks!)"
		} else {
			t.Logf("works by design: %s", e.a.documented)
			cell = "LEAKS (documented)"
		}
	case e.a.runtimeHole != "":
		if !esc {
			t.Errorf("known hole did not reproduce; if the runtime fixed it (%s), delete runtimeHole:\n%s", e.a.runtimeHole, r.out)
			cell = "blocked (hole not reproduced?)"
		} else {
			t.Logf("KNOWN HOLE, open until the runtime %s: %s", e.a.runtimeHole, e.a.what)
			cell = "HOLE (runtime)"
		}
	case e.a.hole != "" && !ruleExists(e.a.hole):
		if !esc {
			t.Errorf("known hole (needs rule %s) did not reproduce:\n%s", e.a.hole, r.out)
			cell = "blocked (hole not reproduced?)"
		} else {
			t.Logf("KNOWN HOLE, open until rule %q exists: %s", e.a.hole, e.a.what)
			cell = "HOLE (needs " + e.a.hole + ")"
		}
	case esc:
		t.Errorf("ESCAPED: %s\n%s", e.a.what, r.out)
		cell = "ESCAPED"
	default:
		cell = "blocked"
	}

	ctl := escMode{kind: modeNone, why: "none given"}
	if e.a.control != nil {
		ctl = e.a.control(e)
	}
	if ctl.kind == modeNone {
		t.Logf("no control for %s: %s", e.u.label, ctl.why)
		return cell + "; control n/a"
	}
	rc := e.run(ctl)
	switch {
	case !rc.ran:
		t.Errorf("control (%s) did not run the snippet (%v):\n%s", ctl, rc.err, rc.out)
		return cell + "; control BROKEN"
	case !e.escaped(rc):
		t.Errorf("control (%s) did not escape, so this attempt proves nothing (%v):\n%s", ctl, rc.err, rc.out)
		return cell + "; control FAILED"
	}
	return cell + "; control ok (" + ctl.String() + ")"
}

// flagRun is the -run pattern, so a filtered run is not held to the
// suite's size.
func flagRun() string {
	if f := flag.Lookup("test.run"); f != nil {
		return f.Value.String()
	}
	return ""
}

// escShort trims output for the log.
func escShort(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, escRan+"\n", ""))
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

func ruleExists(id string) bool {
	for _, r := range ruleTable {
		if r.ID == id {
			return true
		}
	}
	return false
}

// escTable collects one cell per attempt and user.
type escTable struct {
	mu    sync.Mutex
	cells map[string]map[string]string
	users []string
}

func newEscTable() *escTable { return &escTable{cells: map[string]map[string]string{}} }

func (tb *escTable) set(attempt, user, cell string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.cells[attempt] == nil {
		tb.cells[attempt] = map[string]string{}
	}
	if !slices.Contains(tb.users, user) {
		tb.users = append(tb.users, user)
	}
	tb.cells[attempt][user] = cell
}

func (tb *escTable) String() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var b strings.Builder
	names := make([]string, 0, len(tb.cells))
	for n := range tb.cells {
		names = append(names, n)
	}
	order := map[string]int{}
	for i, a := range escAttempts {
		order[a.name] = i
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	fmt.Fprintf(&b, "\n%-24s", "attempt")
	for _, u := range tb.users {
		fmt.Fprintf(&b, " | %s", u)
	}
	b.WriteString("\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%-24s", n)
		for _, u := range tb.users {
			c := tb.cells[n][u]
			if c == "" {
				c = "skipped"
			}
			fmt.Fprintf(&b, " | %s", c)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestEscape runs every attempt as each user, in the sandbox and as its
// control, and logs the table (go test -v -run TestEscape$).
func TestEscape(t *testing.T) {
	requireBwrap(t)
	tab := newEscTable()
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			pass, restore := newEscPass(t, u)
			defer restore()
			pass.each(t, escAttempts, func(t *testing.T, e *escEnv) {
				cell := "FAILED"
				defer func() { tab.set(e.a.name, u.label, cell) }()
				cell = e.verdict()
			})
		})
	}
	distinct, ran := 0, 0
	for _, a := range escAttempts {
		if a.documented == "" {
			distinct++
			if _, ok := tab.cells[a.name]; ok {
				ran++
			}
		}
	}
	if ran < 30 && !t.Skipped() && !strings.Contains(flagRun(), "/") {
		t.Errorf("only %d distinct attempts ran (of %d); the suite promises at least 30", ran, distinct)
	}
	t.Logf("%d attempts, %d of them ran that must fail; per user:%s", len(escAttempts), ran, tab)
}

// TestEscapeSpecArgv replays every attempt against the original upstream argv
// (no /proc/sys bind, no --new-session, no --cap-drop, no --disable-userns,
// hidden paths as --tmpfs before the workspace) and requires the suite to
// catch the holes listed below.
func TestEscapeSpecArgv(t *testing.T) {
	requireBwrap(t)
	tab := newEscTable()
	type key struct{ attempt, user string }
	var mu sync.Mutex
	got := map[key]string{}
	for _, u := range escUsers(t) {
		t.Run(u.label, func(t *testing.T) {
			pass, restore := newEscPass(t, u)
			defer restore()
			pass.each(t, escAttempts, func(t *testing.T, e *escEnv) {
				r := e.run(escMode{kind: modeSpec})
				res := "blocked"
				switch {
				case !r.ran && strings.Contains(r.out, "bwrap:"):
					res = "SPAWN FAILS"
					t.Logf("the upstream argv cannot start: %s", strings.TrimSpace(r.out))
				case !r.ran:
					t.Errorf("spec argv did not run the snippet (%v): %s", r.err, r.out)
					res = "broken"
				case e.escaped(r):
					res = "ESCAPES"
				}
				tab.set(e.a.name, u.label, res)
				mu.Lock()
				got[key{e.a.name, u.label}] = res
				mu.Unlock()
			})
		})
	}
	escapes, spawnFails := 0, 0
	for _, res := range got {
		switch res {
		case "ESCAPES":
			escapes++
		case "SPAWN FAILS":
			spawnFails++
		}
	}
	t.Logf("against the upstream argv: %d escapes and %d refused spawns out of %d runs:%s", escapes, spawnFails, len(got), tab)

	// The holes the upstream argv leaves, each of which the suite must see.
	want := []struct{ attempt, user, res, why string }{
		{"remount-root-rw", "root", "ESCAPES", "root remounts / read-write"},
		{"umount-hidden", "root", "ESCAPES", "root unmounts the hiding tmpfs"},
		{"proc-sys-kernel", "root", "ESCAPES", "root writes /proc/sys"},
		{"tiocsti", "root", "ESCAPES", "TIOCSTI without --new-session"},
		{"tiocsti", "unprivileged", "ESCAPES", "TIOCSTI without --new-session"},
		{"hidden-inside-ws", "root", "ESCAPES", "the workspace bind uncovers a hidden path inside it"},
		{"hidden-inside-ws", "unprivileged", "ESCAPES", "the workspace bind uncovers a hidden path inside it"},
		{"hidden-file", "root", "SPAWN FAILS", "--tmpfs on a hidden regular file"},
		{"hidden-missing", "root", "SPAWN FAILS", "--tmpfs on a missing hidden path"},
	}
	ranAs := map[string]bool{}
	ranAttempt := map[string]bool{}
	for k := range got {
		ranAs[k.user], ranAttempt[k.attempt] = true, true
	}
	for _, w := range want {
		res, ok := got[key{w.attempt, w.user}]
		if !ok {
			// Filtered out by -run, or the user is missing (already
			// reported by escUsers); otherwise it is a bug.
			if ranAs[w.user] && ranAttempt[w.attempt] {
				t.Errorf("%s as %s did not run against the upstream argv", w.attempt, w.user)
			}
			continue
		}
		if res != w.res {
			t.Errorf("spec argv, %s as %s: %s, want %s (%s)", w.attempt, w.user, res, w.res, w.why)
		}
	}
}
