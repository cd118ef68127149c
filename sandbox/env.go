package sandbox

import (
	"errors"
	"strconv"
	"strings"
)

// ErrBadEnv is every rejected [Config.Env] entry or [Config.KeepEnv] name.
var ErrBadEnv = errors.New("bad environment")

// envError names the Config field and the entry it rejects.
type envError struct {
	field, entry, problem string
}

func (e *envError) Error() string {
	return "sandbox: " + e.field + " " + strconv.Quote(e.entry) + ": " + e.problem
}

func (e *envError) Unwrap() error { return ErrBadEnv }

// checkEnvConfig rejects a malformed KeepEnv name or Env entry before
// anything is looked at. A KeepEnv name that no row strips is accepted:
// it changes nothing, and a misspelt one fails closed (the variable stays
// removed).
func checkEnvConfig(cfg Config) error {
	for _, name := range cfg.KeepEnv {
		if problem := badEnvName(name); problem != "" {
			return &envError{"keep-env name", name, problem}
		}
	}
	for _, kv := range cfg.Env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			return &envError{"env entry", kv, "has no = (want NAME=VALUE)"}
		}
		if problem := badEnvName(name); problem != "" {
			return &envError{"env entry", kv, problem}
		}
		if strings.IndexByte(kv, 0) >= 0 {
			return &envError{"env entry", kv, "contains a NUL byte, which would end it early (want a value without NUL)"}
		}
	}
	return nil
}

// badEnvName says what is wrong with a variable name, or "". Names are
// anything the kernel passes (no = and no NUL) that is not a pattern.
func badEnvName(name string) string {
	switch {
	case name == "":
		return "empty (want a variable name)"
	case strings.IndexByte(name, '=') >= 0:
		return "contains = (want the name alone)"
	case strings.IndexByte(name, 0) >= 0:
		return "contains a NUL byte (want a variable name)"
	case strings.IndexByte(name, '*') >= 0:
		return "is a pattern (want one exact name per entry)"
	}
	return ""
}

// childEnv is the command's environment: environ (this process's), or
// cfg.Env with the keep-env names and cfg.KeepEnv added from environ when
// cfg.Env lacks them, less every variable a strip-env row removes that
// keep-env or cfg.KeepEnv does not pass on, by its name or (a
// strip-env-values row) its value. Names match exactly and
// case-sensitively, as the kernel passes them.
func childEnv(cfg Config, environ []string) []string {
	base := environ
	if cfg.Env != nil {
		base = make([]string, 0, len(cfg.Env)+2+len(cfg.KeepEnv))
		base = append(base, cfg.Env...)
		for _, kv := range environ {
			name, _, _ := strings.Cut(kv, "=")
			if (envKept(name) || keeps(cfg.KeepEnv, name)) && !setIn(cfg.Env, name) {
				base = append(base, kv)
			}
		}
	}
	out := make([]string, 0, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if envRemovedBy(kv) == "" || envKept(name) || keeps(cfg.KeepEnv, name) {
			out = append(out, kv)
		}
	}
	return out
}

// commandEnv is the command's environment: environ after the strip rows
// (childEnv), then the wrapper's own variables, which replace any of the
// same name and are not stripped (the macOS proxy's credential is in a
// URL's password).
func commandEnv(cfg Config, environ, wrapEnv []string) []string {
	return setEnv(childEnv(cfg, environ), wrapEnv)
}

// stripEnv is childEnv for a Config without KeepEnv or Env.
func stripEnv(env []string) []string { return childEnv(Config{}, env) }

func keeps(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// setIn reports whether env has an entry for name.
func setIn(env []string, name string) bool {
	for _, kv := range env {
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.HasPrefix(kv, name) {
			return true
		}
	}
	return false
}

// RemovedVar is a variable a spawn does not pass on, and the rule that
// removes it.
type RemovedVar struct{ Name, Rule string }

// RemovedEnv lists what "env -u NAME ..." must remove from environ to give
// the command the environment a spawn with cfg gives it (outside the
// allowlist mode, which has no such form): every exact strip-env name,
// set or not, so the line stays right where it is pasted, then each
// variable of environ that a pattern removes, in environ's order; less
// what keep-env and cfg.KeepEnv pass on.
func RemovedEnv(cfg Config, environ []string) []RemovedVar {
	var out []RemovedVar
	seen := map[string]bool{}
	add := func(name string, rule string) {
		if !seen[name] && !envKept(name) && !keeps(cfg.KeepEnv, name) {
			seen[name] = true
			out = append(out, RemovedVar{name, rule})
		}
	}
	for _, name := range strippedEnv {
		add(name, envStripRules[envStrippedBy(name)])
	}
	for _, kv := range environ {
		if rule := envRemovedBy(kv); rule != "" {
			name, _, _ := strings.Cut(kv, "=")
			add(name, rule)
		}
	}
	return out
}
