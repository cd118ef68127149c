package main

import (
	"strings"

	"github.com/sandtable/sandtable/sandbox"
)

// setEnvLines are env's NAME=VALUE operands for the variables run sets in
// CMD's environment (sandbox.Wrap.Env: the table's tool caches), each
// noting the caches row that sets it.
func setEnvLines(env []string) []line {
	rules := map[string]string{}
	for _, r := range sandbox.Rules() {
		if _, set, ok := strings.Cut(r.Emits, ": set "); ok && r.Platform == "any" {
			name, _, _ := strings.Cut(set, "=")
			rules[name] = r.ID
		}
	}
	lines := make([]line, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		lines = append(lines, line{shellQuote(kv), rules[name]})
	}
	return lines
}
