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
	{
		name:    "gitconfig-credential-helper",
		what:    "have git credential fill run an inline credential helper from ~/.gitconfig that prints the password (redacted: redact-gitconfig)",
		needs:   []string{"git"},
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-helper-secret"] },
		script:  `printf 'protocol=https\nhost=git.example\n\n' | GIT_CONFIG_GLOBAL="$HOME/.gitconfig" GIT_TERMINAL_PROMPT=0 GIT_ASKPASS=false git credential fill`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig")) },
	},
	{
		name:    "gitconfig-smtp-pass",
		what:    "read send-email's password, sendemail.smtpPass, with git config (redacted: redact-gitconfig)",
		needs:   []string{"git"},
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-smtp-secret"] },
		script:  `GIT_CONFIG_GLOBAL="$HOME/.gitconfig" git config --global --get sendemail.smtppass`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig")) },
	},
	{
		name:    "gitconfig-insteadof-url",
		what:    "read the token in a url.<base>.insteadOf base, its subsection written with a backslash (https:/\\/user:TOKEN@host), with git config (redacted: redact-gitconfig)",
		needs:   []string{"git"},
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-insteadof-secret"] },
		script:  `GIT_CONFIG_GLOBAL="$HOME/.gitconfig" git config --global --get-regexp '^url\.'`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig")) },
	},
	{
		name:    "gitconfig-included-file",
		what:    "read the http.extraHeader of the file ~/.gitconfig includes ([include] path = ~/.gitconfig.work) through git (redacted: redact-gitconfig's follow-includes)",
		needs:   []string{"git"},
		setup:   func(e *escEnv) { e.secret = e.fixture["redact-included-secret"] },
		script:  `GIT_CONFIG_GLOBAL="$HOME/.gitconfig" git config --global --includes --get-all http.extraheader; cat "$HOME/.gitconfig.work"`,
		control: func(e *escEnv) escMode { return dropRules("redact-file=" + filepath.Join(e.home, ".gitconfig.work")) },
	},
}
