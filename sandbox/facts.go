package sandbox

import (
	"cmp"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// grantFacts resolves Read or Write paths, which must exist: bwrap cannot
// bind a missing source. grants, when not nil, gets each path's
// grantPath, which the caller gives the refuse stage once the writable
// roots are known; without, each read path is an input of its own.
func grantFacts(res *resolved, field string, paths []string, ws string, grants *[]grantPath) ([]pathFact, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	r := res.r
	facts := make([]pathFact, 0, len(paths))
	for _, p := range paths {
		real, fi, err := r.resolve(p)
		if err != nil && field == "write path" && isMissing(err) {
			return nil, missingGrantError(field, p, err)
		}
		if err != nil {
			return nil, fsPathError(field, p, err)
		}
		if err := checkResolved(field, p, real); err != nil {
			return nil, err
		}
		if grants != nil {
			*grants = append(*grants, r.grant(p, real))
		} else {
			res.input(refuseSubject{in: refuseReadPath, field: field, path: p, resolved: true, real: real, via: viaOf(r)})
		}
		facts = append(facts, fact(real, kindOf(fi), ws))
	}
	return facts, nil
}

// hiddenFacts builds the hidden set: the table's defaults that are not
// revealed, then the caller's paths, deduplicated after resolution so two
// spellings of one directory produce one mount.
func hiddenFacts(res *resolved, cfg Config, ws string) ([]pathFact, error) {
	r, homeDirs := res.r, res.homes
	home, err := homeDirs.home, homeDirs.err
	if err != nil {
		return nil, err
	}
	var derived []derivedPath
	if res.strict {
		if derived, err = derivedHidden(res, os.LookupEnv); err != nil {
			return nil, err
		}
	}
	revealed, err := checkReveal(cfg.Reveal, home, derived)
	if err != nil {
		return nil, err
	}
	facts := make([]pathFact, 0, len(defaultHidden)+len(cfg.Hidden))
	seen := make(map[string]bool, cap(facts))
	add := func(f pathFact) {
		if !seen[f.path] {
			seen[f.path] = true
			facts = append(facts, f)
		}
	}

	// The defaults are hidden under $HOME and, when it differs, under the
	// home the password database gives, which is where the shell and ssh
	// look whatever HOME says.
	if homeDirs.passwdErr != nil {
		return nil, homeDirs.passwdErr
	}
	homes := homeDirs.list()
	for hi, home := range homes {
		// Defaults are resolved from the resolved home, so ~/.ssh costs one
		// lstat, not one per component of $HOME.
		var realHome string
		if home != "" {
			var err error
			if realHome, _, err = r.resolve(home); err != nil {
				if !isMissing(err) {
					return nil, fsPathError("home", home, err)
				}
				res.input(refuseSubject{in: refuseHome, field: "home", path: home, real: realHome, err: err, via: viaOf(r)})
				home, realHome = "", "" // no home: nothing under it to hide
			}
		}
		var starErr error
		for i, d := range homeRows(r, realHome, &starErr) {
			// Reveals name paths under $HOME, and reveal nothing under
			// the other home.
			if hi == 0 && len(revealed) > 0 && revealed[i] || hi > 0 && !d.underHome || d.env != "" {
				continue
			}
			// The path as the table spells it is built only for an
			// error: it would be one allocation per entry and spawn.
			const field = "default hidden path"
			var (
				real string
				fi   fs.FileInfo
				err  error
			)
			if d.underHome {
				if realHome == "" {
					continue
				}
				real, fi, err = r.resolveUnder(realHome, d.path)
			} else {
				real, fi, err = r.resolve(d.path)
			}
			s := refuseSubject{in: refuseDefaultHidden, field: field, path: d.path, real: real, err: err, via: viaOf(r)}
			if d.underHome {
				s.under = home
			}
			if err == nil {
				s.fi = fi
			}
			res.input(s)
			if err != nil {
				if !isMissing(err) {
					res.fail(fsPathError(field, defaultPath(d, home), err))
					continue
				}
				// Kept, as a missing Config.Hidden entry is: the Linux rules
				// skip it, and on macOS its deny pair stops the path from
				// appearing, readable, while the sandbox runs. One that could
				// not be written in a profile has nothing to hide either.
				// (The table's path is valid, so checkResolved's verdict is
				// checkPath's on real.)
				if checkPath(field, real) == nil {
					add(ruled(fact(real, kindMissing, ws), d.id))
				}
				continue
			}
			if real == ws {
				continue // the caller chose to work there
			}
			if checkPath(field, real) != nil {
				return nil, checkResolved(field, defaultPath(d, home), real)
			}
			add(ruled(fact(real, kindOf(fi), ws), d.id))
		}
		if starErr != nil {
			return nil, starErr
		}
	}

	for i := range derived {
		// npm names ~/.npmrc in npm_config_userconfig for every script it
		// runs: a redact row serves that file, token removed.
		if isRedactPath(derived[i].path, home) {
			derived[i].revealed = true
		}
	}
	if err := derivedFacts(res, derived, ws, add); err != nil {
		return nil, err
	}

	for _, h := range cfg.Hidden {
		real, fi, err := r.resolve(h)
		if err != nil && !isMissing(err) {
			res.input(refuseSubject{in: refuseHiddenPath, field: "hidden path", path: h, spelled: true, via: viaOf(r)})
			res.fail(fsPathError("hidden path", h, err))
			continue
		}
		// Kept when missing: a deny rule on macOS is harmless and stops
		// the path from appearing later; the Linux rules skip it.
		kind := kindOf(fi)
		s := refuseSubject{in: refuseHiddenPath, field: "hidden path", path: h, spelled: true, resolved: true, real: real, err: err, via: viaOf(r)}
		if err == nil {
			s.fi = fi
		}
		res.input(s)
		if err := checkResolved("hidden path", h, real); err != nil {
			return nil, err
		}
		add(fact(real, kind, ws))
	}
	return facts, nil
}

// checkReveal maps Config.Reveal to indexes of defaultHidden, and marks
// the derived paths it names (by their expanded path). An entry that
// names no default is an error: a typo must not look like a reveal that
// worked.
func checkReveal(reveal []string, home string, derived []derivedPath) ([]bool, error) {
	if len(reveal) == 0 {
		return nil, nil
	}
	revealed := make([]bool, len(defaultHidden))
	for _, want := range reveal {
		found := false
		for i, d := range defaultHidden {
			if d.underHome && home == "" || d.env != "" {
				continue
			}
			if defaultPath(d, home) == want {
				revealed[i], found = true, true
			}
		}
		for i := range derived {
			if derived[i].path == want {
				derived[i].revealed, found = true, true
			}
		}
		if !found && isRedactPath(want, home) {
			found = true // passes the file whole
		}
		if !found {
			var accepted []string
			for _, d := range defaultHidden {
				if (!d.underHome || home != "") && d.env == "" {
					accepted = append(accepted, defaultPath(d, home))
				}
			}
			for _, d := range derived {
				accepted = append(accepted, d.path)
			}
			return nil, badPath("reveal path", want, "not in the default hidden set (accepted: "+strings.Join(accepted, ", ")+")")
		}
	}
	return revealed, nil
}

func defaultPath(d defaultHiddenPath, home string) string {
	if d.underHome {
		return home + "/" + d.path
	}
	return d.path
}

func fact(real string, kind pathKind, ws string) pathFact {
	return pathFact{
		path:     real,
		kind:     kind,
		ancestor: under(ws, real),
		inside:   under(real, ws),
	}
}

// ruled is f with the row that put it in the plan.
func ruled(f pathFact, rule string) pathFact {
	f.rule = rule
	return f
}

// under reports whether p lies strictly below dir, without building dir+"/".
func under(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// parentDir is path.Dir of the clean absolute path p, without the
// cleaning pass path.Dir makes over what it returns.
func parentDir(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// sortMounts orders the mount group parent before child, keeping table order
// between equal depths, so a grant inside a hidden directory punches through
// and a hidden path inside the workspace stays hidden.
func sortMounts(m []mount) []mount {
	slices.SortStableFunc(m, func(a, b mount) int {
		return cmp.Compare(strings.Count(a.path, "/"), strings.Count(b.path, "/"))
	})
	return m
}
