package sandbox

import (
	"strings"
	"testing"
)

// redactRow is the first row of the table read in format f, for a test
// that redacts as the table does.
func redactRow(t testing.TB, f redactFormat) redactFile {
	t.Helper()
	for _, rf := range redactFiles {
		if rf.format == f {
			return rf
		}
	}
	t.Fatalf("no redact row of format %d", f)
	return redactFile{}
}

// TestRedact pins what each format's reader serves: the row's keys gone
// in every spelling the tool reads (scoped, any case, dashes, quoted,
// escaped, continued), URL credentials gone however the tool decodes the
// value, every other setting kept, and what the tool would reject
// replaced.
func TestRedact(t *testing.T) {
	npm, yarn := redactRow(t, redactFormatNpmrc), redactRow(t, redactFormatYarnrc)
	pip, git := redactRow(t, redactFormatPipConf), redactRow(t, redactFormatGitconfig)
	uv, wget := redactRow(t, redactFormatUvToml), redactRow(t, redactFormatWgetrc)
	for _, c := range []struct {
		name string
		rf   redactFile
		in   string
		want string
	}{
		{"npmrc", npm,
			"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=T1\n_auth = dXNlcjpwYXNz\nnodedir=/usr\n" +
				"//r.example/:_PASSWORD=T2\n# _authToken=T3\n; username=me\nupdate-notifier=false\n@corp:registry=https://u:T4@npm.corp/\nEmail=me@x\nlast=1",
			"registry=https://registry.npmjs.org/\nnodedir=/usr\nupdate-notifier=false\n@corp:registry=\"https://npm.corp/\"\nlast=1\n"},
		{"npmrc-crlf", npm, "_authToken=T1\r\nnodedir=/usr\r\n", "nodedir=/usr\n"},
		{"npmrc-cr", npm, "nodedir=/usr\r_authToken=T1\r", "nodedir=/usr\n"},
		{"npmrc-quoted-key", npm, "\"_authToken\"=T1\n'//r/:_auth'=T2\n\"_auth\\u0054oken\"=T3\nk=v\n", "k=v\n"},
		{"npmrc-js-space", npm, "\ufeff_authToken=T1\n\u00a0_auth=T2\nk=v\n", "k=v\n"},
		{"npmrc-env-key", npm, "_auth${EMPTY?}Token=T1\n//r/:${K}=T2\nk=${HOME}\n", "k=${HOME}\n"},
		{"npmrc-array-key", npm, "_authToken[]=T1\nk[]=a\n", "k[]=a\n"},
		{"npmrc-quoted-value", npm, "registry=\"https://u:T1\\u0040r.example/\"\nproxy=http://h/ ;https://u:T2@x/\n",
			"registry=\"https://r.example/\"\nproxy=\"http://h/\"\n"},
		{"yarnrc", yarn,
			"npmRegistryServer: \"https://r\"\nnpmAuthToken: \"T1\"\nnpmScopes:\n  corp:\n    npmAuthIdent: |\n      u:T2\n    npmRegistryServer: \"https://x:T3@reg\"\n  \"other\":\n    \"npmAuthToken\": T4\nenableTelemetry: false\n",
			"\"npmRegistryServer\": \"https://r\"\n\"npmScopes\":\n  \"corp\":\n    \"npmRegistryServer\": \"https://reg\"\n  \"other\": {}\n\"enableTelemetry\": \"false\"\n"},
		{"yarnrc-flow", yarn,
			"npmRegistries: {\"//r\": {npmAlwaysAuth: true, npmAuthToken: T1}}\nnpmScopes: {corp: {\n  npmAuthIdent: \"u:T2\"\n}}\nenableTelemetry: false\n",
			"\"npmRegistries\":\n  \"//r\":\n    \"npmAlwaysAuth\": \"true\"\n\"npmScopes\":\n  \"corp\": {}\n\"enableTelemetry\": \"false\"\n"},
		{"yarnrc-escaped-key", yarn, "\"npmAuth\\u0054oken\": T1\n'npmAuthIdent': T2\nplugins:\n- path: p.cjs\n  spec: \"@y/p\"\n",
			"\"plugins\":\n  -\n    \"path\": \"p.cjs\"\n    \"spec\": \"@y/p\"\n"},
		{"yarnrc-alias", yarn, "x: &t T1\nnpmAuthToken: *t\n", "# sandtable: this file is not served: a plain scalar outside the subset (an indicator, a tab, a ': ') at line 1.\n"},
		{"yarnrc-legacy", yarn, "# yarn lockfile v1\nnpmAuthToken \"T1\"\n", "# sandtable: this file is not served: a yarn lockfile comment leads it, and Yarn reads it in its legacy grammar.\n"},
		{"pip", pip,
			"[global]\nindex-url = https://__token__:T1@pypi.example/simple\nextra-index-url: http://T2@x.example/simple https://y.example/\ntimeout = 60\n",
			"[global]\nindex-url = https://pypi.example/simple\nextra-index-url = http://x.example/simple https://y.example/\ntimeout = 60\n"},
		{"pip-continued", pip,
			"[global]\nCLIENT_CERT = /k.pem\n  T1\n\n  T2\n# c\nextra-index-url =\n    https://u:T3@a.example/\n    https://b.example/\n--Client-Cert: T4\nproxy = u:T5@proxy:3128\n",
			"[global]\nextra-index-url =\n    https://a.example/\n    https://b.example/\nproxy = proxy:3128\n"},
		{"pip-no-section", pip, "index-url = https://u:T1@x/\n[global]\nk = v\n", pipStopLine},
		{"gitconfig", git,
			"[http] extraheader = Authorization: Bearer T1\n[user]\n\tname = x \\\n\ty\n[http \"https://h/]\"] ExtraHeader = T2\n" +
				"[http]\n\textraheader = Authorization: Basic \\\nT3 \\\\\n\textraheader = a \\\\\nlast = 1\n",
			"[http]\n[user]\n\tname = \"x \\ty\"\n[http \"https://h/]\"]\n[http]\n\tlast = \"1\"\n"},
		{"gitconfig-credentials", git,
			"[sendemail]\n\tsmtpPass = T1\n[credential]\n\thelper = \"!f() { echo password=T2; }; f\"\n[credential \"https://h\"]\n\tHelper = store\n" +
				"[url \"https://u:T3@h.example/\"]\n\tinsteadOf = https://h.example/\n[url \"https:/\\/u:T4@i.example/\"]\n\tinsteadOf = x\n" +
				"[remote \"o\"]\n\turl = \"https://u:\"T5@h/r\n[IMAP]\n\tPASS = T6\n[http.https://x]\n",
			"[sendemail]\n[credential]\n[credential \"https://h\"]\n[url \"https://h.example/\"]\n\tinsteadof = \"https://h.example/\"\n[url \"https://i.example/\"]\n\tinsteadof = \"x\"\n" +
				"[remote \"o\"]\n\turl = \"https://h/r\"\n[imap]\n" + gitStopLine},
		{"uv-toml", uv,
			"# T0\n[[index]]\nname = \"p\" # T1\nurl = \"https://u:T2\\u0040pkgs.example/simple\"\npassword = 'T3'\n[tool.\"token\"]\nx = 1\n" +
				"[pip]\nextra-index-url = [\n  'https://u:T4@a/', # T5\n  \"\"\"https://b/\"\"\",\n]\nk = { url = \"https://h/\", token = \"T6\" }\nnative-tls = true\n",
			"\n[[index]]\nname = \"p\" \nurl = \"https://pkgs.example/simple\"\n[pip]\nextra-index-url = [\n  \"https://a/\", \n  \"\"\"https://b/\"\"\",\n]\nnative-tls = true\n"},
		{"uv-toml-bad", uv, "url = \"https://u:T1@x/\"\nk = {a = 1,\n b = 2}\n", "# sandtable: this file is not served: a key expected at line 2.\n"},
		{"wgetrc", wget,
			"http-password = T1\nhttppassword = T2\nHTTP_PASSWORD = T3\n  Header = Authorization: Bearer T4\n# password = T5\ntimeout = 60\n" +
				"http_proxy = u:T6@proxy:3128\nhttps_proxy = https://u:T7@proxy/\nproxy-passwd=T8\npassword: T9\ntries = 3\x00password = T10\n",
			"timeout = 60\nhttp_proxy = proxy:3128\nhttps_proxy = https://proxy/\n!sandtable: a line wget rejects, not served\ntries = 3\n"},
		{"empty", npm, "", ""},
	} {
		if got := string(redact([]byte(c.in), c.rf)); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestRedactFormatsDispatch: every format the generator knows has its
// reader, which serves an empty file as empty.
func TestRedactFormatsDispatch(t *testing.T) {
	for f := range redactFormat(numRedactFormats) {
		rf := redactFile{format: f, keys: []string{"password"}, urls: true}
		if got := redact([]byte("password = T\n"), rf); strings.Contains(string(got), "T\n") && !strings.Contains(string(got), "sandtable") {
			t.Errorf("format %d: served %q", f, got)
		}
		if got := redact(nil, rf); len(got) != 0 {
			t.Errorf("format %d: an empty file served as %q", f, got)
		}
	}
}

// TestStripURLCredentials pins what counts as a URL's credentials: after
// any scheme with slashes, after a special scheme without them, after //,
// through tabs and line breaks, up to the authority's last @; and, bare,
// a lone word's user:password@.
func TestStripURLCredentials(t *testing.T) {
	for _, c := range []struct {
		in   string
		bare bool
		want string
	}{
		{"https://u:p@h/x", false, "https://h/x"},
		{"HTTPS://u:p@ss@h:8080/x@y", false, "HTTPS://h:8080/x@y"},
		{"https:u:p@h/", false, "https:h/"},
		{"https:\\\\u:p@h", false, "https:\\\\h"},
		{"ht\ttps://u:p@h", false, "ht\ttps://h"},
		{"https://u:p\n@h", false, "https://h"},
		{"git+ssh://git@h/r", false, "git+ssh://h/r"},
		{"x https://a https://u:p@b", false, "x https://a https://b"},
		{"//u:p@h/x", false, "//h/x"},
		{"mailto:me@x", false, "mailto:me@x"},
		{"git@github.com:o/r", false, "git@github.com:o/r"},
		{"https://h/a@b", false, "https://h/a@b"},
		{"https://h?x@y", false, "https://h?x@y"},
		{"u:p@proxy:3128", true, "proxy:3128"},
		{" u@proxy/x@y ", true, " proxy/x@y "},
		{"From: me@x", true, "From: me@x"},
	} {
		if got := stripURLCredentials(c.in, c.bare); got != c.want {
			t.Errorf("stripURLCredentials(%q, %v) = %q, want %q", c.in, c.bare, got, c.want)
		}
	}
}
