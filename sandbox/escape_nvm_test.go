//go:build linux

package sandbox

import (
	"path/filepath"
)

// nvmAttempts read npm's global configuration of a Node version nvm
// installed, which the hide-nvm-npmrc and hide-nvm-dir-npmrc rows name
// with a * for the version.
// The control drops the one hide step for the expanded path, so the read
// is shown to work without the row.
var nvmAttempts = []*attempt{
	{
		name: "nvm-global-npmrc",
		what: "read a registry token from ~/.nvm/versions/node/v20.0.0/etc/npmrc (default hidden: hide-nvm-npmrc, a * row)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["nvm-npmrc"]
			e.vars["F"] = filepath.Join(e.home, nvmNpmrc)
		},
		script:  `cat "$HOME/.nvm/versions/node/v20.0.0/etc/npmrc"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.vars["F"]) },
	},
	{
		name: "nvm-dir-global-npmrc",
		what: "read a registry token from $NVM_DIR/versions/node/v18.0.0/etc/npmrc (default hidden: hide-nvm-dir-npmrc, a * row)",
		setup: func(e *escEnv) {
			e.secret = e.fixture["nvm-npmrc"]
			e.vars["F"] = e.fixture["nvm-dir-npmrc"]
		},
		script:  `cat "$NVM_DIR/versions/node/v18.0.0/etc/npmrc"`,
		control: func(e *escEnv) escMode { return dropRules("hide-file=" + e.vars["F"]) },
	},
}
