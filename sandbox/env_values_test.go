package sandbox

import (
	"slices"
	"testing"
)

// TestEnvValues: a variable whose value carries a password goes whatever
// its name (strip-env-values), the same name without one stays, KeepEnv
// passes one on, and RemovedEnv names the row.
func TestEnvValues(t *testing.T) {
	environ := []string{
		"REDIS_URL=redis://default:s3cret@127.0.0.1:6379/0",
		"CACHE_URL=redis://127.0.0.1:6379/0",
		"PG=host=db user=app password=s3cret",
		"REPO=https://github.com/o/r.git",
		"HOME=/home/u",
	}
	got := childEnv(Config{}, environ)
	want := []string{"CACHE_URL=redis://127.0.0.1:6379/0", "REPO=https://github.com/o/r.git", "HOME=/home/u"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv: %q, want %q", got, want)
	}
	if got := childEnv(Config{KeepEnv: []string{"REDIS_URL"}}, environ); !slices.Contains(got, environ[0]) {
		t.Errorf("KeepEnv REDIS_URL: %q lacks it", got)
	}
	if got := childEnv(Config{Env: []string{"DB=postgres://u:p@h/db", "LANG=C"}}, environ); slices.Contains(got, "DB=postgres://u:p@h/db") || !slices.Contains(got, "LANG=C") {
		t.Errorf("allowlist: %q, want DB removed and LANG kept", got)
	}
	removed := RemovedEnv(Config{}, environ)
	for _, w := range []RemovedVar{{"REDIS_URL", "strip-url-password"}, {"PG", "strip-dsn-password"}} {
		if !slices.Contains(removed, w) {
			t.Errorf("RemovedEnv lacks %v: %v", w, removed)
		}
	}
	if slices.ContainsFunc(removed, func(r RemovedVar) bool { return r.Name == "CACHE_URL" || r.Name == "REPO" }) {
		t.Errorf("RemovedEnv names a variable without a password: %v", removed)
	}
}
