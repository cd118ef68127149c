package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestParseGitConfig pins the config syntax git reads (git-config(1)
// CONFIGURATION FILE): a key on its header's line, subsections old and
// new, quotes, escapes, continuations, comments, a key with no value,
// and nothing after a header git refuses (git stops reading there).
func TestParseGitConfig(t *testing.T) {
	cfg := "# c\n[Core]\n\tFSMonitor = \"tools/fs mon\" ; note\n\tbare\n" +
		"[filter \"Team\"] clean = ./a\\\n/b  c  # x\n" +
		"[alias] x = !echo \"a;b\" \\\"q\\\\\n" +
		"[Remote.Origin]\nurl = u\n" +
		"[credential \"https://h\\\"x\"]\n\thelper = /abs/h --a\n" +
		"[broken\nhooksPath = lost\n[core]\n\thooksPath = lost too\n"
	got := parseGitConfig([]byte(cfg))
	want := []gitEntry{
		{section: "core", name: "fsmonitor", value: "tools/fs mon"},
		{section: "core", name: "bare", noValue: true},
		{section: "filter", sub: "Team", name: "clean", value: "./a/b  c"},
		{section: "alias", name: "x", value: `!echo a;b "q\`},
		{section: "remote", sub: "origin", name: "url", value: "u"},
		{section: "credential", sub: `https://h"x`, name: "helper", value: "/abs/h --a"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestMatchGitKey(t *testing.T) {
	e := func(section, sub, name string) gitEntry { return gitEntry{section: section, sub: sub, name: name} }
	for _, c := range []struct {
		pattern string
		e       gitEntry
		want    bool
	}{
		{"core.fsmonitor", e("core", "", "fsmonitor"), true},
		{"core.fsmonitor", e("core", "x", "fsmonitor"), false},
		{"filter.*.clean", e("filter", "lfs", "clean"), true},
		{"filter.*.clean", e("filter", "", "clean"), false},
		{"alias.*", e("alias", "", "anything"), true},
		{"alias.*", e("alias", "sub", "anything"), false},
		{"gpg.ssh.defaultkeycommand", e("gpg", "SSH", "defaultkeycommand"), true},
		{"gpg.ssh.defaultkeycommand", e("gpg", "x509", "defaultkeycommand"), false},
	} {
		if got := matchGitKey(c.pattern, c.e); got != c.want {
			t.Errorf("matchGitKey(%q, %+v) = %v, want %v", c.pattern, c.e, got, c.want)
		}
	}
}

// TestGitPathIn pins which values name a file git runs or loads: the
// program of a shell command only when it has a slash (else git's PATH
// lookup), a program run as it is, a credential helper only as a
// !command or an absolute path, an alias only after !.
func TestGitPathIn(t *testing.T) {
	for _, c := range []struct {
		v     gitValue
		value string
		want  string
	}{
		{gitValueCommand, "tools/fsmon", "tools/fsmon"},
		{gitValueCommand, "true", ""},
		{gitValueCommand, "less -R", ""},
		{gitValueCommand, "./ssh-wrap -i key", "./ssh-wrap"},
		{gitValueCommand, "LESS=R 'my tools/pager' -x", "my tools/pager"},
		{gitValueCommand, "exec env A=1 ./x", "./x"},
		{gitValueCommand, "$HOME/bin/x", ""},
		{gitValueCommand, "(./x)", ""},
		{gitValueCommand, "~/bin/x --y", "/home/u/bin/x"},
		{gitValueCommand, "~other/bin/x", ""},
		{gitValueCommand, "sh tools/x.sh", ""},
		{gitValueProgram, "tools/my askpass", "tools/my askpass"},
		{gitValueProgram, "gpg2", ""},
		{gitValueProgram, "~/bin/gpg", "~/bin/gpg"},
		{gitValueProxy, "./proxy for example.com", "./proxy"},
		{gitValuePath, ".githooks", ".githooks"},
		{gitValuePath, "~/tpl", "/home/u/tpl"},
		{gitValueAlias, "!./tools/st --short", "./tools/st"},
		{gitValueAlias, "status --short", ""},
		{gitValueHelper, "store --file x/y", ""},
		{gitValueHelper, "/ws/bin/helper --a", "/ws/bin/helper"},
		{gitValueHelper, "!f() { echo; }; f", ""},
		{gitValueHelper, "!tools/cred get", "tools/cred"},
	} {
		if got := gitPathIn(c.v, c.value, "/home/u"); got != c.want {
			t.Errorf("gitPathIn(%d, %q) = %q, want %q", c.v, c.value, got, c.want)
		}
	}
}

// TestHostGitSources pins where the host's git configuration comes from
// (git-config(1) FILES, ENVIRONMENT): the system files unless
// GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL instead of
// the defaults, XDG before ~/.gitconfig; GIT_CONFIG_COUNT's pairs up to
// the first missing, and GIT_CONFIG_PARAMETERS in both of git -c's forms.
func TestHostGitSources(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	for _, c := range []struct {
		env  func(string) (string, bool)
		want []string
	}{
		{env(), append(slices.Clone(systemGitConfigs), "/h/.config/git/config", "/h/.gitconfig")},
		{env("GIT_CONFIG_NOSYSTEM", "1", "XDG_CONFIG_HOME", "/x"), []string{"/x/git/config", "/h/.gitconfig"}},
		{env("GIT_CONFIG_NOSYSTEM", "false", "GIT_CONFIG_SYSTEM", "/s", "GIT_CONFIG_GLOBAL", "/g"), []string{"/s", "/g"}},
		{env("GIT_CONFIG_NOSYSTEM", "yes", "GIT_CONFIG_GLOBAL", "rel"), nil},
	} {
		if got := hostGitFiles("/h", c.env); !slices.Equal(got, c.want) {
			t.Errorf("hostGitFiles = %q, want %q", got, c.want)
		}
	}
	pairs := gitEnvPairs(env("GIT_CONFIG_COUNT", "3",
		"GIT_CONFIG_KEY_0", "core.hooksPath", "GIT_CONFIG_VALUE_0", ".githooks",
		"GIT_CONFIG_KEY_1", "filter.Team.clean", "GIT_CONFIG_VALUE_1", "./c",
		"GIT_CONFIG_KEY_2", "core.pager"))
	if want := []gitEntry{{section: "core", name: "hookspath", value: ".githooks"}, {section: "filter", sub: "Team", name: "clean", value: "./c"}}; !slices.Equal(pairs, want) {
		t.Errorf("gitEnvPairs = %+v, want %+v", pairs, want)
	}
	params := gitParameters(env("GIT_CONFIG_PARAMETERS", `'core.fsmonitor'='tools/it'\''s' 'alias.x=!./y' 'core.bare'`))
	if want := []gitEntry{
		{section: "core", name: "fsmonitor", value: "tools/it's"},
		{section: "alias", name: "x", value: "!./y"},
		{section: "core", name: "bare", noValue: true},
	}; !slices.Equal(params, want) {
		t.Errorf("gitParameters = %+v, want %+v", params, want)
	}
}

// TestFindRepos: the walk finds the repositories below a root, bare ones
// too, shallowest first, descends neither .git, node_modules, a skipped
// directory nor a symlink, and says where a bound stopped it.
func TestFindRepos(t *testing.T) {
	root := realTempDir(t)
	for _, d := range []string{"a/.git/hooks", "a/vendor/b/.git", "c/d/e", "node_modules/x/.git", "hidden/y/.git", "bare.git/objects", "bare.git/refs", "link-target/z/.git"} {
		mkdir(t, root, d)
	}
	writeFile(t, root, "bare.git/HEAD", "ref: refs/heads/main\n")
	writeFile(t, root, "c/d/e/.git", "gitdir: ../../../a/.git\n")
	symlink(t, root+"/link-target", root+"/c/link")
	var r resolver
	tops, cuts := findRepos(&r, root, map[string]bool{root + "/hidden": true})
	var got []string
	for _, tp := range tops {
		got = append(got, fmt.Sprintf("%s bare=%v", tp.dir[len(root):], tp.bare))
	}
	want := []string{"/a bare=false", "/bare.git bare=true", "/link-target/z bare=false", "/a/vendor/b bare=false", "/c/d/e bare=false"}
	if !slices.Equal(got, want) || len(cuts) != 0 {
		t.Errorf("findRepos = %q, cuts %+v; want %q and none", got, cuts, want)
	}
	deep := mkdir(t, root, "1/2/3/4/5/6/7/.git")
	tops, cuts = findRepos(&r, root, nil)
	for _, tp := range tops {
		if tp.dir == deep[:len(deep)-5] {
			t.Errorf("found %s, deeper than git-search-depth", tp.dir)
		}
	}
	if len(cuts) != 1 || cuts[0].rule != gitSearchDepthRule || cuts[0].at != root+"/1/2/3/4/5/6/7" {
		t.Errorf("cuts = %+v, want git-search-depth at %s/1/2/3/4/5/6/7", cuts, root)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestGitDirsBound: past git-search-git-dirs git directories in a root,
// the rest are left out, and ExplainGitSearch names the first of them
// with the row.
func TestGitDirsBound(t *testing.T) {
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
	ws := mkdir(t, dir, "ws")
	for i := 0; i < gitSearchGitDirs+6; i++ {
		mkdir(t, ws, fmt.Sprintf("r%03d/.git/hooks", i))
	}
	p, err := newPlan("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	hooks := 0
	for _, f := range p.protected {
		if strings.HasSuffix(f.path, "/.git/hooks") {
			hooks++
		}
	}
	if hooks != gitSearchGitDirs {
		t.Errorf("%d hooks directories protected, want %d", hooks, gitSearchGitDirs)
	}
	steps, err := ExplainGitSearch("linux", Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	want := Step{Rule: gitSearchGitDirsRule, Args: []string{ws, fmt.Sprintf("%s/r%03d/.git", ws, gitSearchGitDirs), fmt.Sprintf("%d git directories", gitSearchGitDirs)}}
	if len(steps) != 1 || steps[0].Rule != want.Rule || !slices.Equal(steps[0].Args, want.Args) {
		t.Errorf("ExplainGitSearch = %+v, want %+v", steps, want)
	}
}

// TestHostGitUnnamable: a path the host's config names that cannot be
// written in an argv is nothing to protect where it lies outside every
// root, and refuses the spawn where it would lie inside one.
func TestHostGitUnnamable(t *testing.T) {
	dir := realTempDir(t)
	home := mkdir(t, dir, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	unsetenv(t, "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")
	ws := mkdir(t, dir, "ws")
	mkdir(t, ws, ".git")
	writeFile(t, home, ".gitconfig", "[core]\n\taskPass = \"/opt/a\\\"b/askpass\"\n")
	if _, err := newPlan("linux", Config{Workspace: ws}); err != nil {
		t.Errorf("an askPass outside every root: %v, want a plan", err)
	}
	writeFile(t, home, ".gitconfig", "[core]\n\thooksPath = \"hooks/a\\\"b\"\n")
	if _, err := newPlan("linux", Config{Workspace: ws}); err == nil || !strings.Contains(err.Error(), "cannot be protected") {
		t.Errorf("a hooks path in the work tree that cannot be named: %v, want it refused", err)
	}
}
