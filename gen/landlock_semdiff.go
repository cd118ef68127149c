package gen

import (
	"fmt"
	"slices"
)

// landlockDiff compares the reduced backend's rows and every row's
// landlock column. A column moving from kept towards lost widens what the
// reduced backend's command may do; back, narrows. A grant row added or
// given more rights widens; a refusal, a handled right, a scope or a step
// of the helper added narrows; each removed does the opposite.
func landlockDiff(o, n *Platform) []string {
	var out []string
	line := func(format string, args ...any) {
		out = append(out, "linux: "+fmt.Sprintf(format, args...))
	}
	cols := func(p *Platform) map[string]*BackendCol {
		m := map[string]*BackendCol{}
		if p == nil {
			return m
		}
		for _, r := range p.Rules {
			m[r.ID] = r.Landlock
		}
		for _, e := range p.Seccomp {
			m[e.ID] = e.Landlock
		}
		for _, e := range p.Limits {
			m[e.ID] = e.Landlock
		}
		for _, e := range p.Watch {
			m[e.ID] = e.Landlock
		}
		return m
	}
	oc, nc := cols(o), cols(n)
	var ids []string
	for id := range nc {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		a, b := oc[id], nc[id]
		if a == nil || b == nil || a.Enforce == b.Enforce {
			continue
		}
		r := reach{wider: backendEnforce[b.Enforce] > backendEnforce[a.Enforce], narrower: backendEnforce[b.Enforce] < backendEnforce[a.Enforce]}
		line("landlock column of %q: %s -> %s (%s)", id, a.Enforce, b.Enforce, r)
	}
	rows := func(p *Platform) []LandlockEntry {
		if p == nil {
			return nil
		}
		return p.Landlock
	}
	grantish := func(e LandlockEntry) bool { return e.Kind() == "grant" }
	removed := func(e LandlockEntry) reach {
		if grantish(e) {
			return reach{narrower: true}
		}
		return reach{wider: true}
	}
	changed := func(a, b LandlockEntry) reach {
		switch {
		case a.Kind() != b.Kind():
			return reach{wider: true, narrower: true}
		case grantish(a) && a.For == b.For && slices.Equal(a.Paths, b.Paths):
			x, _ := parseRights(a.Grant)
			y, _ := parseRights(b.Grant)
			return reach{wider: y&^x != 0, narrower: x&^y != 0}
		case a.Kind() == "handles":
			x, _ := parseRights(a.Handles)
			y, _ := parseRights(b.Handles)
			return reach{wider: x&^y != 0, narrower: y&^x != 0}
		}
		return reach{wider: true, narrower: true}
	}
	old, cur := rows(o), rows(n)
	byID := func(es []LandlockEntry, id string) (LandlockEntry, bool) {
		for _, e := range es {
			if e.ID == id {
				return e, true
			}
		}
		return LandlockEntry{}, false
	}
	for _, e := range old {
		if _, ok := byID(cur, e.ID); !ok {
			line("landlock %q: removed: %s (%s)", e.ID, e.What(), removed(e))
		}
	}
	for _, e := range cur {
		a, ok := byID(old, e.ID)
		switch {
		case !ok:
			line("landlock %q: added: %s (%s)", e.ID, e.What(), removed(e).flip())
		case a.What() != e.What():
			line("landlock %q: changed: %s -> %s (%s)", e.ID, a.What(), e.What(), changed(a, e))
		}
	}
	return out
}
