package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
)

// cacheSubdir is sandtable's cache root under the XDG cache directory: a
// directory per scope (user, or ws-KEY for one workspace; see
// cacheScopeDir) holds one directory per row of the table's caches
// section.
const cacheSubdir = "sandtable/caches"

// CacheRoot returns the directory that holds the sandbox's private tool
// caches for this caller: $XDG_CACHE_HOME/sandtable/caches when
// XDG_CACHE_HOME is absolute, else $HOME/.cache/sandtable/caches; "" when
// there is no home to put it under. It is not created here.
func CacheRoot() (string, error) {
	h := readHomes()
	if h.err == nil && h.home != "" {
		// The refuse rows on the home, as a plan's refuse stage runs them
		// on its spelling.
		in := []refuseSubject{{refuseCtx: &refuseCtx{}, in: refuseHome, field: "home", path: h.home, spelled: true}}
		if err := refuseInputs(refuseRows[:], in); err != nil {
			return "", err
		}
	}
	base, err := cacheBase(h.home, h.err)
	if base == "" || err != nil {
		return "", err
	}
	return base + "/" + cacheSubdir, nil
}

// cacheBase is $XDG_CACHE_HOME when it is absolute, else home's .cache;
// homeErr is home's refusal, returned only when home is needed.
func cacheBase(home string, homeErr error) (string, error) {
	if x := os.Getenv("XDG_CACHE_HOME"); strings.HasPrefix(x, "/") {
		if x != "/" {
			x = strings.TrimRight(x, "/")
		}
		if err := checkPath("XDG_CACHE_HOME", x); err != nil {
			return "", err
		}
		return x, nil
	}
	if home == "" || homeErr != nil {
		return "", homeErr
	}
	return childPath(home, ".cache"), nil
}

// cachePaths decides where the table's caches are for this spawn, without
// creating anything: the cache root's parent is resolved (an input of the
// refuse stage, with the links it went through), and each cache directory
// is the resolved parent joined with sandtable's names, which makeCaches
// creates without following links. It returns no caches with NoCache, or
// with no home to put them under.
func cachePaths(res *resolved, cfg Config, p *plan) ([]pathFact, error) {
	if cfg.NoCache || len(cacheDirs) == 0 {
		return nil, nil
	}
	r := res.r
	base, err := cacheBase(res.homes.home, res.homes.err)
	if base == "" || err != nil {
		return nil, err
	}
	real, _, err := r.resolve(base)
	if err != nil && !isMissing(err) {
		return nil, fsPathError("cache directory", base, err)
	}
	viaInput(res, refuseCacheDir, "cache directory", base)
	if res.goos == runtime.GOOS {
		// Where the caches are, or would be made: little-space and
		// few-inodes.
		res.inputs[len(res.inputs)-1].room = fsSpaceOf(real + "/" + cacheSubdir)
	}
	if err := checkResolved("cache directory", base, real); err != nil {
		return nil, err
	}
	facts := make([]pathFact, 0, len(cacheDirs))
	ws := cacheScopeDir(p.workspace)
	for _, c := range cacheDirs {
		scope := "user"
		if c.perWorkspace {
			scope = ws
		}
		facts = append(facts, ruled(fact(real+"/"+cacheSubdir+"/"+scope+"/"+c.dir, kindDir, p.workspace), c.id))
	}
	return facts, nil
}

// cacheScopeDir is the directory under the cache root that holds the
// caches of scope workspace for the resolved workspace ws: "ws-" and the
// first 16 bytes of its path's SHA-256, in hex.
func cacheScopeDir(ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return "ws-" + hex.EncodeToString(sum[:16])
}

// cacheInputs lists sandtable's cache directories of a plan for this
// machine's OS (below the XDG cache directory: sandtable's, the root, the
// scopes, each cache, outermost first) and gives the refuse stage each
// that exists, as lstat finds it: the sandbox writes inside them, so each
// must be a directory owned by the caller, never a symlink. What the
// spawn's resolver has seen is reused, so a cache that exists costs no
// look beyond the one it had as a writable root.
func cacheInputs(res *resolved, goos string) {
	p := res.p
	if len(p.caches) == 0 || goos != runtime.GOOS {
		return
	}
	root := path.Dir(path.Dir(p.caches[0].path))
	base := strings.TrimSuffix(root, "/"+cacheSubdir)
	dirs := []string{base + "/sandtable", root}
	for _, f := range p.caches {
		if scope := path.Dir(f.path); !slices.Contains(dirs, scope) {
			dirs = append(dirs, scope)
		}
		dirs = append(dirs, f.path)
	}
	res.cacheDirs, res.cacheSeen = dirs, make([]bool, len(dirs))
	for i, d := range dirs {
		if fi, err := res.r.lstat(d); err == nil {
			res.cacheSeen[i] = fi.IsDir()
			res.input(refuseSubject{in: refuseCacheMade, field: "cache directory", path: d, fi: fi})
		}
	}
}

// makeCaches creates the cache directories cacheInputs listed that did
// not exist, once the refuse stage has passed: what exists above
// sandtable's own directory as the XDG cache directory would be (0700),
// sandtable's directories one component at a time, 0700, without
// following a link. One that appeared since, made by another spawn, is
// given the rows of input cache-made itself, as the refuse stage would
// have.
func makeCaches(res *resolved, rows []refuseRow) error {
	if len(res.cacheDirs) == 0 {
		return nil
	}
	r := res.r
	base := path.Dir(res.cacheDirs[0])
	if _, err := r.lstat(base); err != nil {
		if err := os.MkdirAll(base, 0o700); err != nil {
			return cacheMakeError(base, err)
		}
		// MkdirAll made base and the directories above it that were missing.
		for d := base; d != "/"; d = path.Dir(d) {
			if v, ok := r.seen[d]; ok && v.err == nil {
				break
			}
			r.forget(d)
		}
	}
	for i, d := range res.cacheDirs {
		if res.cacheSeen[i] {
			continue // a directory the refuse stage has checked
		}
		if err := mkdirOwned(res, rows, d); err != nil {
			return err
		}
	}
	return nil
}

// forget drops what r remembers of p, which this spawn has just created,
// and its directory's listing, which lacks it.
func (r *resolver) forget(p string) {
	delete(r.seen, p)
	if d := r.dirs[path.Dir(p)]; d != nil {
		d.names = nil
	}
}

// mkdirOwned makes the cache directory d; one found in its place is
// checked as the refuse stage checks the directories it finds.
func mkdirOwned(res *resolved, rows []refuseRow, d string) error {
	r := res.r
	err := os.Mkdir(d, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return cacheMakeError(d, err)
	}
	r.forget(d)
	if err == nil {
		return nil // made now, by this caller
	}
	fi, err := r.lstat(d)
	switch {
	case err != nil:
		return cacheMakeError(d, err)
	case fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir():
		return cacheError(d, "not a directory (want a directory; remove it)")
	}
	c := &refuseCtx{guard: res.strict, r: r, roots: res.p.roots}
	in := []refuseSubject{{refuseCtx: c, in: refuseCacheMade, field: "cache directory", path: d, fi: fi}}
	return refuseInputs(rows, in)
}

func cacheError(d, problem string) error {
	return badPath("cache directory", d, problem)
}

// cacheMakeError is a cache directory the file system would not let this
// process make (no space or inodes left, read-only, permission denied):
// the machine's state, not the caller's configuration, so it wraps
// ErrUnavailable, and err.
func cacheMakeError(d string, err error) error {
	return fmt.Errorf("sandbox: cache directory %q: cannot be created: %w (want room and write access there, XDG_CACHE_HOME set elsewhere, or --no-cache, Config.NoCache): %w", d, err, ErrUnavailable)
}

// cacheEnv is what the child's environment gets for the plan's caches:
// each row's variable, pointed at its directory.
func cacheEnv(p *plan) []string {
	if len(p.caches) == 0 {
		return nil
	}
	env := make([]string, len(p.caches))
	for i, c := range cacheDirs {
		env[i] = c.env + "=" + c.prefix + p.caches[i].path + c.suffix
	}
	return env
}

// setEnv returns env with each NAME=VALUE of set in place of any earlier
// value of NAME.
func setEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slicesHasName(set, name) {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

func slicesHasName(set []string, name string) bool {
	for _, kv := range set {
		if n, _, _ := strings.Cut(kv, "="); n == name {
			return true
		}
	}
	return false
}
