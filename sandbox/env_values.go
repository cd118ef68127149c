package sandbox

import "strings"

// envRemovedBy returns the id of the strip-env or strip-env-values row
// that removes the variable kv (NAME=VALUE) from the child's environment,
// or "": a name row first, then one matching its value.
func envRemovedBy(kv string) string {
	name, value, _ := strings.Cut(kv, "=")
	if i := envStrippedBy(name); i >= 0 {
		return envStripRules[i]
	}
	if i := envValueStrippedBy(value); i >= 0 {
		return envValueRules[i]
	}
	return ""
}
