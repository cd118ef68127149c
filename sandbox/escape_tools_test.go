//go:build linux

package sandbox

import (
	"strings"
)

var toolAttempts = []*attempt{
	{
		name:    "tool-credentials-home",
		what:    "read curl's, Yarn 1's, Bundler's, Pulumi's, llm's, OpenStack's, JFrog's, ... credentials under $HOME (hide-curlrc, hide-yarnrc-classic, ...)",
		setup:   func(e *escEnv) { e.secret = e.fixture["tool-secret"] },
		script:  `for f in $TOOL_FILES; do cat "$f"; done`,
		control: func(e *escEnv) escMode { return dropRules(strings.Fields(e.fixture["tool-home-drop"])...) },
	},
	{
		name:    "tool-credentials-env",
		what:    "read the same tools' credentials where CURL_HOME, GRADLE_USER_HOME, POETRY_CONFIG_DIR, BUNDLE_USER_CONFIG, ... move them (their derived rows)",
		setup:   func(e *escEnv) { e.secret = e.fixture["tool-secret"] },
		script:  `for f in $TOOL_ENV_FILES; do cat "$f"; done`,
		control: func(e *escEnv) escMode { return dropRules(strings.Fields(e.fixture["tool-env-drop"])...) },
	},
	{
		name:   "tool-configs-redacted",
		what:   "read the passwords in the git and pip configs GIT_CONFIG_GLOBAL, PIP_CONFIG_FILE and XDG_CONFIG_HOME name, and in uv's and wget's, which must still show their settings (redact-git-config-global, redact-uv-toml, ...)",
		setup:  func(e *escEnv) { e.secret = e.fixture["tool-redact-secret"] },
		script: `for f in $TOOL_REDACTED; do cat "$f"; done`,
		escaped: func(e *escEnv, r *escResult) bool {
			for i := range toolRedacted {
				if !strings.Contains(r.out, toolKeep(i)) {
					return true // hidden, not redacted: the command lost the setting
				}
			}
			return strings.Contains(r.out, e.secret)
		},
		control: func(e *escEnv) escMode { return dropRules(strings.Fields(e.fixture["tool-redact-drop"])...) },
	},
}
