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
	helper, smtp, insteadOf, included := escToken("redact-helper-secret"), escToken("redact-smtp-secret"), escToken("redact-insteadof-secret"), escToken("redact-included-secret")
	p.fixture["redact-helper-secret"], p.fixture["redact-smtp-secret"] = helper, smtp
	p.fixture["redact-insteadof-secret"], p.fixture["redact-included-secret"] = insteadOf, included
	// git reads all of them: a key after the section header on its line, a
	// value continued by a backslash at the end of the line, a credential
	// helper given inline, send-email's password, a token in an insteadOf
	// base whose subsection escapes a slash, and the file it includes.
	p.escWrite(t, filepath.Join(p.home, ".gitconfig"), "[http] extraheader = Authorization: Bearer "+header+"\n[user]\n\tname = Test\n"+
		"[http \"https://git.example/\"]\n\textraheader = Authorization: Basic \\\n"+continued+"\n[core]\n\tautocrlf = false\n"+
		"[credential]\n\thelper = \"!f() { echo username=u; echo password="+helper+"; }; f\"\n"+
		"[sendemail]\n\tsmtpPass = "+smtp+"\n"+
		"[url \"https:/\\/u:"+insteadOf+"@git.example/\"]\n\tinsteadOf = https://mirror.example/\n"+
		"[include]\n\tpath = ~/.gitconfig.work\n", 0o600)
	p.escWrite(t, filepath.Join(p.home, ".gitconfig.work"), "[user]\n\temail = work@example.org\n[http]\n\textraHeader = Authorization: Bearer "+included+"\n", 0o600)
	p.escWrite(t, filepath.Join(p.home, ".config/pip/pip.conf"), "[global]\nindex-url = https://user:"+secret+"@pypi.example/simple\ntimeout = 60\n", 0o600)
}
