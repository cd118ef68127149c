//go:build linux

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures of the named-credential attempt
// (escape_derived_more_test.go): the variables and the files they name.

// namedCredentialVars name credential files that a derived default-hidden
// row each hides (hide-aws-web-identity-token, hide-registry-auth-file,
// ...). The variables reach the command, so it is told the paths.
var namedCredentialVars = []string{
	"AWS_WEB_IDENTITY_TOKEN_FILE", "REGISTRY_AUTH_FILE", "NETRC", "PGSSLKEY", "PGSERVICEFILE",
	"ANSIBLE_PRIVATE_KEY_FILE", "AZURE_CLIENT_CERTIFICATE_PATH", "GOOGLE_GHA_CREDS_PATH",
	"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE", "HELM_REGISTRY_CONFIG", "MYSQL_TEST_LOGIN_FILE", "TERRAFORM_CONFIG",
}

// namedCredentialFixtures writes one credential file per variable, outside
// every other hidden place, and points the variable at it.
func namedCredentialFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	secret := escToken("named-credential")
	p.fixture["named-credential"] = secret
	dir := filepath.Join(p.base, "named-credentials")
	p.escMkdir(t, dir, 0o755)
	for _, v := range namedCredentialVars {
		f := filepath.Join(dir, strings.ToLower(v))
		p.escWrite(t, f, v+": "+secret+"\n", 0o600)
		p.fixture["named-"+v] = f
		set(v, f)
	}
}
