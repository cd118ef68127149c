package sandbox

import (
	"os"
	"strconv"
	"strings"
)

// hostGitConfig is what the host's git reads outside any repository, read once
// a spawn: the hooks directories and the protect rows' key and variable
// values, which apply to every repository found, and what of it lies in
// a writable root whatever the repository (the config files and what
// they include, an absolute hooks path or key path).
type hostGitConfig struct {
	hooks  []string
	values []gitKeyValue
	finds  gitFinds
}

// systemGitConfigs are where git's $(prefix)/etc/gitconfig is for the
// usual prefixes: a distribution's (/usr, so /etc), a source build's
// (/usr/local) and Homebrew's on Apple silicon. Each one there is read.
var systemGitConfigs = []string{"/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"}

// maxGitEnvPairs bounds GIT_CONFIG_COUNT's pairs read.
const maxGitEnvPairs = 1024

// readHostGit reads the host's git configuration as git would for this
// process's environment (git-config(1) FILES and ENVIRONMENT): the system
// file unless GIT_CONFIG_NOSYSTEM (GIT_CONFIG_SYSTEM instead when set),
// $XDG_CONFIG_HOME/git/config and ~/.gitconfig (GIT_CONFIG_GLOBAL instead
// when set), GIT_CONFIG_COUNT's pairs and GIT_CONFIG_PARAMETERS (git -c),
// what each includes, and the protect rows' variables. A file outside
// every writable root that cannot be read is skipped, as git skips it.
func readHostGit(res *resolved, roots []string, getenv func(string) (string, bool)) (*hostGitConfig, error) {
	g := &gitFinder{r: res.r, res: res, roots: roots, seen: map[string]bool{}}
	h := &hostGitConfig{}
	for _, f := range hostGitFiles(res.homes.home, getenv) {
		if err := h.file(g, f); err != nil {
			return nil, err
		}
	}
	for _, src := range []struct {
		from    string
		entries []gitEntry
	}{
		{"GIT_CONFIG_COUNT", gitEnvPairs(getenv)},
		{"GIT_CONFIG_PARAMETERS", gitParameters(getenv)},
	} {
		// A relative include is refused there ("relative config includes
		// must come from files"): only absolute and ~/ ones are followed.
		var kept []gitEntry
		for _, e := range src.entries {
			if gitIncludes([]gitEntry{e}) != nil && !strings.HasPrefix(e.value, "/") && !strings.HasPrefix(e.value, "~/") {
				continue
			}
			kept = append(kept, e)
		}
		entries, err := g.include("$"+src.from, kept, 0)
		if err != nil {
			return nil, err
		}
		h.add(entries, "$"+src.from)
	}
	for i := range protectedPaths {
		for _, name := range protectedPaths[i].env {
			if v, ok := getenv(name); ok && v != "" {
				h.values = append(h.values, gitKeyValue{row: i, value: v, from: "$" + name})
			}
		}
	}
	// What is absolute is protected whether or not a repository is found.
	if err := g.keys("", "", h.values); err != nil {
		return nil, err
	}
	for _, hp := range h.hooks {
		if (strings.HasPrefix(hp, "/") || strings.HasPrefix(hp, "~/")) && !g.elsewhere("/", strings.Replace(hp, "~", res.homes.home, 1)) {
			if p, ok, err := g.inside("core.hooksPath", "/", hp); err != nil {
				return nil, err
			} else if ok && !slicesContains(g.out.hooks, p) {
				g.out.hooks = append(g.out.hooks, p)
			}
		}
	}
	h.finds = g.out
	h.finds.hostFiles = append(h.finds.hostFiles, g.out.includes...)
	h.finds.includes = nil
	return h, nil
}

// file reads the host config file f (as spelled: an include in it is
// relative to its directory) and what it includes.
func (h *hostGitConfig) file(g *gitFinder, f string) error {
	real, in, err := g.locate(f, "/", f)
	if err != nil || real == "" {
		return err
	}
	var data []byte
	if in {
		g.out.hostFiles = append(g.out.hostFiles, real)
		if data, err = g.optional(real, maxGitConfig); err != nil {
			return err
		}
	} else {
		data, _ = g.optional(real, maxGitConfig)
	}
	entries, err := g.include(f, parseGitConfig(data), 0)
	if err != nil {
		return err
	}
	h.add(entries, f)
	return nil
}

// add keeps the hooks paths and protect rows' values among entries.
func (h *hostGitConfig) add(entries []gitEntry, from string) {
	for _, e := range entries {
		if e.section == "core" && e.sub == "" && e.name == "hookspath" && !e.noValue && e.value != "" {
			h.hooks = append(h.hooks, e.value)
		}
	}
	h.values = gitKeyValues(h.values, entries, from)
}

// hostGitFiles are the system and global config files git reads here,
// absolute (a relative GIT_CONFIG_GLOBAL would be relative to where the
// later git runs, which nothing here knows).
func hostGitFiles(home string, getenv func(string) (string, bool)) []string {
	var out []string
	if v, _ := getenv("GIT_CONFIG_NOSYSTEM"); !gitEnvTrue(v) {
		if v, ok := getenv("GIT_CONFIG_SYSTEM"); ok {
			out = append(out, v)
		} else {
			out = append(out, systemGitConfigs...)
		}
	}
	if v, ok := getenv("GIT_CONFIG_GLOBAL"); ok {
		out = append(out, v)
	} else {
		xdg, _ := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = home + "/.config"
		}
		if xdg != "" {
			out = append(out, xdg+"/git/config")
		}
		if home != "" {
			out = append(out, home+"/.gitconfig")
		}
	}
	kept := out[:0]
	for _, f := range out {
		if strings.HasPrefix(f, "/") {
			kept = append(kept, f)
		}
	}
	return kept
}

// gitEnvTrue is git's reading of a boolean variable as true.
func gitEnvTrue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true
	}
	n, err := strconv.Atoi(v)
	return err == nil && n != 0
}

// gitEnvPairs are GIT_CONFIG_COUNT's GIT_CONFIG_KEY_n = GIT_CONFIG_VALUE_n,
// up to the first pair missing (where git stops with an error).
func gitEnvPairs(getenv func(string) (string, bool)) []gitEntry {
	v, _ := getenv("GIT_CONFIG_COUNT")
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return nil
	}
	var out []gitEntry
	for i := 0; i < n && i < maxGitEnvPairs; i++ {
		k, ok1 := getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
		val, ok2 := getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
		if !ok1 || !ok2 {
			break
		}
		if e, ok := gitKeyEntry(k, val, false); ok {
			out = append(out, e)
		}
	}
	return out
}

// gitParameters are the pairs of GIT_CONFIG_PARAMETERS, which git -c sets
// for the commands git runs: shell-quoted words, 'key'='value' or the
// older 'key=value' ('key' alone a boolean true).
func gitParameters(getenv func(string) (string, bool)) []gitEntry {
	s, _ := getenv("GIT_CONFIG_PARAMETERS")
	var out []gitEntry
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
			i++
			continue
		}
		key, next, ok := sqWord(s, i)
		if !ok {
			return out
		}
		i = next
		if i < len(s) && s[i] == '=' {
			var val string
			if val, i, ok = sqWord(s, i+1); !ok {
				return out
			}
			if e, ok := gitKeyEntry(key, val, false); ok {
				out = append(out, e)
			}
			continue
		}
		k, val, has := strings.Cut(key, "=")
		if e, ok := gitKeyEntry(k, val, !has); ok {
			out = append(out, e)
		}
	}
	return out
}

// sqWord reads one single-quoted word at i, as git's sq_quote writes it:
// a quote inside is a backslash-quote between two quoted parts.
func sqWord(s string, i int) (string, int, bool) {
	var b strings.Builder
	if i >= len(s) || s[i] != '\'' {
		return "", i, false
	}
	for i < len(s) && s[i] == '\'' {
		end := strings.IndexByte(s[i+1:], '\'')
		if end < 0 {
			return "", i, false
		}
		b.WriteString(s[i+1 : i+1+end])
		i += end + 2
		if strings.HasPrefix(s[i:], "\\'") {
			b.WriteByte('\'')
			i += 2
		}
	}
	return b.String(), i, true
}

// gitKeyEntry is the entry of key section[.sub].name, as git -c names it.
func gitKeyEntry(key, value string, noValue bool) (gitEntry, bool) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return gitEntry{}, false
	}
	e := gitEntry{section: strings.ToLower(key[:first]), name: strings.ToLower(key[last+1:]), value: value, noValue: noValue}
	if first < last {
		e.sub = key[first+1 : last]
	}
	return e, true
}

// hostGetenv is where readHostGit reads the host's environment.
var hostGetenv = os.LookupEnv
