package gen

import (
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/landlock"
)

// landlockKindKeys are the keys each kind of landlock row may have besides
// id, why and its own.
var landlockKindKeys = map[string][]string{
	"grant":          {"for", "paths"},
	"network":        {"handles-net", "connect"},
	"refuse-socket":  {"keep-types", "keep-protocols", "errno"},
	"refuse-syscall": {"errno"},
	"refuse-clone":   {"errno"},
	"protect":        {"default"},
	"redirect":       {"env"},
}

// checkLandlock checks the landlock section and the landlock column of
// every other row of the linux table.
func checkLandlock(c *errs, p *Platform, cm *Common, local, global map[string]Pos) {
	checkBackendCols(c, p)
	if p.Landlock == nil {
		return
	}
	var handled landlock.AccessFS
	handles, defaults := 0, 0
	seen := map[string]Pos{} // kind:word, for the rows that may appear once per word
	once := func(e LandlockEntry, key string) {
		if prev, dup := seen[key]; dup {
			c.at(e.Pos, e.ID, "%s: already at %s (want one row)", key, prev)
		}
		seen[key] = e.Pos
	}
	for _, e := range p.Landlock {
		if e.Kind() == "handles" {
			a, err := parseRights(e.Handles)
			if err != nil {
				c.at(e.Pos, e.ID, "handles: %v (want rights of %s)", err, strings.Join(landlock.FSNames(), ", "))
			}
			handled |= a
			handles++
		}
	}
	for _, e := range p.Landlock {
		checkID(c, e.Pos, e.ID, local, nil)
		if prev, ok := global[e.ID]; ok && e.ID != "" {
			c.at(e.Pos, e.ID, "id already names a shared entry at %s (want an id of its own)", prev)
		}
		checkWhy(c, e.Pos, e.ID, e.Why)
		kind := e.Kind()
		for _, key := range []string{"for", "paths", "handles-net", "connect", "keep-types", "keep-protocols", "errno", "default", "env"} {
			if landlockHas(e, key) && !slices.Contains(landlockKindKeys[kind], key) {
				c.at(e.Pos, e.ID, "%s: not a key of a %s row", key, kind)
			}
		}
		errno := func() {
			if e.Errno != "" {
				if _, ok := landlockErrnos[e.Errno]; !ok {
					c.at(e.Pos, e.ID, "errno %q: not one the filter returns (want one of %s)", e.Errno, strings.Join(keysOf(landlockErrnos), ", "))
				}
			}
		}
		switch kind {
		case "grant":
			a, err := parseRights(e.Grant)
			switch {
			case err != nil:
				c.at(e.Pos, e.ID, "grant: %v (want rights of %s)", err, strings.Join(landlock.FSNames(), ", "))
			case a&^handled != 0:
				c.at(e.Pos, e.ID, "grant: %s not handled by the ruleset (want rights of the handles row)", a&^handled)
			}
			switch {
			case (e.For == "") == (e.Paths == nil):
				c.at(e.Pos, e.ID, "grant: names a set with for or constant paths with paths (want exactly one)")
			case e.For != "":
				if _, ok := landlockSets[e.For]; !ok || e.For == "paths" {
					c.at(e.Pos, e.ID, "for: %q is not a set of the plan (want one of %s)", e.For, strings.Join(slices.DeleteFunc(keysOf(landlockSets), func(s string) bool { return s == "paths" }), ", "))
				} else {
					once(e, "grant for "+e.For)
				}
			default:
				for _, path := range e.Paths {
					if msg := badPath(path); msg != "" {
						c.at(e.Pos, e.ID, "paths: %q: %s", path, msg)
					}
				}
			}
		case "network":
			if _, ok := landlockNetworkModes[e.Network]; !ok {
				c.at(e.Pos, e.ID, "network: %q is not a network mode (want proxy, off or host)", e.Network)
			} else {
				once(e, "network "+e.Network)
			}
			if _, err := landlock.ParseNet(strings.Join(e.HandlesNet, ",")); err != nil {
				c.at(e.Pos, e.ID, "handles-net: %v (want rights of %s)", err, strings.Join(landlock.NetNames(), ", "))
			}
			if _, ok := landlockPorts[e.Connect]; e.Connect != "" && !ok {
				c.at(e.Pos, e.ID, "connect: %q is not a port the backend knows (want proxy)", e.Connect)
			}
		case "scopes":
			once(e, "scopes")
			if _, err := landlock.ParseScope(strings.Join(e.Scopes, ",")); err != nil {
				c.at(e.Pos, e.ID, "scopes: %v (want scopes of %s)", err, strings.Join(landlock.ScopeNames(), ", "))
			}
		case "refuse-socket":
			for _, f := range e.RefuseSocket {
				if _, ok := socketFamilies[f]; !ok {
					c.at(e.Pos, e.ID, "refuse-socket: %q is not an address family", f)
				}
			}
			if e.KeepTypes != nil && e.KeepProtocols != nil {
				c.at(e.Pos, e.ID, "refuse-socket: keeps types and protocols (want one of keep-types, keep-protocols, or none)")
			}
			for _, w := range e.KeepTypes {
				if _, ok := socketTypes[w]; !ok {
					c.at(e.Pos, e.ID, "keep-types: %q is not a socket type (want one of %s)", w, strings.Join(keysOf(socketTypes), ", "))
				}
			}
			for _, w := range e.KeepProtocols {
				if _, ok := socketProtocols[w]; !ok {
					c.at(e.Pos, e.ID, "keep-protocols: %q is not a protocol (want one of %s)", w, strings.Join(keysOf(socketProtocols), ", "))
				}
			}
			errno()
		case "refuse-syscall":
			_, ok := landlockSyscalls[e.RefuseSyscall]
			if _, ok2 := seccompSyscalls[e.RefuseSyscall]; !ok && !ok2 {
				c.at(e.Pos, e.ID, "refuse-syscall: %q is not a system call the filter knows", e.RefuseSyscall)
			}
			errno()
		case "refuse-clone":
			for _, f := range e.RefuseClone {
				if _, ok := cloneFlags[f]; !ok {
					c.at(e.Pos, e.ID, "refuse-clone: %q is not a namespace flag (want one of %s)", f, strings.Join(keysOf(cloneFlags), ", "))
				}
			}
			errno()
		case "protect":
			if _, ok := landlockProtectModes[e.Protect]; !ok {
				c.at(e.Pos, e.ID, "protect: %q is not a mode (want detect or read-only)", e.Protect)
			} else {
				once(e, "protect "+e.Protect)
			}
			if e.Default {
				defaults++
			}
		case "redirect":
			known := false
			for _, r := range cm.Redact {
				known = known || r.ID == e.Redirect
			}
			if !known {
				c.at(e.Pos, e.ID, "redirect: %q is not a row of the redact section", e.Redirect)
			} else {
				once(e, "redirect "+e.Redirect)
			}
			if !envName.MatchString(e.Env) {
				c.at(e.Pos, e.ID, "env %q is not an environment variable name (want [A-Z_][A-Z0-9_]*)", e.Env)
			}
		case "does":
			if _, ok := landlockDoes[e.Does]; !ok {
				c.at(e.Pos, e.ID, "does: %q is not a step of the helper (want one of %s)", e.Does, strings.Join(keysOf(landlockDoes), ", "))
			} else {
				once(e, "does "+e.Does)
			}
		}
	}
	if handles != 1 {
		c.at(p.Pos, "", "landlock: %d handles rows (want one, the rights the ruleset restricts)", handles)
	}
	if defaults != 1 {
		c.at(p.Pos, "", "landlock: %d protect rows marked default (want one)", defaults)
	}
}

// landlockHas reports whether e sets key.
func landlockHas(e LandlockEntry, key string) bool {
	switch key {
	case "for":
		return e.For != ""
	case "paths":
		return e.Paths != nil
	case "handles-net":
		return e.HandlesNet != nil
	case "connect":
		return e.Connect != ""
	case "keep-types":
		return e.KeepTypes != nil
	case "keep-protocols":
		return e.KeepProtocols != nil
	case "errno":
		return e.Errno != ""
	case "default":
		return e.Default
	case "env":
		return e.Env != ""
	}
	return false
}

// checkBackendCols requires the landlock column on every rule, seccomp,
// limits and watch row of a table with a landlock section, and refuses it
// in one without.
func checkBackendCols(c *errs, p *Platform) {
	check := func(pos Pos, id string, col *BackendCol) {
		switch {
		case col == nil && p.Landlock != nil:
			c.at(pos, id, "missing the landlock column (want landlock: {enforce: kept, weaker or lost, why: how the reduced backend does it})")
		case col != nil && p.Landlock == nil:
			c.at(col.Pos, id, "landlock: a column without the table's landlock section (want the section, or no column)")
		case col != nil:
			if _, ok := backendEnforce[col.Enforce]; !ok && col.Enforce != "" {
				c.at(col.Pos, id, "landlock.enforce: %q (want kept, weaker or lost)", col.Enforce)
			}
			if strings.TrimSpace(col.Why) == "" && col.Enforce != "" {
				c.at(col.Pos, id, "landlock: missing why (want how the reduced backend does it, or why it cannot)")
			}
		}
	}
	for _, r := range p.Rules {
		check(r.Pos, r.ID, r.Landlock)
	}
	for _, e := range p.Seccomp {
		check(e.Pos, e.ID, e.Landlock)
	}
	for _, e := range p.Limits {
		check(e.Pos, e.ID, e.Landlock)
	}
	for _, e := range p.Watch {
		check(e.Pos, e.ID, e.Landlock)
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
