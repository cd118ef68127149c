package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Cmd is a sandboxed command whose own spawn is the availability check.
// Use it like an [exec.Cmd] through its own methods (Start, Wait, Run,
// Output, CombinedOutput, the pipe methods), never the embedded ones. Wait
// wraps [ErrUnavailable] when bwrap could not build the sandbox,
// [exec.ErrNotFound] when the command does not exist in it and
// [fs.ErrPermission] when it cannot be executed; anything else is the
// command's own status. Start applies the table's stdio rules
// ([GuardStdio]). README.md, "Command, NewCmd and Cmd", has the details.
type Cmd struct {
	*exec.Cmd

	ctx  context.Context
	name string
	// checked is the Linux spawn that doubles as the check; nil when the
	// embedded exec.Cmd runs as it is.
	checked *checkedSpawn
	// pipes is set once a pipe method ran: exec.Cmd closes the child's ends
	// after Start, so a second Start (the retry without an option an old
	// bwrap rejects) could not reuse them.
	pipes bool
	// ownPipes are the child's ends of the pipe methods' pipes, which are
	// the command's own and reach it as they are.
	ownPipes []*os.File
	// wrapped is set when the command runs in a sandbox, whose Start
	// applies the table's stdio rules.
	wrapped bool
	// owned are the ExtraFiles opened for this spawn alone, closed by
	// Start.
	owned []*os.File
	// watch stops the run when a hidden or protected path changes on the
	// host (rules/linux.yaml, watch); nil when there is nothing to watch.
	watch *hostWatch
	// ph is the run's placeholders and the shared locks on the protected
	// paths' directories that decide who removes one (placeholders.go).
	ph *phRun
	// workdir is where the command starts: the workspace. Dir is bwrap's
	// own working directory, / on Linux.
	workdir string
	// tmpdir is the spawn's own temporary directory on macOS, removed
	// once the command has exited or failed to start.
	tmpdir string
	// stopProxy stops serving a macOS spawn's proxy (proxy_mac.go), once
	// the command has exited or failed to start; a no-op otherwise.
	stopProxy func()
	// backend is the spawn's (Backend); reduced what it does not keep.
	backend Backend
	reduced []Guarantee
}

// NewCmd is [Command] with the availability check folded into the spawn:
// it validates cfg and gathers the path facts now, and executes nothing
// until [Cmd.Start]. Each spawn costs one bwrap execution, the first one
// included (README.md, "Command, NewCmd and Cmd").
func NewCmd(ctx context.Context, cfg Config, name string, args ...string) (*Cmd, error) {
	check := checkWorks
	if runtime.GOOS == "linux" {
		check = checkFound
	}
	// A root caller's network namespace for mode proxy is made while the
	// plan is: about a millisecond of the kernel's work.
	var early *netThread
	if b, err := cfg.Backend.resolve(); err != nil || b == BackendBwrap {
		early = earlyNetThread(cfg) // the reduced backend makes no namespace
	}
	s, err := command(ctx, cfg, check, name, args...)
	if err != nil {
		early.cancel()
		return nil, err
	}
	phaseDone("plan")
	c := &Cmd{Cmd: s.cmd, ctx: ctx, name: name, owned: s.owned, workdir: s.workdir, wrapped: s.plan != nil, backend: s.backend, reduced: s.reduced}
	if c.stopProxy, err = serveMacProxy(built(s.plan, s.host)); err != nil {
		closeAll(s.owned)
		removeTmpdir(c.tmpdir)
		return nil, err
	}
	c.tmpdir = s.host.tmpdir
	if s.plan != nil && s.backend == BackendLandlock {
		// The reduced backend's helper does at run time what the checked spawn
		// does for bwrap (backend_landlock_linux.go).
		early.cancel()
		early = nil
		if err := landlockNewCmd(c, s.plan); err != nil {
			closeAll(s.owned)
			c.stopProxy()
			return nil, err
		}
		return c, nil
	}
	if s.plan != nil && check == checkFound {
		if c.checked, err = newCheckedSpawn(c, s.plan, s.host, s.files); err != nil {
			early.cancel()
			closeAll(s.owned)
			return nil, err
		}
		phaseDone("check")
	}
	if c.checked != nil {
		c.checked.adoptEarly(c, early)
	} else {
		early.cancel()
	}
	if c.checked == nil {
		if err := refuseRequired(s.plan, "sandbox-exec has no moment to apply it", "leave it unset on macOS"); err != nil {
			closeAll(s.owned)
			c.stopProxy()
			return nil, err
		}
	}
	if c.checked != nil && ctx != nil {
		// A retry renews the embedded exec.Cmd in place (renew): Cancel
		// kills the process of the attempt that runs.
		s.cmd.Cancel = func() error { return c.Process.Kill() }
	}
	return c, nil
}

// Workdir is the directory the command starts in, the workspace, where a
// relative command name is found. On Linux it differs from Dir, which is
// bwrap's: / (see the table's chdir rule).
func (c *Cmd) Workdir() string { return c.workdir }

// Sees reports whether the command, once started, finds at path (absolute)
// what this process finds there: on Linux, not under the sandbox's private
// /tmp or a hidden directory, nor through a link that is. It is true when
// nothing wraps the command, and on macOS, whose profile denies by path: a
// denied path is still there, unreadable.
func (c *Cmd) Sees(path string) bool {
	return c.checked == nil || c.checked.sees(filepath.Clean(path))
}

// Start starts the command; on Linux it returns once bwrap has created the
// sandbox's namespaces, or with the reason it could not. Either way it
// closes this process's copy of the descriptors opened for this spawn
// alone (the seccomp filter's memfd): the child has its own by then.
func (c *Cmd) Start() error {
	defer c.closeOwned()
	if c.checked == nil {
		if c.wrapped {
			if err := c.guard(nil); err != nil {
				removeTmpdir(c.tmpdir)
				c.stopProxy()
				return err
			}
		}
		err := c.Cmd.Start()
		if err != nil {
			removeTmpdir(c.tmpdir)
			c.stopProxy()
		}
		return err
	}
	c.checked.prepareNet(c)
	defer c.checked.dropNet()
	ph, err := startPlaceholders(c.checked.plan, journalDirs(""))
	if err != nil {
		return err
	}
	c.checked.ph = ph
	phaseDone("locks")
	// The watch is set up alongside bwrap's own setup: the checked spawn waits
	// for it (ready) before it lets the command run.
	pw := startWatchAsync(c.checked.plan)
	c.checked.ready = pw.ready
	err = c.checked.start(c)
	w, werr := pw.wait()
	phaseDone("watch")
	if err == nil && werr != nil {
		// bwrap's child was gone before the checked spawn let it run: the
		// command never ran, and the watch's reason is the answer.
		_ = c.Process.Kill()
		_ = c.checked.wait(c)
		err = werr
	}
	if err != nil {
		w.stop()
		ph.finish()
		return err
	}
	c.ph = ph
	w.run(func() { c.Process.Kill() })
	c.watch = w
	return nil
}

func (c *Cmd) closeOwned() {
	closeAll(c.owned)
	c.owned = nil
}

// Wait waits for the command and tells a sandbox that failed apart from the
// command's own status; see [Cmd].
func (c *Cmd) Wait() error {
	if c.checked == nil {
		defer removeTmpdir(c.tmpdir)
		defer c.stopProxy()
		return c.Cmd.Wait()
	}
	defer phaseDone("after")
	defer c.ph.finish()
	err := c.checked.wait(c)
	why := c.watch.stop()
	c.watch = nil
	if why != "" {
		return fmt.Errorf("sandbox: the run was stopped: %s: %w", why, ErrHostChanged)
	}
	return err
}

// Run starts the command and waits for it.
func (c *Cmd) Run() error {
	if err := c.Start(); err != nil {
		return err
	}
	return c.Wait()
}

// Output runs the command and returns its standard output. As with
// [exec.Cmd], an *exec.ExitError carries the end of stderr when Stderr was nil.
func (c *Cmd) Output() ([]byte, error) {
	if c.checked == nil {
		return c.Cmd.Output()
	}
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	var stdout bytes.Buffer
	c.Stdout = &stdout
	err := c.Run()
	var ee *exec.ExitError
	if c.Stderr == nil && errors.As(err, &ee) && c.checked.tail != nil {
		ee.Stderr = c.checked.tail.bytes()
	}
	return stdout.Bytes(), err
}

// CombinedOutput runs the command and returns its standard output and
// standard error, interleaved as one pipe delivers them.
func (c *Cmd) CombinedOutput() ([]byte, error) {
	if c.checked == nil {
		return c.Cmd.CombinedOutput()
	}
	if c.Stdout != nil {
		return nil, errors.New("exec: Stdout already set")
	}
	if c.Stderr != nil {
		return nil, errors.New("exec: Stderr already set")
	}
	var b bytes.Buffer
	c.Stdout, c.Stderr = &b, &b
	err := c.Run()
	return b.Bytes(), err
}

// guard applies the table's stdio rules to the embedded exec.Cmd's
// streams; see GuardStdio.
func (c *Cmd) guard(gate *stdinGate) error {
	g, err := guardStreams(c.Stdin, c.Stdout, c.Stderr, gate, c.ownPipes)
	if err != nil {
		return err
	}
	c.Stdin, c.Stdout, c.Stderr = g.stdin, g.stdout, g.stderr
	return nil
}

// StdinPipe is [exec.Cmd.StdinPipe].
func (c *Cmd) StdinPipe() (io.WriteCloser, error) {
	c.pipes = true
	w, err := c.Cmd.StdinPipe()
	if f, ok := c.Cmd.Stdin.(*os.File); ok && err == nil {
		c.ownPipes = append(c.ownPipes, f)
	}
	return w, err
}

// StdoutPipe is [exec.Cmd.StdoutPipe].
func (c *Cmd) StdoutPipe() (io.ReadCloser, error) {
	c.pipes = true
	r, err := c.Cmd.StdoutPipe()
	if f, ok := c.Cmd.Stdout.(*os.File); ok && err == nil {
		c.ownPipes = append(c.ownPipes, f)
	}
	return r, err
}

// StderrPipe is [exec.Cmd.StderrPipe]. The pipe is an [*os.File], so bwrap's
// own message on a failure reaches the reader, and the error comes from a
// re-run (see [Cmd]).
func (c *Cmd) StderrPipe() (io.ReadCloser, error) {
	c.pipes = true
	r, err := c.Cmd.StderrPipe()
	if f, ok := c.Cmd.Stderr.(*os.File); ok && err == nil {
		c.ownPipes = append(c.ownPipes, f)
	}
	return r, err
}

// replayable reports whether a failed first attempt leaves the command's
// I/O as it found it, so the spawn can be retried: a reader that exec.Cmd
// copies from would have lost what the first attempt's copy consumed.
func (c *Cmd) replayable() bool {
	if c.pipes {
		return false
	}
	switch c.Stdin.(type) {
	case nil, *os.File:
		return true
	}
	return false
}

// status is what bwrap wrote on --json-status-fd: one JSON object per line,
// {"child-pid": N, ...} once the namespaces exist, then {"exit-code": N}
// only if setup finished and the command was executed. The lines are tiny
// and fixed in shape, so they are read by hand.
type status struct {
	buf []byte
}

// childPID reports whether the child-pid line has arrived.
func (s *status) childPID() bool {
	return bytes.Contains(s.buf, []byte(`"child-pid"`))
}

// exitCode returns the command's exit code from the exit-code line.
func (s *status) exitCode() (int, bool) {
	_, rest, ok := bytes.Cut(s.buf, []byte(`"exit-code"`))
	if !ok {
		return 0, false
	}
	rest = bytes.TrimLeft(rest, " \t:")
	end := 0
	for end < len(rest) && (rest[end] == '-' || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	n, err := strconv.Atoi(string(rest[:end]))
	return n, err == nil
}

// readLine reads from f until a full line is buffered or f ends. It reports
// false at the end of f.
func (s *status) readLine(f *os.File) bool {
	for bytes.IndexByte(s.buf, '\n') < 0 {
		if !s.read(f) {
			return false
		}
	}
	return true
}

// readAll reads f to its end.
func (s *status) readAll(f *os.File) {
	for s.read(f) {
	}
}

func (s *status) read(f *os.File) bool {
	if len(s.buf) == cap(s.buf) {
		s.buf = append(s.buf, make([]byte, 256)...)[:len(s.buf)]
	}
	n, err := f.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	return err == nil || n > 0
}

// tailMax is how much of stderr a tail keeps: bwrap's message is one line,
// and an ExitError from Output carries as much as exec.Cmd's would.
const tailMax = 32 << 10

// tail stands in for the command's Stderr when that is not an *os.File:
// exec.Cmd copies through a pipe for such a writer anyway, and this copy
// also keeps the last tailMax bytes. Until release it holds what it is
// given instead of passing it on, so a first attempt that bwrap rejected
// before doing anything leaves no trace in the caller's output.
type tail struct {
	mu   sync.Mutex
	w    io.Writer // the caller's Stderr, or nil
	hold bool
	held []byte
	buf  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	switch {
	case t.w == nil:
		return len(p), nil
	case t.hold:
		t.held = append(t.held, p...)
		return len(p), nil
	}
	return t.w.Write(p)
}

// ReadFrom is what [exec.Cmd]'s copy from the stderr pipe ends up calling
// (io.Copy prefers it), so the copy uses this smaller buffer rather than
// allocating io.Copy's 32 KB for every spawn.
func (t *tail) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 8<<10)
	var n int64
	for {
		m, err := r.Read(buf)
		if m > 0 {
			if _, werr := t.Write(buf[:m]); werr != nil {
				return n, werr
			}
			n += int64(m)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// release passes on what was held and everything after it.
func (t *tail) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hold = false
	if len(t.held) > 0 && t.w != nil {
		_, _ = t.w.Write(t.held) // an error shows again on the next write
	}
	t.held = nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailMax {
		b = b[len(b)-tailMax:]
	}
	return bytes.Clone(b)
}

func (t *tail) String() string { return string(t.bytes()) }

// sameWriter is exec.Cmd's test for Stdout == Stderr, which makes it share
// one pipe between them; comparing interfaces can panic on an uncomparable
// dynamic type, and then they are not the same.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a != nil && a == b
}

// execFailure is bwrap's "execvp NAME: REASON" line, if stderr has one: the
// sandbox was built, and only the command could not be executed.
func execFailure(stderr string) (line string, ok bool) {
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "bwrap: execvp ") {
			return strings.TrimSpace(strings.TrimPrefix(l, "bwrap: ")), true
		}
	}
	return "", false
}

// commandError is a command the sandbox could not execute. It unwraps to
// exec.ErrNotFound or fs.ErrPermission, as a shell would tell 127 from 126.
type commandError struct {
	name   string
	reason string
	err    error
}

func (e *commandError) Error() string {
	return "sandbox: run " + strconv.Quote(e.name) + ": " + e.reason
}

func (e *commandError) Unwrap() error { return e.err }

// readyToRun waits for what must be in place before the command runs
// (ready), if anything.
func (f *checkedSpawn) readyToRun() error {
	if f.ready == nil {
		return nil
	}
	return f.ready()
}
