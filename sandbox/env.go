package sandbox

import "strings"

// stripEnv returns env without the table's stripped variables. Names match
// exactly and case-sensitively, as the kernel passes them; everything else,
// HOME included, is inherited: the sandbox limits the child's reach, not what
// it believes its home is.
func stripEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !isStripped(name) {
			out = append(out, kv)
		}
	}
	return out
}

func isStripped(name string) bool {
	for _, s := range strippedEnv {
		if name == s {
			return true
		}
	}
	return false
}
