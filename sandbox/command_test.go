package sandbox

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/internal/proxy"
)

func TestPrefixForFiles(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	secret := writeFile(t, dir, "secret", "x")
	// Every protected name exists, so no placeholder needs the /dev/null
	// descriptor either.
	mkProtected(t, ws)

	// No host sockets: one another test or process holds open would
	// need the /dev/null descriptor (hide-host-socket).
	own := listHostSockets
	listHostSockets = func() []string { return nil }
	defer func() { listHostSockets = own }()

	filter := nativeSeccomp()
	// The default network mode, proxy, reads the DNS stub's resolv.conf
	// from the descriptor before the filter's.
	var resolv []WrapFile
	if DefaultNetworkMode("linux") == NetworkProxy && hostHasResolvConf() {
		resolv = []WrapFile{{Data: []byte(proxy.ResolvConf)}}
	}
	for _, c := range []struct {
		hidden []string
		want   []WrapFile
	}{
		{[]string{secret}, slices.Concat([]WrapFile{{Path: os.DevNull}}, resolv, []WrapFile{{Data: filter}})},
		{nil, slices.Concat(resolv, []WrapFile{{Data: filter}})},
	} {
		w, err := PrefixFor("linux", Config{Workspace: ws, Hidden: c.hidden, Reveal: absoluteDefaults()})
		if err != nil {
			t.Fatal(err)
		}
		if filter == nil {
			c.want = c.want[:len(c.want)-1]
		}
		if !slices.EqualFunc(w.Files, c.want, func(a, b WrapFile) bool { return a.Path == b.Path && string(a.Data) == string(b.Data) }) {
			t.Errorf("hidden %q: Files = %+v, want %+v", c.hidden, w.Files, c.want)
		}
		if c.hidden != nil {
			i := slices.Index(w.Args, secret)
			if i < 2 || w.Args[i-2] != "--ro-bind-data" || w.Args[i-1] != "3" {
				t.Errorf("hidden file not replaced from fd 3: %q", w.Args)
			}
		}
		if i := slices.Index(w.Args, "--seccomp"); filter != nil && (i < 0 || w.Args[i+1] != strconv.Itoa(2+len(w.Files))) {
			t.Errorf("hidden %q: the filter is not read from the last descriptor, %d: %q", c.hidden, 2+len(w.Files), w.Args)
		}
		if w.Args[len(w.Args)-1] != "--" || w.Profile != "" {
			t.Errorf("linux wrap: %+v", w)
		}
		if filter != nil {
			// The filter is the caller's copy: writing to it changes no
			// later spawn's.
			w.Files[len(w.Files)-1].Data[0] ^= 0xff
		}
	}
	if w, err := PrefixFor("linux", Config{Workspace: ws, Reveal: absoluteDefaults()}); err != nil || filter != nil && string(w.Files[len(w.Files)-1].Data) != string(seccompFilter(runtime.GOARCH)) {
		t.Errorf("a caller's write to Wrap.Files reached the shared filter (%v)", err)
	}

	w, err := PrefixFor("darwin", Config{Workspace: ws, Hidden: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Program != darwinProgram || len(w.Args) != 3 || w.Args[0] != "-p" || w.Args[1] != w.Profile || w.Args[2] != "--" || w.Files != nil {
		t.Errorf("darwin wrap: %+v", w)
	}
	if !strings.Contains(w.Profile, `(literal "`+secret+`")`) {
		t.Errorf("darwin profile does not deny the hidden file:\n%s", w.Profile)
	}
}

func TestPolicyOffAndUnsupportedOS(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	for _, goos := range []string{"linux", "darwin", "windows", "plan9"} {
		w, err := PrefixFor(goos, Config{Workspace: ws, Policy: Off})
		if err != nil || w.Program != "" || w.Args != nil {
			t.Errorf("%s under Off: %+v, %v", goos, w, err)
		}
	}
	for _, goos := range []string{"windows", "freebsd"} {
		if _, err := PrefixFor(goos, Config{Workspace: ws}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s under Required: %v, want ErrUnavailable", goos, err)
		}
		if _, err := Explain(goos, Config{Workspace: ws}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Explain(%s): %v", goos, err)
		}
	}

	cmd, err := Command(t.Context(), Config{Workspace: ws, Policy: Off}, "true", "arg")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cmd.Args, []string{"true", "arg"}) || cmd.Dir != ws || cmd.ExtraFiles != nil {
		t.Errorf("Off command: args %q dir %q files %v", cmd.Args, cmd.Dir, cmd.ExtraFiles)
	}
}

func TestExplainAndRules(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	steps, err := Explain("linux", Config{Workspace: ws, Network: Network{Mode: NetworkOff}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range steps {
		ids = append(ids, s.Rule)
	}
	if ids[0] != "root-read-only" || ids[len(ids)-1] != "end-of-options" || !slices.Contains(ids, "workspace-bind") || slices.Contains(ids, "share-net") {
		t.Errorf("linux steps: %q", ids)
	}
	if _, err := Explain("darwin", Config{Workspace: "rel"}); !errors.Is(err, ErrBadPath) {
		t.Errorf("Explain validates: %v", err)
	}

	r := Rules()
	if len(r) != len(ruleTable) {
		t.Fatalf("Rules() has %d rules, table %d", len(r), len(ruleTable))
	}
	r[0].ID = "changed"
	if ruleTable[0].ID == "changed" {
		t.Error("Rules() returned the table itself")
	}
}

// absoluteDefaults are the default hidden paths outside the home, whose
// kinds are the host's: revealed, a test's plan is the same everywhere.
func absoluteDefaults() []string {
	var out []string
	for _, d := range defaultHidden {
		if !d.underHome && d.env == "" {
			out = append(out, d.path)
		}
	}
	return out
}
