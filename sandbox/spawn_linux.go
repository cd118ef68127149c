package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sandtable/sandtable/internal/cmdlookup"
	"github.com/sandtable/sandtable/internal/proxy"
)

// checkedSpawn is one Linux spawn that doubles as the availability check.
type checkedSpawn struct {
	host  *bwrapHost
	plan  *plan
	files []WrapFile // what the argv's descriptors are, for a re-run
	// hf is what the argv in Cmd.Args was built with, and what the next
	// build takes (the plan itself is never changed).
	hf hostFacts

	started bool
	plain   bool     // this bwrap predates --json-status-fd: probed, then run as is
	st      status   // what bwrap wrote on the status descriptor
	pr      *os.File // its read end, from Start to Wait
	tail    *tail    // the copy of Stderr; nil when Stderr is an *os.File
	win     *window  // the run-time limits' window; nil without them

	proxy *proxy.Proxy // mode proxy's server, for every attempt
	gate  *netGate     // the running helper's listeners, from Start to Wait
	// early is a root caller's network thread for the first attempt:
	// NewCmd's, its namespace made while the plan was (adoptEarly), or
	// one made while Start takes the locks (prepareNet).
	early *earlyNet
	// unscope ends the thread that started bwrap in mode host's Landlock
	// domain, or in mode proxy's network namespace (a root caller's),
	// after Wait.
	unscope func()
	// respawned: Wait ran the spawn again once (setupFailed).
	respawned bool
	// ready waits for what must be in place before the command runs
	// (the watch): the window's release calls it, or, without a window,
	// the fork.
	ready func() error
	// ph is the run's placeholders, which record each bwrap started.
	ph *phRun
}

// newCheckedSpawn prepares the checked spawn. A probe that already failed
// in this process is final (Command and Prefix cache it too), so there is no point
// executing again to hear the same refusal.
func newCheckedSpawn(c *Cmd, p *plan, hf hostFacts, files []WrapFile) (*checkedSpawn, error) {
	h := bwrapHostFor(c.Path)
	if known, err := h.verdict(); known && err != nil {
		return nil, err
	}
	return &checkedSpawn{host: h, plan: p, files: files, hf: hf}, nil
}

// maxAttempts bounds the retries: one without --disable-userns, one more
// falling back to the probe for a bwrap without --json-status-fd.
const maxAttempts = 3

func (f *checkedSpawn) start(c *Cmd) error {
	if f.started {
		return errors.New("exec: already started")
	}
	f.started = true
	// Prefix checked this process's loader variables; the caller may have
	// added some to Env since, and bwrap, outside the sandbox, loads what
	// they name.
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	if err := refuseSpawnLoaderEnv(f.plan, envLookup(env)); err != nil {
		return err
	}
	userns, statusFD := f.host.support()
	if (userns == supportUnknown && f.hf.disableUserns || statusFD == supportUnknown) && !c.replayable() {
		// A rejected first attempt could not be retried with this I/O:
		// ask bwrap about its options first, once per process.
		f.precheck()
	}
	for attempt := range maxAttempts {
		if attempt > 0 {
			c.renew(f.args(c))
			if err := c.rewind(); err != nil {
				return err
			}
		} else if f.hf.disableUserns != f.host.knowsDisableUserns() {
			c.Args = f.args(c)
		}
		if _, statusFD := f.host.support(); statusFD == supportNo {
			return f.startPlain(c)
		}
		retry, err := f.attempt(c)
		if !retry {
			return err
		}
	}
	return &unavailableError{reason: f.host.prog + " rejected its options " + strconv.Itoa(maxAttempts) + " times"}
}

// attempt starts bwrap with a status pipe and waits for the child-pid line,
// which bwrap writes once it has parsed its options and cloned the sandbox's
// first process. Without it, bwrap has already exited and nothing ran;
// retry reports that it rejected an option it will not be given again.
func (f *checkedSpawn) attempt(c *Cmd) (retry bool, err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return false, fmt.Errorf("sandbox: start %s: status pipe: %w", c.Path, err)
	}
	run := c.Cmd
	args, extra, stdin, stdout, stderr := run.Args, run.ExtraFiles, run.Stdin, run.Stdout, run.Stderr
	end := slices.Index(args[1:], "--") + 1
	if end == 0 {
		pr.Close()
		pw.Close()
		return false, fmt.Errorf("sandbox: start %s: no -- in %q", c.Path, args)
	}
	// The table's stdio rules, with a copied stdin held until bwrap has
	// accepted its options: a rejected attempt is retried with the same
	// input.
	gate := newStdinGate()
	defer gate.abort()
	if err := c.guard(gate); err != nil {
		pr.Close()
		pw.Close()
		return false, err
	}
	phaseDone("stdio")
	// The pipe goes after every ExtraFiles entry, the caller's included.
	if err := f.openWindow(c, 4+len(extra)); err != nil {
		pr.Close()
		pw.Close()
		return false, err
	}
	phaseDone("window")
	if f.win == nil {
		// Nothing holds the command once bwrap starts.
		if err := f.readyToRun(); err != nil {
			pr.Close()
			pw.Close()
			return false, err
		}
	}
	run.Args = slices.Concat(args[:1], f.statusArgs(3+len(extra)), args[end+1:])
	f.hf.blockFD = ""
	run.ExtraFiles = append(slices.Clip(extra), pw)
	if f.win != nil {
		run.ExtraFiles = append(run.ExtraFiles, f.win.r)
	}
	f.tail = nil
	if _, isFile := run.Stderr.(*os.File); !isFile {
		f.tail = &tail{w: run.Stderr, hold: true}
		if sameWriter(run.Stdout, run.Stderr) {
			run.Stdout = f.tail // exec.Cmd shares one pipe, as for CombinedOutput
		}
		run.Stderr = f.tail
	}
	err = f.startRun(run)
	pw.Close()
	if err == nil {
		f.ph.spawned()
	}
	phaseDone("exec")
	// Not Stdin: exec.Cmd's copy reads the field when it runs, so it
	// stays what was started until the spawn is waited for.
	f.win.started()
	run.Args, run.ExtraFiles, run.Stdout, run.Stderr = args, extra, stdout, stderr
	if err != nil {
		run.Stdin = stdin
		pr.Close()
		_ = f.win.finish()
		return false, err
	}
	f.st = status{}
	if f.st.readLine(pr) && f.st.childPID() {
		phaseDone("bwrap")
		gate.open()
		f.pr = pr
		f.host.accepted(f.hf.disableUserns, true)
		if f.tail != nil {
			f.tail.release()
		}
		err := f.release(c)
		phaseDone("release")
		return false, err
	}

	// bwrap exited before it created anything.
	gate.abort()
	f.win.close()
	waitErr := run.Wait()
	_ = f.win.finish()
	run.Stdin = stdin // the copy has ended: a retry starts from the caller's
	f.stopNet()
	pr.Close()
	if st := run.ProcessState; st == nil || st.ExitCode() != 1 {
		if c.ctx != nil && c.ctx.Err() != nil {
			waitErr = c.ctx.Err()
		}
		return false, fmt.Errorf("sandbox: %s ended before creating the sandbox: %w", c.Path, waitErr)
	}
	var msg string
	if f.tail != nil {
		msg = f.tail.String()
	} else {
		msg, _ = f.diagnose(c)
	}
	if f.host.learn(msg) {
		return true, nil
	}
	return false, f.unavailable(msg)
}

// startPlain is the fallback for a bwrap without --json-status-fd (older
// than 0.3.2): Command's probe, then the command as is.
func (f *checkedSpawn) startPlain(c *Cmd) error {
	if err := refuseRequired(f.plan, "this bwrap has no --json-status-fd", "install bubblewrap 0.3.2 or later"); err != nil {
		return err
	}
	if err := f.host.works(f.plan.workspace); err != nil {
		return err
	}
	if f.hf.disableUserns != f.host.knowsDisableUserns() {
		c.Args = f.args(c)
	}
	f.plain = true
	if err := c.guard(nil); err != nil {
		return err
	}
	if err := f.readyToRun(); err != nil {
		return err
	}
	err := f.startRun(c.Cmd)
	if err == nil {
		f.ph.spawned()
	}
	return err
}

// startRun starts run, through the network helper in mode proxy: once it
// returns nil, the proxy serves the sandbox's listeners until stopNet.
func (f *checkedSpawn) startRun(run *exec.Cmd) error {
	if f.plan.netHost && !f.plan.net.HostAbstract && scopeAbstract(run.Path) {
		release, err := startScoped(run, func() error { return f.win.fork(run, run.Start) })
		f.unscope = release
		return err
	}
	if !f.plan.netProxy {
		return f.win.fork(run, run.Start)
	}
	if f.proxy == nil {
		p, err := newProxy(f.plan.net, nil)
		if err != nil {
			return err
		}
		f.proxy = p
	}
	f.gate = &netGate{serve: f.proxy.Serve, stub: proxy.NewDNSStub(f.proxy), ports: proxy.StubPorts(f.plan.net.Allow, f.plan.net.Private)}
	if netThreadable(run) {
		t := f.takeEarly()
		if t == nil {
			t = prepareNetThread(run.Path, f.gate)
		}
		fork := func() error { return f.win.fork(run, run.Start) }
		release, err := t.run(fork)
		if errors.Is(err, errNetThreadEnded) {
			// NewCmd's thread waited in vain and ended: a new one.
			f.gate = &netGate{serve: f.proxy.Serve, stub: proxy.NewDNSStub(f.proxy), ports: proxy.StubPorts(f.plan.net.Allow, f.plan.net.Private)}
			release, err = prepareNetThread(run.Path, f.gate).run(fork)
		}
		if err != nil {
			f.gate = nil
			return err
		}
		f.unscope = release
		return nil
	}
	restore, err := f.gate.prepare(run)
	if err != nil {
		return err
	}
	err = f.win.fork(run, run.Start)
	restore()
	if err != nil {
		f.gate.abort()
		f.gate = nil
		return helperStartError(run.Path, err)
	}
	if err := f.gate.started(); err != nil {
		_ = run.Process.Kill()
		_ = run.Wait()
		f.gate = nil
		return err
	}
	return nil
}

// earlyNet is a network thread made ahead, with the gate it serves.
type earlyNet struct {
	gate *netGate
	t    *netThread
}

// prepareNet starts making a root caller's network namespace for mode
// proxy in the background, so that it overlaps the protected directories'
// locks and the watch; the first attempt's startRun takes it, and dropNet
// ends it if none does. Nothing is prepared when startRun would not take
// the thread, or when the proxy cannot be made (startRun says why).
func (f *checkedSpawn) prepareNet(c *Cmd) {
	if f.early != nil && !netThreadable(c.Cmd) {
		f.dropNet() // NewCmd's, for a caller that has since set a Credential
	}
	if !f.plan.netProxy || !netThreadable(c.Cmd) || f.early != nil {
		return
	}
	g, err := f.newGate()
	if err != nil {
		return
	}
	f.early = &earlyNet{gate: g, t: prepareNetThread(c.Path, g)}
}

// newGate is the spawn's listeners for mode proxy, served by its proxy
// (made on first use).
func (f *checkedSpawn) newGate() (*netGate, error) {
	if f.proxy == nil {
		p, err := newProxy(f.plan.net, nil)
		if err != nil {
			return nil, err
		}
		f.proxy = p
	}
	return &netGate{serve: f.proxy.Serve, stub: proxy.NewDNSStub(f.proxy), ports: proxy.StubPorts(f.plan.net.Allow, f.plan.net.Private)}, nil
}

// earlyNetWait is how long a thread NewCmd made ahead (earlyNetThread)
// waits for Start before it ends, its namespace with it.
const earlyNetWait = time.Second

// earlyNetThread starts making a root caller's network namespace, when cfg
// asks for mode proxy, for the Cmd NewCmd is making; nil otherwise.
func earlyNetThread(cfg Config) *netThread {
	mode, err := networkMode(withDefaultNetwork("linux", cfg))
	if err != nil || mode != NetworkProxy || cfg.Policy == Off || os.Geteuid() != 0 {
		return nil
	}
	return newNetThread(earlyNetWait)
}

// adoptEarly gives t, the thread NewCmd made ahead, the spawn's listeners
// to bind now, for Start's first attempt.
func (f *checkedSpawn) adoptEarly(c *Cmd, t *netThread) {
	if t == nil {
		return
	}
	g, err := f.newGate()
	if !f.plan.netProxy || err != nil || !t.bind(g, c.Path) {
		t.cancel()
		return
	}
	f.early = &earlyNet{gate: g, t: t}
}

// takeEarly hands the prepared thread to startRun, with its gate as f.gate.
func (f *checkedSpawn) takeEarly() *netThread {
	if f.early == nil {
		return nil
	}
	e := f.early
	f.early = nil
	f.gate = e.gate
	return e.t
}

// dropNet ends a prepared thread that no attempt took.
func (f *checkedSpawn) dropNet() {
	if f.early != nil {
		f.early.t.cancel()
		f.early = nil
	}
}

// stopNet stops serving the sandbox's listeners, and lets the scoped
// thread end: the command has ended. The listeners are closed in the
// background: each close waits for its accepting goroutine to be
// scheduled (0.4 to 0.7 ms for all of them here), and nothing is left in
// their namespace to connect to them.
func (f *checkedSpawn) stopNet() {
	if f.unscope != nil {
		f.unscope()
		f.unscope = nil
	}
	if f.gate != nil {
		go f.gate.close()
		f.gate = nil
	}
}

func (f *checkedSpawn) wait(c *Cmd) error {
	if f.plain || f.pr == nil {
		defer f.stopNet()
		return c.Cmd.Wait() // exec.Cmd's own answer, or its "not started"
	}
	err := c.Cmd.Wait()
	phaseDone("command")
	f.stopNet()
	if gerr := f.win.finish(); gerr != nil && err == nil {
		err = gerr
	}
	f.st.readAll(f.pr)
	f.pr.Close()
	f.pr = nil
	if _, ok := f.st.exitCode(); ok {
		// The command ran: err is its own status.
		f.host.markWorking()
		return err
	}
	if st := c.ProcessState; st == nil || st.ExitCode() != 1 {
		return err // bwrap was killed (a context, a signal): not a verdict on the sandbox
	}
	// bwrap exited 1 between creating the namespaces and executing the
	// command: its setup failed, or execvp did.
	if f.tail != nil {
		msg := f.tail.String()
		if line, ok := execFailure(msg); ok {
			return execError(c.name, line)
		}
		return f.setupFailed(c, msg)
	}
	msg, setupOK := f.diagnose(c)
	if setupOK {
		return lookupError(c.name, f.plan.workspace, c.Env, f.plan)
	}
	return f.setupFailed(c, msg)
}

// args rebuilds the argv from the plan with what is now known about this
// bwrap, keeping the command and its arguments after the wrapper's "--".
func (f *checkedSpawn) args(c *Cmd) []string {
	end := slices.Index(c.Args[1:], "--") + 1
	if end == 0 {
		return c.Args
	}
	f.hf.disableUserns = f.host.knowsDisableUserns()
	return slices.Concat(c.Args[:1], linuxArgs(f.plan.with(f.hf)), c.Args[end+1:])
}

// statusArgs is bwrap's options, "--" included, with bwrap's status on
// descriptor fd. The table's status-fd rule emits --json-status-fd only
// while the host facts have a number for it, which is only while one spawn
// starts, so Cmd.Args, Command's argv and explain's have none.
func (f *checkedSpawn) statusArgs(fd int) []string {
	h := f.hf
	h.statusFD = strconv.Itoa(fd)
	return linuxArgs(f.plan.with(h))
}

// renew resets the embedded exec.Cmd, which cannot be started twice, to an
// unstarted copy with args, in place: a caller holding c.Cmd sees the
// retry's Process and ProcessState.
func (c *Cmd) renew(args []string) {
	old := c.Cmd
	var n *exec.Cmd
	if c.ctx != nil {
		n = exec.CommandContext(c.ctx, old.Path)
	} else {
		n = exec.Command(old.Path)
	}
	n.Args, n.Env, n.Dir = args, old.Env, old.Dir
	n.Stdin, n.Stdout, n.Stderr = old.Stdin, old.Stdout, old.Stderr
	n.ExtraFiles, n.SysProcAttr = old.ExtraFiles, old.SysProcAttr
	n.Cancel, n.WaitDelay = old.Cancel, old.WaitDelay
	*old = *n
}

// rewind puts the offset of the memfds opened for this spawn back at their
// start for a retry. bwrap rejects an option before it reads any of them,
// so this is for certainty, not for a known case.
func (c *Cmd) rewind() error {
	for _, f := range c.owned {
		if _, err := f.Seek(0, 0); err != nil {
			return fmt.Errorf("sandbox: start %s: rewind %s: %w", c.Path, f.Name(), err)
		}
	}
	return nil
}

// precheck asks bwrap whether it parses the options a spawn would give it,
// without building anything: `--version` exits as soon as it is parsed.
// It names the two options whose support is learnt here itself, rather
// than taking them from the table: nothing it runs is a sandbox, and
// --json-status-fd must come first, so that a bwrap that lacks both
// (before 0.3.2) names the one that settles both.
func (f *checkedSpawn) precheck() {
	args := []string{"--json-status-fd", "1"}
	if f.hf.disableUserns {
		args = append(args, "--disable-userns")
	}
	failure, ok := runProbe(f.host.prog, nil, append(args, "--version")...)
	if ok {
		f.host.accepted(f.hf.disableUserns, true)
		return
	}
	f.host.learn(failure)
}

// diagnose explains a failure whose message went to the caller's own
// Stderr file: it runs the same sandbox with true instead of the command,
// keeping bwrap's stderr this time. setupOK reports that the sandbox was
// built and an exec was attempted, so the failure was the command's own.
func (f *checkedSpawn) diagnose(c *Cmd) (stderr string, setupOK bool) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	// Start closed the spawn's own memfds: the re-run gets fresh ones.
	fds, owned, err := openFiles(f.files)
	if err != nil {
		return err.Error(), false
	}
	defer closeAll(owned)
	pr, pw, err := os.Pipe()
	if err != nil {
		return err.Error(), false
	}
	defer pr.Close()
	d := exec.CommandContext(ctx, c.Path, append(f.statusArgs(3+len(fds)), "true")...)
	d.Env, d.Dir = c.Env, c.Dir
	d.ExtraFiles = append(fds, pw)
	if c.SysProcAttr != nil && c.SysProcAttr.Credential != nil {
		d.SysProcAttr = &syscall.SysProcAttr{Credential: c.SysProcAttr.Credential}
	}
	var buf bytes.Buffer
	d.Stderr = &buf
	err = d.Start()
	pw.Close()
	if err != nil {
		return err.Error(), false
	}
	_ = d.Wait()
	var st status
	st.readAll(pr)
	_, ran := st.exitCode()
	_, execd := execFailure(buf.String())
	return buf.String(), ran || execd
}

func (f *checkedSpawn) unavailable(msg string) error {
	if len(msg) > 2048 {
		msg = "..." + msg[len(msg)-2048:]
	}
	if s := vanishedSocket(f.plan, msg); s != "" {
		what, rule := "the host socket ", "hide-host-socket"
		if slices.ContainsFunc(f.plan.socketDirs, func(d pathFact) bool { return d.path == s }) {
			what, rule = "the host socket directory ", "hide-socket-dir"
		}
		return &unavailableError{reason: what + s + " was removed while the sandbox was being built (" + rule + ")", hint: "run it again"}
	}
	return &unavailableError{
		reason: f.host.prog + " cannot create a sandbox",
		hint:   probeHint(os.DirFS("/"), msg),
	}
}

// execError maps bwrap's "execvp NAME: REASON" as a shell maps execve's
// errno: a missing file (or directory on the way) is "not found", anything
// else found but not runnable.
func execError(name, line string) error {
	err := fs.ErrPermission
	if strings.HasSuffix(line, ": No such file or directory") || strings.HasSuffix(line, ": Not a directory") {
		err = exec.ErrNotFound
	}
	return &commandError{name: name, reason: line, err: err}
}

// lookupError classifies an exec failure whose message only the caller's
// Stderr saw, by looking name up as execvp does in the sandbox, which sees
// this file system at the same paths where p.sees says so: from dir, on
// env's PATH.
func lookupError(name, dir string, env []string, p *plan) error {
	const seen = " (bwrap's message is on stderr)"
	if v, _ := cmdlookup.Find(name, dir, env, p.sees); v == cmdlookup.NotFound {
		return &commandError{name: name, reason: "not found" + seen, err: exec.ErrNotFound}
	}
	return &commandError{name: name, reason: "cannot be executed" + seen, err: fs.ErrPermission}
}

func (f *checkedSpawn) sees(path string) bool { return f.plan.sees(path) }
