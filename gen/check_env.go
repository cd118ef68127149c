package gen

import "slices"

// bwrapEnv are variables bwrap itself reads before it runs the command:
// PATH to find it, and the dynamic loader's, to load bwrap. A strip-env
// row that matched one would break every spawn, or the one host whose
// bwrap needs it, so the generator refuses it.
var bwrapEnv = []string{"PATH", "LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT"}

// keptRequired are the names keep-env must list: the spawn is built
// around them (the hidden set under HOME, the command found on PATH).
var keptRequired = []string{"HOME", "PATH"}

// checkEnv checks the strip-env and keep-env rows: ids and whys, the name
// syntax (see env.go), each pattern's examples, and that no strip row
// matches a kept name or one bwrap needs, or is made dead by another.
func checkEnv(c *errs, cm *Common, local, ids map[string]Pos) {
	strips := make([]envPattern, len(cm.StripEnv))
	valid := make([]bool, len(cm.StripEnv))
	for i, e := range cm.StripEnv {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Value == "" {
			continue
		}
		p, problem := parseEnvPattern(e.Value)
		if problem != "" {
			c.at(e.Pos, e.ID, "name %q: %s", e.Value, problem)
			continue
		}
		strips[i], valid[i] = p, true
		if p.kind == envExact && (len(e.Catches) > 0 || len(e.Spares) > 0) {
			c.at(e.Pos, e.ID, "catches and spares belong to a pattern (want them removed from the exact name %s)", e.Value)
			continue
		}
		for _, x := range e.Catches {
			if bad := badEnvExample(x); bad != "" {
				c.at(e.Pos, e.ID, "catches %q: %s", x, bad)
			} else if !p.match(x) {
				c.at(e.Pos, e.ID, "catches %q, but %s does not match it (want a name it matches)", x, e.Value)
			}
		}
		for _, x := range e.Spares {
			if bad := badEnvExample(x); bad != "" {
				c.at(e.Pos, e.ID, "spares %q: %s", x, bad)
			} else if p.match(x) {
				c.at(e.Pos, e.ID, "spares %q, but %s matches it (want a pattern that leaves it, or the example removed)", x, e.Value)
			}
		}
	}
	var kept []string
	for _, e := range cm.KeepEnv {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Value == "" {
			continue
		}
		if p, problem := parseEnvPattern(e.Value); problem != "" {
			c.at(e.Pos, e.ID, "name %q: %s", e.Value, problem)
			continue
		} else if p.kind != envExact {
			c.at(e.Pos, e.ID, "name %q is a pattern (want an exact name: a kept pattern would overlap the strip patterns)", e.Value)
			continue
		}
		if slices.Contains(kept, e.Value) {
			c.at(e.Pos, e.ID, "keeps %s twice (want each name once)", e.Value)
		}
		kept = append(kept, e.Value)
	}
	if len(cm.StripEnv) > 0 || len(cm.KeepEnv) > 0 {
		for _, name := range keptRequired {
			if !slices.Contains(kept, name) {
				c.at(envPos(cm), "", "keep-env does not keep %s (want a keep-env row for %s)", name, name)
			}
		}
	}
	for i, e := range cm.StripEnv {
		if !valid[i] {
			continue
		}
		p := strips[i]
		for _, name := range kept {
			if p.match(name) {
				c.at(e.Pos, e.ID, "%s matches %s, which keep-env keeps (want a name that leaves it)", e.Value, name)
			}
		}
		for _, name := range bwrapEnv {
			if p.match(name) && !slices.Contains(kept, name) {
				c.at(e.Pos, e.ID, "%s matches %s, which bwrap itself reads (want a name that leaves it)", e.Value, name)
			}
		}
		for j := range i {
			if !valid[j] {
				continue
			}
			q := strips[j]
			switch {
			case p.kind == envExact && q.kind == envExact && p.lit == q.lit:
				c.at(e.Pos, e.ID, "strips %s, as %s already does (want each name once)", e.Value, cm.StripEnv[j].ID)
			case p.kind != envExact && q.covers(p):
				c.at(e.Pos, e.ID, "every name %s matches, %s (%s) already strips (want the row removed, or its examples moved there)", e.Value, cm.StripEnv[j].Value, cm.StripEnv[j].ID)
			case q.kind != envExact && p.covers(q):
				c.at(cm.StripEnv[j].Pos, cm.StripEnv[j].ID, "every name %s matches, %s (%s) strips too (want the narrower row removed)", q.lit, e.Value, e.ID)
			}
		}
	}
}

// envPos is where a missing keep-env row is reported: the first env row.
func envPos(cm *Common) Pos {
	if len(cm.KeepEnv) > 0 {
		return cm.KeepEnv[0].Pos
	}
	return cm.StripEnv[0].Pos
}
