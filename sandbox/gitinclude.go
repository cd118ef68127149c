package sandbox

import (
	"path"
)

// maxIncludeNest bounds how deep findGit follows included config files.
const maxIncludeNest = 4

// include records the files that the entries of the git config file
// cfgPath include and that lie in a writable root, and follows what they
// include, wherever they lie; it returns entries with the keys of every included file
// readable here added. A relative path is relative to the including
// file's directory, as git reads it; ~/ is the home directory.
func (g *gitFinder) include(cfgPath string, entries []gitEntry, depth int) ([]gitEntry, error) {
	if depth >= maxIncludeNest {
		return entries, nil
	}
	for _, inc := range gitIncludes(entries) {
		f, in, err := g.locate(cfgPath, path.Dir(cfgPath), inc)
		if err != nil {
			return nil, err
		}
		if f == "" || slicesContains(g.out.includes, f) || slicesContains(g.outside, f) || len(g.out.includes)+len(g.outside) >= gitSearchGitDirs {
			continue
		}
		var data []byte
		if in {
			g.out.includes = append(g.out.includes, f)
			if data, err = g.optional(f, maxGitConfig); err != nil {
				return nil, err
			}
		} else {
			// Read-only in the sandbox: only its keys matter, and what git
			// cannot read it ignores too.
			g.outside = append(g.outside, f)
			data, _ = g.optional(f, maxGitConfig)
		}
		more, err := g.include(f, parseGitConfig(data), depth+1)
		if err != nil {
			return nil, err
		}
		entries = append(entries, more...)
	}
	return entries, nil
}

// gitConfigIncludes returns the path values of a git config file's
// [include] and [includeIf "..."] sections (parseGitConfig), whatever the
// condition.
func gitConfigIncludes(data []byte) []string {
	return gitIncludes(parseGitConfig(data))
}

// gitIncludes are the include paths among entries.
func gitIncludes(entries []gitEntry) []string {
	var out []string
	for _, e := range entries {
		if e.name == "path" && !e.noValue && e.value != "" && (e.section == "include" && e.sub == "" || e.section == "includeif" && e.sub != "") {
			out = append(out, e.value)
		}
	}
	return out
}
