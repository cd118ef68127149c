package gen

import "fmt"

// cachesDiff compares the caches sections. A cache is a place the sandbox
// writes and a later run reads, so an added row widens and a removed one
// narrows; a changed directory, variable or value does both, and a scope
// shared more widely widens (another workspace's runs read what one wrote).
func cachesDiff(line func(string, ...any), old, new []CacheEntry) {
	show := func(e CacheEntry) string {
		return fmt.Sprintf("%s=%s in %s, scope %s", e.Env, e.Value, e.Dir, e.Scope)
	}
	changed := func(o, n CacheEntry) reach {
		if o.Env == n.Env && o.Value == n.Value && o.Dir == n.Dir {
			return reach{wider: cacheScopes[n.Scope] > cacheScopes[o.Scope], narrower: cacheScopes[n.Scope] < cacheScopes[o.Scope]}
		}
		return reach{wider: true, narrower: true}
	}
	rowDiff(line, "caches", old, new, func(e CacheEntry) string { return e.ID }, show, reach{narrower: true}, reach{wider: true}, changed)
}
