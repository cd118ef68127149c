//go:build linux

package sandbox

import (
	"strings"
)

var namedCredentialAttempts = []*attempt{
	{
		name: "env-named-credentials",
		what: "read the credential files AWS_WEB_IDENTITY_TOKEN_FILE, REGISTRY_AUTH_FILE, NETRC, PGSSLKEY, ... name (their derived hide rows)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["named-credential"]
		},
		script: `for v in ` + strings.Join(namedCredentialVars, " ") + `; do eval "cat \"\$$v\""; done`,
		control: func(e *escEnv) escMode {
			var drop []string
			for _, v := range namedCredentialVars {
				drop = append(drop, "hide-file="+e.fixture["named-"+v])
			}
			return dropRules(drop...)
		},
	},
}
