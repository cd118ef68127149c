package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"sync"
)

// stdioKind is what a caller's standard descriptor is, as the stdio section
// of the rule table names it. The generated stdioRules is indexed by it.
type stdioKind uint8

const (
	stdioKindTerminal stdioKind = iota
	stdioKindNull
	stdioKindPipe // a pipe or a FIFO
	stdioKindSocket
	stdioKindFile
	stdioKindDevice // a block device, or a character device that is no terminal or /dev/null
	stdioKindDir
	numStdioKinds
)

// stdioPass is what the sandbox does with such a descriptor.
type stdioPass uint8

const (
	stdioPassNone stdioPass = iota // the command gets /dev/null
	stdioPassCopy                  // a pipe of the sandbox's own, copied
	stdioPassAsIs                  // the descriptor itself
)

// stdioRule is one decision of the stdio section and the rule behind it.
type stdioRule struct {
	pass stdioPass
	rule string
}

// The streams, as stdioRules indexes them.
const (
	streamStdin = iota
	streamStdout
	streamStderr
)

// GuardStdio applies the rule table's stdio section to an [exec.Cmd]: each
// of Stdin, Stdout and Stderr that is an [*os.File] of a kind the table
// copies (a pipe, FIFO, socket, file or device) is replaced by a reader or
// writer that exec.Cmd copies through a pipe of its own, and a directory by
// nothing (/dev/null). Call it after setting them and before Start, and not
// after a pipe method. The wrap helper of [Command] and [Prefix] on Linux,
// [NewCmd]'s Start and sandtable run do this themselves; it is for what none
// of them starts (Command on macOS, a [PrefixFor] argv), and harmless, one
// more copy, on a Linux Command.
func GuardStdio(cmd *exec.Cmd) error {
	g, err := guardStreams(cmd.Stdin, cmd.Stdout, cmd.Stderr, nil, nil)
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = g.stdin, g.stdout, g.stderr
	return nil
}

// guarded are a spawn's standard streams after the table's stdio rules.
type guarded struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// guardStreams applies the stdio rules to the three streams. Anything but
// an *os.File is already copied by exec.Cmd and stays as it is, and so do
// the files own says are the command's own (a pipe method's). A copied
// stdin waits for gate, when there is one, before it reads anything from
// the caller (see stdinGate).
func guardStreams(stdin io.Reader, stdout, stderr io.Writer, gate *stdinGate, own []*os.File) (guarded, error) {
	g := guarded{stdin: stdin, stdout: stdout, stderr: stderr}
	if f, ok := stdin.(*os.File); ok && f != nil && !slices.Contains(own, f) {
		pass, _, err := stdioDecide(streamStdin, f)
		if err != nil {
			return g, err
		}
		switch pass {
		case stdioPassNone:
			g.stdin = nil
		case stdioPassCopy:
			g.stdin = &copyIn{f: f, gate: gate}
		}
	}
	var outs [2]*copyOut
	for i, w := range []io.Writer{stdout, stderr} {
		f, ok := w.(*os.File)
		if !ok || f == nil || slices.Contains(own, f) {
			continue
		}
		pass, _, err := stdioDecide(streamStdout+i, f)
		if err != nil {
			return g, err
		}
		var to io.Writer = f
		switch pass {
		case stdioPassNone:
			to = nil
		case stdioPassCopy:
			outs[i] = &copyOut{f: f}
			to = outs[i]
			// One file behind both (2>&1): one copy, so that exec.Cmd
			// shares one pipe between them and their order holds.
			if i == 1 && outs[0] != nil && sameFile(outs[0].f, f) {
				to = outs[0]
			}
		}
		if i == 0 {
			g.stdout = to
		} else {
			g.stderr = to
		}
	}
	return g, nil
}

// stdioDecide classifies f and looks its kind up for stream.
func stdioDecide(stream int, f *os.File) (stdioPass, string, error) {
	kind, err := stdioKindOf(f)
	if err != nil {
		return 0, "", fmt.Errorf("sandbox: %s: %w", [...]string{"stdin", "stdout", "stderr"}[stream], err)
	}
	r := stdioRules[stream][kind]
	return r.pass, r.rule, nil
}

// stdioKindOf is one fstat of f, and for a character device an isatty.
func stdioKindOf(f *os.File) (stdioKind, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	m := fi.Mode()
	switch {
	case m.IsDir():
		return stdioKindDir, nil
	case m.IsRegular():
		return stdioKindFile, nil
	case m&fs.ModeNamedPipe != 0:
		return stdioKindPipe, nil
	case m&fs.ModeSocket != 0:
		return stdioKindSocket, nil
	case m&fs.ModeCharDevice != 0:
		if isTerminal(f) {
			return stdioKindTerminal, nil
		}
		if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(fi, null) {
			return stdioKindNull, nil
		}
	}
	return stdioKindDevice, nil
}

func sameFile(a, b *os.File) bool {
	fa, err := a.Stat()
	if err != nil {
		return false
	}
	fb, err := b.Stat()
	return err == nil && os.SameFile(fa, fb)
}

// stdinGate holds a copied stdin until the spawn it feeds is known to run:
// a first attempt that bwrap rejects must not have consumed the caller's
// input, which the retry still needs.
type stdinGate struct {
	once sync.Once
	ch   chan struct{}
	ok   bool
}

func newStdinGate() *stdinGate { return &stdinGate{ch: make(chan struct{})} }

// open lets the copy start; abort ends it before it reads anything.
func (g *stdinGate) open()  { g.once.Do(func() { g.ok = true; close(g.ch) }) }
func (g *stdinGate) abort() { g.once.Do(func() { close(g.ch) }) }

func (g *stdinGate) wait() bool {
	if g == nil {
		return true
	}
	<-g.ch
	return g.ok
}

// copyIn is a copied stdin: exec.Cmd copies from it into the command's
// pipe, through WriteTo, so the copy is one splice per chunk where the
// kernel allows, and it ends as soon as the command has no reader left,
// without waiting for more input from the caller.
type copyIn struct {
	f    *os.File
	gate *stdinGate
}

func (c *copyIn) Read(p []byte) (int, error) { return c.f.Read(p) }

func (c *copyIn) WriteTo(w io.Writer) (int64, error) {
	if !c.gate.wait() {
		return 0, nil
	}
	return pumpTo(w, c.f)
}

// copyOut is a copied stdout or stderr: exec.Cmd copies the command's pipe
// into it through ReadFrom. Write is for a copy that does not come from a
// file (stderr's tail).
type copyOut struct {
	f *os.File
}

func (c *copyOut) Write(p []byte) (int, error) { return writeRaw(c.f, p) }

func (c *copyOut) ReadFrom(r io.Reader) (int64, error) { return pumpFrom(c.f, r) }
