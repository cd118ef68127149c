//go:build linux

package sandbox

import (
	"path/filepath"
	"testing"
)

// The fixtures of the redact attempts (escape_redact_test.go): the files
// planted in the pass's home, each holding secrets among settings.

// redactFixtures writes the files redactAttempts read, each holding one
// secret among settings.
func redactFixtures(t *testing.T, p *escPass, _ func(k, v string)) {
	secret := escToken("redact-secret")
	p.fixture["redact-secret"] = secret
	p.escMkdir(t, filepath.Join(p.home, ".config", "pip"), 0o755)
	p.escWrite(t, filepath.Join(p.home, ".npmrc"), "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken="+secret+"\nnodedir=/usr\n", 0o600)
	flow, header, continued := escToken("redact-flow-secret"), escToken("redact-header-secret"), escToken("redact-continued-secret")
	p.fixture["redact-flow-secret"] = flow
	p.fixture["redact-header-secret"] = header
	p.fixture["redact-continued-secret"] = continued
	p.escWrite(t, filepath.Join(p.home, ".yarnrc.yml"), "npmRegistryServer: \"https://registry.yarnpkg.com\"\nnpmAuthToken: \""+secret+"\"\n"+
		"npmRegistries: {\"//r.example\": {npmAlwaysAuth: true, npmAuthToken: "+flow+"}}\n", 0o600)
	// git reads both: a key after the section header on its line, and a
	// value continued by a backslash at the end of the line.
	p.escWrite(t, filepath.Join(p.home, ".gitconfig"), "[http] extraheader = Authorization: Bearer "+header+"\n[user]\n\tname = Test\n"+
		"[http \"https://git.example/\"]\n\textraheader = Authorization: Basic \\\n"+continued+"\n[core]\n\tautocrlf = false\n", 0o600)
	p.escWrite(t, filepath.Join(p.home, ".config/pip/pip.conf"), "[global]\nindex-url = https://user:"+secret+"@pypi.example/simple\ntimeout = 60\n", 0o600)
}
