//go:build linux

package sandbox

import (
	"path/filepath"
	"testing"
)

// nvmAttempts read npm's global configuration of a Node version nvm
// installed, which the hide-nvm-npmrc row names with a * for the version.
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
}

// nvmNpmrc is the version's npmrc the attempt reads, under the home.
const nvmNpmrc = ".nvm/versions/node/v20.0.0/etc/npmrc"

// nvmFixtures puts a token in the pass's home where nvmAttempts look, each
// directory on the way owned by the pass's user.
func nvmFixtures(t *testing.T, p *escPass, _ func(k, v string)) {
	secret := escToken("nvm-npmrc")
	p.fixture["nvm-npmrc"] = secret
	dir := p.home
	for _, c := range []string{".nvm", "versions", "node", "v20.0.0", "etc"} {
		dir = filepath.Join(dir, c)
		p.escMkdir(t, dir, 0o755)
	}
	p.escWrite(t, filepath.Join(p.home, nvmNpmrc), "//registry.npmjs.org/:_authToken="+secret+"\n", 0o600)
}

func init() {
	escAttempts = append(escAttempts, nvmAttempts...)
	passFixtures = append(passFixtures, nvmFixtures)
}
