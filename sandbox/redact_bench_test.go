package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// redactBenchFiles are a home's files of the redact section, each a
// typical one: a few settings around a credential.
var redactBenchFiles = map[string]string{
	".npmrc": "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_T0\n@corp:registry=https://npm.corp.example/\n" +
		"//npm.corp.example/:_auth=dTpw\nalways-auth=true\nnodedir=/usr\nupdate-notifier=false\nfund=false\naudit=false\n",
	".yarnrc.yml": "nodeLinker: node-modules\nnpmRegistryServer: \"https://registry.yarnpkg.com\"\nnpmScopes:\n  corp:\n    npmAlwaysAuth: true\n" +
		"    npmAuthToken: \"T0\"\n    npmRegistryServer: \"https://npm.corp.example/\"\nplugins:\n  - path: .yarn/plugins/p.cjs\n    spec: \"@yarnpkg/plugin-x\"\nenableTelemetry: false\n",
	".config/pip/pip.conf": "[global]\nindex-url = https://__token__:T0@pypi.corp.example/simple\nextra-index-url =\n    https://pypi.org/simple\ntimeout = 60\n[install]\ntrusted-host = pypi.corp.example\n",
	".gitconfig": "[user]\n\tname = A U Thor\n\temail = a@example.org\n[core]\n\tautocrlf = input\n[alias]\n\tlg = log --graph --oneline\n\tst = status -sb\n" +
		"[http \"https://git.corp.example/\"]\n\textraHeader = Authorization: Bearer T0\n[credential]\n\thelper = store\n[init]\n\tdefaultBranch = main\n[include]\n\tpath = ~/.gitconfig.work\n",
	".gitconfig.work":    "[user]\n\temail = a@corp.example\n[url \"https://u:T0@git.corp.example/\"]\n\tinsteadOf = https://git.example/\n",
	".config/uv/uv.toml": "[[index]]\nname = \"corp\"\nurl = \"https://u:T0@pkgs.corp.example/simple\"\ndefault = true\n\n[pip]\nindex-url = \"https://pypi.org/simple\"\n\nnative-tls = true\n",
	".wgetrc":            "timeout = 60\ntries = 3\nhttp_user = me\nhttp_password = T0\nheader = Authorization: Bearer T0\nuse_proxy = on\nrobots = off\n",
}

// BenchmarkPrefixForRedacted is BenchmarkPrefixFor with a home holding a
// typical file of every format the redact section reads, and a file
// ~/.gitconfig includes: each is read, redacted and given a descriptor.
func BenchmarkPrefixForRedacted(b *testing.B) {
	cfg := spawnBenchConfig(b)
	home := os.Getenv("HOME")
	for rel, content := range redactBenchFiles {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PrefixFor("linux", cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedact is each format's redaction of its typical file.
func BenchmarkRedact(b *testing.B) {
	for _, c := range []struct {
		name string
		f    redactFormat
		file string
	}{
		{"npmrc", redactFormatNpmrc, ".npmrc"}, {"yarnrc", redactFormatYarnrc, ".yarnrc.yml"},
		{"pip-conf", redactFormatPipConf, ".config/pip/pip.conf"}, {"gitconfig", redactFormatGitconfig, ".gitconfig"},
		{"uv-toml", redactFormatUvToml, ".config/uv/uv.toml"}, {"wgetrc", redactFormatWgetrc, ".wgetrc"},
	} {
		b.Run(c.name, func(b *testing.B) {
			rf, data := redactRow(b, c.f), []byte(redactBenchFiles[c.file])
			b.ReportAllocs()
			for b.Loop() {
				redact(data, rf)
			}
		})
	}
}
