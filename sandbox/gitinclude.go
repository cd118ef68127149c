package sandbox

import (
	"path"
	"strings"
)

// maxIncludeNest bounds how deep findGit follows included config files.
const maxIncludeNest = 4

// include records the files the git config file cfgPath (its contents
// cfg) includes that lie in a writable root, and follows what they
// include. A relative path is relative to the including file's directory,
// as git reads it; one under ~ is never in a writable root.
func (g *gitFinder) include(cfgPath string, cfg []byte, depth int) error {
	if depth >= maxIncludeNest {
		return nil
	}
	for _, inc := range gitConfigIncludes(cfg) {
		f, ok, err := g.inside(cfgPath, path.Dir(cfgPath), inc)
		if err != nil {
			return err
		}
		if !ok || slicesContains(g.out.includes, f) || len(g.out.includes) >= maxGitDirs {
			continue
		}
		g.out.includes = append(g.out.includes, f)
		data, err := g.optional(f, maxGitConfig)
		if err != nil {
			return err
		}
		if err := g.include(f, data, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// gitConfigIncludes returns the path values of a git config file's
// [include] and [includeIf "..."] sections, read as gitConfigCore reads
// core's keys.
func gitConfigIncludes(data []byte) []string {
	var out []string
	section := ""
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			rest := afterSection(line)
			name := strings.ToLower(strings.TrimSpace(line[1:max(len(line)-len(rest)-1, 1)]))
			if head, _, ok := strings.Cut(name, " "); ok {
				name = head
			}
			section, line = name, strings.TrimSpace(rest)
		}
		if section != "include" && section != "includeif" || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(key), "path") {
			if v := gitConfigValue(value); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}
