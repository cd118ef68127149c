//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// wgetrcFixtures adds to ~/.wgetrc a debug line, after which wget prints
// each command it reads, and the secret in three spellings of one
// command and in a header.
func wgetrcFixtures(t *testing.T, p *escPass, _ func(k, v string)) {
	secret := escToken("redact-wgetrc-secret")
	p.fixture["redact-wgetrc-secret"] = secret
	path := filepath.Join(p.home, ".wgetrc")
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	p.escWrite(t, path, string(old)+"debug = on\nhttp-password = "+secret+"\nhttppassword = "+secret+"\nHTTP_PASSWORD = "+secret+
		"\nheader = Authorization: Bearer "+secret+"\ntries = 2\n", 0o600)
}
