package sandbox

import (
	"path"
	"strings"
)

// loaderVars are the dynamic loader's variables that name files for it to
// load: in bwrap too, which runs outside the sandbox, before it has built
// anything.
var loaderVars = []string{"LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT"}

// loaderSeparators are what glibc splits each variable's entries on.
var loaderSeparators = map[string]string{"LD_LIBRARY_PATH": ":;", "LD_PRELOAD": ": ", "LD_AUDIT": ":"}

// loaderInputs gives the refuse stage each entry of the loader variables
// of bwrap's environment (lookup reads it), as glibc splits them
// (loaderSeparators). An entry the loader would look a path up for is
// resolved here, as / joined with it (bwrap's working directory), with
// the links it went through; a bare library name or one the checks
// refuse on its spelling is not.
func loaderInputs(res *resolved, lookup func(string) (string, bool)) {
	for _, name := range loaderVars {
		v, ok := lookup(name)
		if !ok {
			continue
		}
		for _, e := range strings.FieldsFunc(v, func(c rune) bool { return strings.ContainsRune(loaderSeparators[name], c) }) {
			s := refuseSubject{in: refuseLoaderEnv, field: name + " entry", path: e, loader: name}
			if loaderLooksUp(name, e) {
				s.as = path.Join("/", e)
				s.real, _, _ = res.r.resolve(s.as)
				s.via = viaOf(res.r)
			}
			res.input(s)
		}
	}
}

// refuseSpawnLoaderEnv runs the refuse rows on the loader variables of an
// environment a spawn was given after its plan was made (Cmd.Env): the
// resolve and refuse stages over that one input, against p's roots.
func refuseSpawnLoaderEnv(p *plan, lookup func(string) (string, bool)) error {
	res := &resolved{r: &resolver{}, p: p, strict: true}
	loaderInputs(res, lookup)
	return refuseStage(refuseRows[:], res)
}

// loaderLooksUp reports whether the loader looks the entry e of variable
// name up as a path: not a bare library name, nothing it expands ($),
// no . or .. component.
func loaderLooksUp(name, e string) bool {
	if strings.Contains(e, "$") || !strings.Contains(e, "/") && name != "LD_LIBRARY_PATH" {
		return false
	}
	for _, c := range strings.Split(e, "/") {
		if c == "." || c == ".." {
			return false
		}
	}
	return true
}

// loaderWritable refuses a loader variable's entry that could name a place
// the sandbox can write: a library an earlier run left there would run on
// the host. A relative entry is read from bwrap's working directory (/),
// through symlinks; an entry the loader would expand ($ORIGIN, $LIB,
// $PLATFORM) is refused, since its expansion is the loader's to make.
func (s *refuseSubject) loaderWritable() error {
	if !s.guard || s.loader == "" {
		return nil
	}
	e, r, roots := s.path, s.r, s.roots
	if strings.Contains(e, "$") {
		return badPath(s.field, e, "is expanded by the loader, past what a check can follow (want a plain path)")
	}
	if !strings.Contains(e, "/") && s.loader != "LD_LIBRARY_PATH" {
		return nil // a bare library name, looked up in the directories checked here
	}
	// The kernel applies .. after the links before it, which a sandboxed
	// run can plant: a path with . or .. means what the file system says
	// at load time, not what it says now.
	for _, c := range strings.Split(e, "/") {
		if c == "." || c == ".." {
			return badPath(s.field, e, "has . or .. components, whose meaning a sandboxed run can change (want a clean path)")
		}
	}
	p, real := s.as, s.real // resolved by loaderInputs
	// glibc also searches subdirectories of each entry
	// (glibc-hwcaps/x86-64-v3, tls, x86_64, ...), so a writable root
	// below one is as good as one above it.
	below := false
	for _, root := range roots {
		below = below || r.within(root, []string{real})
	}
	if below || r.plantableIn(s.via, roots) != "" || r.within(real, roots) || r.within(p, roots) {
		return badPath(s.field, e, "leads where a sandboxed command can write, and bwrap, "+
			"which runs outside the sandbox, would load a library it left there (want the entry removed)")
	}
	return nil
}

// envLookup reads a variable from an environment list as exec does: the
// last of several entries for one name wins.
func envLookup(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := "", false
		for _, kv := range env {
			if val, found := strings.CutPrefix(kv, name+"="); found {
				v, ok = val, true
			}
		}
		return v, ok
	}
}
