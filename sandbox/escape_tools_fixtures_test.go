//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The fixtures of the tool-credential attempts (escape_tools_test.go): the
// files planted at each tool's default place and where its variable moves
// it, and the settings the redacted ones must keep.

// The developer tools' credential files the default hidden set gained
// late, at their default places under $HOME (toolHomePaths) and where a
// variable moves them (toolEnvPaths); each control drops every one of
// their hide steps.
var toolHomePaths = []struct {
	rel string
	dir bool
}{
	{".curlrc", false}, {".yarnrc", false}, {".bundle/config", false}, {".pulumi/credentials.json", false},
	{".config/io.datasette.llm/keys.json", false}, {".config/openstack/clouds.yaml", false}, {".jfrog", true},
	{".circleci/cli.yml", false}, {".travis/config.yml", false}, {".mc/config.json", false}, {".mcli/config.json", false},
	{".cloudflared", true}, {".tsh", true}, {".awsvault", true}, {".local/share/uv/credentials", true}, {".sbt/.credentials", false},
	{".bunfig.toml", false},
}

// toolEnvPaths: the variable, the file below its value ("" for the value
// itself), and whether the row hides a directory.
var toolEnvPaths = []struct {
	env, rel string
	dir      bool
}{
	{"CURL_HOME", ".curlrc", false}, {"GRADLE_USER_HOME", "gradle.properties", false}, {"POETRY_CONFIG_DIR", "auth.toml", false},
	{"COMPOSER_HOME", "auth.json", false}, {"HEX_HOME", "hex.config", false}, {"PUB_CACHE", "credentials.json", false},
	{"PULUMI_HOME", "credentials.json", false}, {"LLM_USER_PATH", "keys.json", false}, {"BUNDLE_USER_CONFIG", "", false},
	{"OS_CLIENT_CONFIG_FILE", "", false}, {"JFROG_CLI_HOME_DIR", "", true}, {"XDG_CONFIG_HOME", ".curlrc", false},
	{"XDG_CONFIG_HOME", ".bunfig.toml", false},
}

// toolRedacted are the files the redact section now serves without their
// secrets: where a variable names them, and uv's and wget's. Each
// holds the secret and a setting that must still be read.
var toolRedacted = []struct{ env, rel, content string }{
	{"GIT_CONFIG_GLOBAL", "", "[http]\n\textraheader = Authorization: Bearer %s\n[user]\n\tname = %k\n"},
	{"XDG_CONFIG_HOME", "git/config", "[remote \"o\"]\n\turl = https://u:%s@git.example/r.git\n[core]\n\teditor = %k\n"},
	{"PIP_CONFIG_FILE", "", "[global]\nindex-url = https://user:%s@pypi.example/simple\ntimeout = %k\n"},
	{"XDG_CONFIG_HOME", "pip/pip.conf", "[global]\nextra-index-url = https://__token__:%s@pkgs.example/simple\nretries = %k\n"},
	{"UV_CONFIG_FILE", "", "[[index]]\nname = \"private\"\nurl = \"https://u:%s@pkgs.example/simple\"\nnative-tls = %k\n"},
	{"", ".config/uv/uv.toml", "[[index]]\nurl = \"https://u:%s@pkgs.example/simple\"\nconcurrent-downloads = %k\n"},
	{"XDG_CONFIG_HOME", "uv/uv.toml", "[[index]]\nurl = \"https://u:%s@pkgs.example/simple\"\nconcurrent-builds = %k\n"},
	{"", ".wgetrc", "http_password = %s\ntimeout = %k\n"},
	{"WGETRC", "", "password = %s\ntries = %k\n"},
}

// toolKeep is the setting file i of toolRedacted keeps.
func toolKeep(i int) string { return "sandtable-keep-" + strconv.Itoa(i) }

// toolFixtures writes the files of the three attempts and points the
// variables at them for the pass.
func toolFixtures(t *testing.T, p *escPass, set func(k, v string)) {
	secret, redactSecret := escToken("tool-secret"), escToken("tool-redact-secret")
	p.fixture["tool-secret"], p.fixture["tool-redact-secret"] = secret, redactSecret
	mkParents := func(f, under string) {
		rel, _ := filepath.Rel(under, filepath.Dir(f))
		d := under
		for _, part := range strings.Split(rel, "/") {
			if part == "." {
				continue
			}
			d = filepath.Join(d, part)
			p.escMkdir(t, d, 0o755)
		}
	}
	// write puts the secret at path (in it, for a directory) and returns
	// the file to read and the hide step to drop.
	write := func(path string, dir bool, under string) (file, drop string) {
		mkParents(path, under)
		file, drop = path, "hide-file="+path
		if dir {
			p.escMkdir(t, path, 0o700)
			file, drop = filepath.Join(path, "credentials"), "hide-dir="+path
		}
		p.escWrite(t, file, "token: "+secret+"\n", 0o600)
		return file, drop
	}
	var files, drops []string
	for _, h := range toolHomePaths {
		f, d := write(filepath.Join(p.home, h.rel), h.dir, p.home)
		files, drops = append(files, f), append(drops, d)
	}
	set("TOOL_FILES", strings.Join(files, " "))
	p.fixture["tool-home-drop"] = strings.Join(drops, " ")

	base := filepath.Join(p.base, "tool-env")
	p.escMkdir(t, base, 0o755)
	files, drops = nil, nil
	for _, v := range toolEnvPaths {
		value := filepath.Join(base, strings.ToLower(v.env))
		if v.env == "XDG_CONFIG_HOME" {
			value = filepath.Clean(os.Getenv(v.env)) // the pass's, set by derivedFixtures
		} else {
			set(v.env, value)
		}
		path := value
		if v.rel != "" {
			p.escMkdir(t, value, 0o755)
			path = filepath.Join(value, v.rel)
		}
		f, d := write(path, v.dir, filepath.Dir(value))
		files, drops = append(files, f), append(drops, d)
	}
	set("TOOL_ENV_FILES", strings.Join(files, " "))
	p.fixture["tool-env-drop"] = strings.Join(drops, " ")

	base = filepath.Join(p.base, "tool-redact")
	p.escMkdir(t, base, 0o755)
	files, drops = nil, nil
	for i, r := range toolRedacted {
		var path, under string
		switch r.env {
		case "":
			path, under = filepath.Join(p.home, r.rel), p.home
		case "XDG_CONFIG_HOME":
			under = filepath.Clean(os.Getenv(r.env))
			path = filepath.Join(under, r.rel)
		default:
			path, under = filepath.Join(base, strings.ToLower(r.env)), base
			set(r.env, path)
		}
		mkParents(path, under)
		content := strings.ReplaceAll(strings.ReplaceAll(r.content, "%s", redactSecret), "%k", toolKeep(i))
		p.escWrite(t, path, content, 0o600)
		files, drops = append(files, path), append(drops, "redact-file="+path)
	}
	set("TOOL_REDACTED", strings.Join(files, " "))
	p.fixture["tool-redact-drop"] = strings.Join(drops, " ")
}
