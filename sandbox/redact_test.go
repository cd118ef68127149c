package sandbox

import "testing"

// TestRedact pins what each format removes: the listed keys (scoped,
// commented out, any case), a yaml key's block, and URL credentials; and
// what it keeps: every other line as it was.
func TestRedact(t *testing.T) {
	npm := redactFile{keys: []string{"_authToken", "_auth", "_password", "username", "email"}, urls: true}
	yarn := redactFile{yaml: true, keys: []string{"npmAuthToken", "npmAuthIdent"}, urls: true}
	for _, c := range []struct {
		name string
		rf   redactFile
		in   string
		want string
	}{
		{"npmrc", npm,
			"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=T1\n_auth = dXNlcjpwYXNz\nnodedir=/usr\n" +
				"//r.example/:_PASSWORD=T2\n# _authToken=T3\n; username=me\nupdate-notifier=false\n@corp:registry=https://u:T4@npm.corp/\nEmail=me@x\nlast=1",
			"registry=https://registry.npmjs.org/\nnodedir=/usr\nupdate-notifier=false\n@corp:registry=https://npm.corp/\nlast=1"},
		{"crlf", npm, "_authToken=T1\r\nnodedir=/usr\r\n", "nodedir=/usr\r\n"},
		{"yarnrc", yarn,
			"npmRegistryServer: \"https://r\"\nnpmAuthToken: \"T1\"\nnpmScopes:\n  corp:\n    npmAuthIdent: |\n      u:T2\n    npmRegistryServer: \"https://x:T3@reg\"\n  \"other\":\n    \"npmAuthToken\": T4\nenableTelemetry: false\n",
			"npmRegistryServer: \"https://r\"\nnpmScopes:\n  corp:\n    npmRegistryServer: \"https://reg\"\n  \"other\":\nenableTelemetry: false\n"},
		{"pip", redactFile{keys: []string{"password"}, urls: true},
			"[global]\nindex-url = https://__token__:T1@pypi.example/simple\nextra-index-url: http://T2@x.example/simple https://y.example/\ntimeout = 60\n",
			"[global]\nindex-url = https://pypi.example/simple\nextra-index-url: http://x.example/simple https://y.example/\ntimeout = 60\n"},
		{"yarnrc-flow", yarn,
			"npmRegistries: {\"//r\": {npmAlwaysAuth: true, npmAuthToken: T1}}\nnpmScopes: {corp: {\n  npmAuthIdent: \"u:T2\"\n}}\nenableTelemetry: false\n",
			"npmScopes: {corp: {\n}}\nenableTelemetry: false\n"},
		{"gitconfig", redactFile{keys: []string{"extraheader"}, urls: true},
			"[http] extraheader = Authorization: Bearer T1\n[user]\n\tname = x \\\n\ty\n[http \"https://h/]\"] ExtraHeader = T2\n" +
				"[http]\n\textraheader = Authorization: Basic \\\nT3 \\\\\n\textraheader = a \\\\\nlast = 1\n",
			"[user]\n\tname = x \\\n\ty\n[http]\nlast = 1\n"},
		{"empty", npm, "", ""},
	} {
		if got := string(redact([]byte(c.in), c.rf)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
