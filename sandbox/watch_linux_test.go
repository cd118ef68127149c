package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWatchRaceWindow measures what the watch leaves open: a command that
// reads a hidden file in a tight loop while the host replaces it. The run
// must be stopped with ErrHostChanged; how many reads of the new contents
// got out first is logged, since that window is the race README describes.
func TestWatchRaceWindow(t *testing.T) {
	base, _, ws := fixture(t)
	cred := writeFile(t, base, "cred", "OLD\n")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := NewCmd(ctx, Config{Workspace: ws, Hidden: []string{cred}}, "bash", "-c",
		`echo READY; while :; do cat "$1"; done`, "bash", cred)
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// A liveness bound: a loaded machine may take seconds to start it.
	for i := 0; i < 1500 && !strings.Contains(out.String(), "READY"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // the loop is running
	tmp := writeFile(t, base, "cred.tmp", "NEW-SECRET\n")
	renamed := time.Now()
	if err := os.Rename(tmp, cred); err != nil {
		t.Fatal(err)
	}
	err = c.Wait()
	took := time.Since(renamed)
	if !errors.Is(err, ErrHostChanged) {
		t.Fatalf("Wait = %v, want ErrHostChanged", err)
	}
	leaks := strings.Count(out.String(), "NEW-SECRET")
	t.Logf("run stopped %v after the rename; the loop read the new contents %d times before that", took.Round(time.Microsecond), leaks)
}

// lockedBuffer is a bytes.Buffer the copy goroutine writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWatchRefusesLateArrival: a hidden path missing when NewCmd planned
// the spawn, and so not hidden, that appears before Start would be plain
// to see and unwatched; Start refuses it, and the command never runs:
// with the run-time limits, whose window holds it while the watch is set
// up beside bwrap's setup, and without them, when the watch is set up
// before bwrap starts. The control is Command, which plans the same way
// and watches nothing: it reads the secret.
func TestWatchRefusesLateArrival(t *testing.T) {
	base, _, ws := fixture(t)
	cred := base + "/cred"
	cfg := Config{Workspace: ws, Hidden: []string{cred}}
	for _, name := range []string{"window", "no window"} {
		os.Remove(cred)
		c, err := NewCmd(t.Context(), cfg, "cat", cred)
		if err != nil {
			t.Fatal(err)
		}
		if !c.checked.plan.run.any() {
			t.Fatal("the default plan has no run-time limits")
		}
		if name == "no window" {
			// The table's memory default cannot be turned off: a plan
			// without run-time limits, as a machine without them has.
			p := *c.checked.plan
			p.run = runLimits{}
			c.checked.plan = &p
		}
		writeFile(t, base, "cred", "LATE-SECRET\n")
		out, err := c.Output()
		if !errors.Is(err, ErrHostChanged) || strings.Contains(string(out), "LATE-SECRET") {
			t.Fatalf("%s: Output = %q, %v; want ErrHostChanged and no secret", name, out, err)
		}
	}

	os.Remove(cred)
	ctl, err := Command(t.Context(), cfg, "cat", cred)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, base, "cred", "LATE-SECRET\n")
	if out, err := ctl.Output(); !strings.Contains(string(out), "LATE-SECRET") {
		t.Errorf("control: Command did not read the late file (%v: %q): the test shows no attack", err, out)
	}
}

// BenchmarkWatch is what the watch adds to a NewCmd spawn: the inotify
// instance and a watch per directory of the default hidden set, the
// check of the missing paths, and the teardown.
func BenchmarkWatch(b *testing.B) {
	cfg := spawnBenchConfig(b)
	p, err := newPlan("linux", cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w, err := startWatch(p)
		if err != nil {
			b.Fatal(err)
		}
		w.stop()
	}
}

// TestWatchEvents: which host changes stop a run. A hidden path's removal
// does not (nothing appears in the sandbox until something is created
// there again, which does); a protected path's does, since its mount
// detaches and leaves the name free in the sandbox.
func TestWatchEvents(t *testing.T) {
	dir := realTempDir(t)
	ws := mkdir(t, dir, "ws")
	hidden := writeFile(t, dir, "hidden", "x")
	prot := writeFile(t, ws, "prot", "x")
	p := &plan{workspace: ws, hidden: []pathFact{fact(hidden, kindFile, ws)}, protected: []pathFact{fact(prot, kindFile, ws)}}
	for _, c := range []struct {
		name   string
		change func()
		stops  bool
	}{
		{"hidden removed", func() { os.Remove(hidden) }, false},
		{"hidden created", func() { writeFile(t, dir, "hidden", "y") }, true},
		{"hidden replaced", func() { os.Rename(writeFile(t, dir, "tmp", "z"), hidden) }, true},
		{"protected removed", func() { os.Remove(prot) }, true},
		{"protected created", func() { writeFile(t, ws, "prot", "y") }, true},
		{"neighbour created", func() { writeFile(t, dir, "other", "y") }, false},
	} {
		w, err := startWatch(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		killed := make(chan struct{}, 1)
		w.run(func() { killed <- struct{}{} })
		c.change()
		select {
		case <-killed:
		case <-time.After(300 * time.Millisecond):
		}
		why := w.stop()
		if (why != "") != c.stops {
			t.Errorf("%s: stopped %v (%q), want %v", c.name, why != "", why, c.stops)
		}
	}
}
