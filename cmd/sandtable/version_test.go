package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestWriteVersion: the line names the module version and, where the
// build info has them, the commit, its time and a modified tree.
func TestWriteVersion(t *testing.T) {
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "sandtable unknown\n"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "sandtable v1.2.3\n"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-02T19:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "sandtable (devel) commit 0123abcd (2026-12-02T19:00:00Z) modified\n"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "false"},
		}}, "sandtable (devel) commit 0123abcd\n"},
	} {
		var b strings.Builder
		writeVersion(&b, c.info)
		if b.String() != c.want {
			t.Errorf("writeVersion(%+v) = %q, want %q", c.info, b.String(), c.want)
		}
	}
}

// TestVersionCommand: the built binary answers with its line and exit 0,
// and refuses an argument with the usage status.
func TestVersionCommand(t *testing.T) {
	e := newEnv(t)
	r := e.run(t, "", "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "sandtable ") || r.stderr != "" {
		t.Errorf("sandtable version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = e.run(t, "", "version", "extra")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("sandtable version extra: exit %d, stderr %q; want %d", r.code, r.stderr, exitUsage)
	}
}
