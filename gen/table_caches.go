package gen

// CacheEntry is one row of the caches section (rules/common.yaml): a tool
// cache the sandbox keeps private, writable and persistent, in a directory
// of sandtable's own named Dir, which the tool is pointed at by setting Env
// to Value with $dir replaced by that directory.
type CacheEntry struct {
	Pos Pos
	ID  string
	// Dir is the directory's name under sandtable's cache root.
	Dir string
	// Env is the variable that moves the tool's cache; Value what it is
	// set to, "$dir" unless the variable takes more (MAVEN_ARGS).
	Env   string
	Value string
	// Default is where the tool looks when Env is unset, for reviewers.
	Default string
	// Scope is who shares the directory: "workspace" (one per resolved
	// workspace) or "user" (every sandboxed run of the caller).
	Scope string
	Why   string
}

// cacheScopes are the values of a cache entry's scope, each with how far
// a run's writes there reach, for the semantic diff.
var cacheScopes = map[string]int{"workspace": 0, "user": 1}

// varDir is the cache's own directory, in a cache entry's value.
const varDir = "$dir"
