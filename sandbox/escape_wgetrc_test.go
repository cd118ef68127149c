//go:build linux

package sandbox

import "path/filepath"

// The wgetrc attempt: wget reads a command whatever its spelling, - and _
// dropped and case ignored, and sends any header line its wgetrc gives
// (redact-wgetrc). Its fixture adds to the ~/.wgetrc the tools' fixture
// wrote (escape_tools_fixtures_test.go), so this file's init runs after
// that one's.
var wgetrcAttempts = []*attempt{
	{
		name:    "wgetrc-spellings",
		what:    "have wget read http-password, httppassword, HTTP_PASSWORD and an Authorization header from ~/.wgetrc, shown by its debug output (redacted: redact-wgetrc)",
		needs:   []string{"wget"},
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-wgetrc-secret"] },
		script:  `wget --config="$HOME/.wgetrc" --version 2>&1 >/dev/null`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".wgetrc")) },
	},
}
