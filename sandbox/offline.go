package sandbox

// tableEnv is what the table sets in the child's environment (Wrap.Env):
// the cache variables, and with the network off the offline-env rows, so
// that package managers work from their caches or fail at once rather than
// retry a network they cannot reach.
func tableEnv(p *plan) []string {
	env := cacheEnv(p)
	if p.network || len(offlineEnv) == 0 {
		return env
	}
	return append(append(make([]string, 0, len(env)+len(offlineEnv)), env...), offlineEnv[:]...)
}
