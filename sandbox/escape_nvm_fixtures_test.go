//go:build linux

package sandbox

import (
	"path/filepath"
	"testing"
)

// The fixtures of the nvm attempts (escape_nvm_test.go): the npmrc files
// planted in the pass's home and NVM_DIR.

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
