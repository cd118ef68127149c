package sandbox

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestPrefixForFiles(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	ws := mkdir(t, dir, "ws")
	secret := writeFile(t, dir, "secret", "x")

	w, err := PrefixFor("linux", Config{Workspace: ws, Hidden: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Files, []string{os.DevNull}) {
		t.Errorf("Files = %q, want [/dev/null] for a hidden file", w.Files)
	}
	i := slices.Index(w.Args, secret)
	if i < 2 || w.Args[i-2] != "--ro-bind-data" || w.Args[i-1] != nullFD {
		t.Errorf("hidden file not replaced from fd %s: %q", nullFD, w.Args)
	}
	if w.Args[len(w.Args)-1] != "--" || w.Profile != "" {
		t.Errorf("linux wrap: %+v", w)
	}

	w, err = PrefixFor("darwin", Config{Workspace: ws, Hidden: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Program != darwinProgram || len(w.Args) != 2 || w.Args[0] != "-p" || w.Args[1] != w.Profile || w.Files != nil {
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
	steps, err := Explain("linux", Config{Workspace: ws, NoNetwork: true})
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
