package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVarTmpGranted: the sandbox's own /var/tmp (var-tmp) replaces the
// host's, unless the caller shows the host's: a write path /var/tmp is
// writable and a read path /var/tmp readable, not an empty read-only
// tmpfs (with the rows kept, the write fails). The control: by default a
// file there is not shown.
func TestVarTmpGranted(t *testing.T) {
	_, ws := spawnEnv(t)
	if fi, err := os.Lstat(varTmpDir); err != nil || !fi.IsDir() {
		t.Skipf("%s is not a directory here: %v", varTmpDir, err)
	}
	f, err := os.CreateTemp(varTmpDir, "sandtable-test-")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("VAR-TMP-SHOWN")
	f.Close()
	os.Chmod(f.Name(), 0o644)
	t.Cleanup(func() { os.Remove(f.Name()) })
	made := filepath.Join(varTmpDir, filepath.Base(f.Name())+".made")
	t.Cleanup(func() { os.Remove(made) })
	for _, c := range []struct {
		name   string
		cfg    Config
		varTmp bool
	}{
		{"default", Config{Workspace: ws}, true},
		{"write", Config{Workspace: ws, Write: []string{varTmpDir}}, false},
		{"read", Config{Workspace: ws, Read: []string{varTmpDir}}, false},
		{"read-below", Config{Workspace: ws, Read: []string{f.Name()}}, true},
	} {
		p, err := newPlan("linux", c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if p.varTmp != c.varTmp {
			t.Errorf("%s: varTmp %v, want %v", c.name, p.varTmp, c.varTmp)
		}
	}
	c := Config{Workspace: ws, Network: Network{Mode: NetworkOff}}
	if out, _ := inSandbox(t, c, `cat `+f.Name()); strings.Contains(out, "VAR-TMP-SHOWN") {
		t.Errorf("by default the host's %s is shown: %s", f.Name(), out)
	}
	c.Read = []string{varTmpDir}
	if out, _ := inSandbox(t, c, `cat `+f.Name()); !strings.Contains(out, "VAR-TMP-SHOWN") {
		t.Errorf("read path %s: the host's file is not shown: %s", varTmpDir, out)
	}
	c.Read, c.Write = nil, []string{varTmpDir}
	if out, err := inSandbox(t, c, `echo x > `+made); err != nil {
		t.Errorf("write path %s: %v: %s", varTmpDir, err, out)
	}
	if _, err := os.Stat(made); err != nil {
		t.Errorf("write path %s: the write did not land: %v", varTmpDir, err)
	}
}
