//go:build linux

package sandbox

import (
	"path/filepath"
)

// redactAttempts read the secrets of the files the redact section serves
// as copies: each must not reach the command, and each control drops the
// one redact-file step, so the read is shown to work without the row. The
// files are in the pass's home from the start (redactFixtures).
var redactAttempts = []*attempt{
	{
		name:    "npmrc-token",
		what:    "read npm's registry token from ~/.npmrc (redacted: redact-npmrc)",
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-secret"] },
		script:  `cat "$HOME/.npmrc"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".npmrc")) },
	},
	{
		name:    "yarnrc-token",
		what:    "read Yarn's npmAuthToken from ~/.yarnrc.yml (redacted: redact-yarnrc-yml)",
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-secret"] },
		script:  `cat "$HOME/.yarnrc.yml"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".yarnrc.yml")) },
	},
	{
		name:   "pip-url-password",
		what:   "read the password in pip.conf's index-url (redacted: redact-pip-conf)",
		setup:  func(e *escEnv) { e.secret = e.fixture["redact-secret"] },
		script: `cat "$HOME/.config/pip/pip.conf"`,
		control: func(e *escEnv) escMode {
			return dropRules("redact-file=" + filepath.Join(e.home, ".config/pip/pip.conf"))
		},
	},
	{
		name:    "yarnrc-flow-token",
		what:    "read an npmAuthToken written in a yaml flow mapping in ~/.yarnrc.yml (redacted: redact-yarnrc-yml)",
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-flow-secret"] },
		script:  `cat "$HOME/.yarnrc.yml"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".yarnrc.yml")) },
	},
	{
		name:    "gitconfig-header-line",
		what:    "read an http.extraheader set on its [http] header's line in ~/.gitconfig (redacted: redact-gitconfig)",
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-header-secret"] },
		script:  `cat "$HOME/.gitconfig"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig")) },
	},
	{
		name:    "gitconfig-continued",
		what:    "read an http.extraheader continued on the next line with a backslash in ~/.gitconfig (redacted: redact-gitconfig)",
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-continued-secret"] },
		script:  `cat "$HOME/.gitconfig"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig")) },
	},
}

func init() {
	escAttempts = append(escAttempts, redactAttempts...)
	passFixtures = append(passFixtures, redactFixtures)
}
