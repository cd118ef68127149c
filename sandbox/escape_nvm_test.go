//go:build linux

package sandbox

import (
	"path/filepath"
	"testing"
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

// nvmNpmrc is the version's npmrc the attempt reads, under the home.
const nvmNpmrc = ".nvm/versions/node/v20.0.0/etc/npmrc"

// nvmFixtures puts a token in the pass's home and in its NVM_DIR where
// nvmAttempts look, each directory on the way owned by the pass's user.
func nvmFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	secret := escToken("nvm-npmrc")
	p.fixture["nvm-npmrc"] = secret
	dir := p.home
	for _, c := range []string{".nvm", "versions", "node", "v20.0.0", "etc"} {
		dir = filepath.Join(dir, c)
		p.escMkdir(t, dir, 0o755)
	}
	p.escWrite(t, filepath.Join(p.home, nvmNpmrc), "//registry.npmjs.org/:_authToken="+secret+"\n", 0o600)

	// NVM_DIR outside the home, set for the pass.
	nvmDir := filepath.Join(p.base, "nvm-dir")
	dir = nvmDir
	for _, c := range []string{"", "versions", "node", "v18.0.0", "etc"} {
		dir = filepath.Join(dir, c)
		p.escMkdir(t, dir, 0o755)
	}
	p.fixture["nvm-dir-npmrc"] = filepath.Join(dir, "npmrc")
	p.escWrite(t, p.fixture["nvm-dir-npmrc"], "//registry.npmjs.org/:_authToken="+secret+"\n", 0o600)
	set("NVM_DIR", nvmDir)
}

func init() {
	escAttempts = append(escAttempts, nvmAttempts...)
	passFixtures = append(passFixtures, nvmFixtures)
}
