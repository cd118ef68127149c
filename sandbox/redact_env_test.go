package sandbox

import "testing"

// TestRedactEnvPath: a redact row derived from a variable names the file
// below a clean absolute value, and nothing for an unset, empty, relative
// or unclean one, or one with a control character.
func TestRedactEnvPath(t *testing.T) {
	rf := redactFile{env: "PIP_CONFIG_FILE"}
	sub := redactFile{env: "XDG_CONFIG_HOME", path: "pip/pip.conf"}
	for _, c := range []struct {
		rf    redactFile
		value string
		set   bool
		want  string
	}{
		{rf, "/etc/pip.conf", true, "/etc/pip.conf"},
		{rf, "/etc//./pip.conf", true, "/etc/pip.conf"},
		{sub, "/home/u/.config/", true, "/home/u/.config/pip/pip.conf"},
		{rf, "", true, ""},
		{rf, "", false, ""},
		{rf, "pip.conf", true, ""},
		{rf, "/etc/../pip.conf", true, ""},
		{rf, "/", true, ""},
		{rf, "/etc/\x1b[31mpip.conf", true, ""},
	} {
		got := redactEnvPath(c.rf, func(name string) (string, bool) { return c.value, c.set && name == c.rf.env })
		if got != c.want {
			t.Errorf("%s=%q: %q, want %q", c.rf.env, c.value, got, c.want)
		}
	}
}
