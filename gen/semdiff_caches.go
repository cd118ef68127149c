package gen

import "fmt"

// cachesDiff compares the caches sections. A cache is a place the sandbox
// writes and a later run reads, so an added row widens and a removed one
// narrows; a changed directory, variable or value does both, and a scope
// shared more widely widens (another workspace's runs read what one wrote).
func cachesDiff(line func(string, ...any), old, new []CacheEntry) {
	show := func(e CacheEntry) string { return fmt.Sprintf("%s=%s in %s", e.Env, e.Value, e.Dir) }
	oldByID := map[string]CacheEntry{}
	for _, e := range old {
		oldByID[e.ID] = e
	}
	newByID := map[string]CacheEntry{}
	for _, e := range new {
		newByID[e.ID] = e
	}
	for _, e := range old {
		if _, ok := newByID[e.ID]; !ok {
			line("caches %q: removed: %s (narrowed)", e.ID, show(e))
		}
	}
	for _, e := range new {
		o, ok := oldByID[e.ID]
		switch {
		case !ok:
			line("caches %q: added: %s (widened)", e.ID, show(e))
		case show(o) == show(e) && o.Scope != e.Scope:
			line("caches %q: scope %s -> %s (%s)", e.ID, o.Scope, e.Scope, reach{wider: cacheScopes[e.Scope] > cacheScopes[o.Scope], narrower: cacheScopes[e.Scope] < cacheScopes[o.Scope]})
		case show(o) != show(e):
			line("caches %q: changed: %s -> %s (%s)", e.ID, show(o), show(e), reach{wider: true, narrower: true})
		}
	}
}
