package sandbox

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRedactToolsAgree holds the redactors' seeds (testdata/fuzz/
// FuzzRedact*/) to the tools themselves, where they are installed: git
// config --list, wget's own debug output, npm's ini, Python's
// configparser and tomllib, and js-yaml when SANDTABLE_JSYAML names it.
// For each seed, what the tool reads from the copy has none of the row's
// keys and no URL credentials, and is what it read from the original less
// those; and each fuzz target's model of the tool reads the original as
// the tool does, so the targets' oracle is the tool's grammar.
func TestRedactToolsAgree(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("git", func(t *testing.T) {
		git := toolOrSkip(t, "git")
		rf := redactRow(t, redactFormatGitconfig)
		for name, in := range redactSeeds(t, "FuzzRedactGitconfig") {
			out := redact(in, rf)
			gotIn, errIn := gitList(git, write("in", in))
			gotOut, errOut := gitList(git, write("out", out))
			if errIn != (errOut) {
				t.Errorf("%s: git fails on the original: %v, on the copy: %v", name, errIn, errOut)
			}
			model, _ := modelGitConfig(in)
			if bytes.IndexByte(in, 0) < 0 && !slices.Equal(gitNormalize(gotIn), gitNormalize(gitModelList(model))) {
				t.Errorf("%s: git reads\n%q\nthe model reads\n%q", name, gotIn, gitModelList(model))
			}
			var want []string
			for _, v := range model {
				if gitModelRemoved(v.name, rf.keys) {
					continue
				}
				if section, sub, key, hasSub := gitModelSplit(v.name); hasSub {
					v.name = section + "." + stripURLCredentials(sub, false) + "." + key
				}
				v.value = stripURLCredentials(v.value, false)
				want = append(want, gitModelList([]gitVarModel{v})...)
			}
			if bytes.IndexByte(in, 0) < 0 && !slices.Equal(gitNormalize(gotOut), gitNormalize(want)) {
				t.Errorf("%s: git reads from the copy\n%q\nwant\n%q", name, gotOut, want)
			}
		}
	})
	t.Run("wget", func(t *testing.T) {
		wget := toolOrSkip(t, "wget")
		rf := redactRow(t, redactFormatWgetrc)
		for name, in := range redactSeeds(t, "FuzzRedactWgetrc") {
			got, model := wgetDebug(t, wget, write("in", in)), wgetModelShow(modelWgetrc(in))
			same := len(got) == len(model)
			for i := 0; same && i < len(got); i++ {
				// wget shows no value for a command it does not know.
				same = got[i] == model[i] || strings.HasSuffix(got[i], " = ?") && strings.HasPrefix(model[i], strings.TrimSuffix(got[i], "?"))
			}
			if !same {
				t.Errorf("%s: wget reads\n%q\nthe model reads\n%q", name, got, model)
			}
			for _, l := range wgetDebug(t, wget, write("out", redact(in, rf))) {
				cmd, value, _ := strings.Cut(strings.TrimPrefix(l, "set "), " = ")
				if wgetrcRemoved(rf.keys, cmd) || oracleURLCreds(value, true) {
					t.Errorf("%s: wget reads %q from the copy", name, l)
				}
			}
		}
	})
	t.Run("npm-ini", func(t *testing.T) {
		node := toolOrSkip(t, "node")
		ini := npmIni(t)
		rf := redactRow(t, redactFormatNpmrc)
		seeds := redactSeeds(t, "FuzzRedactNpmrc")
		var names, files []string
		for name, in := range seeds {
			names = append(names, name)
			files = append(files, write(name+".in", in), write(name+".out", redact(in, rf)))
		}
		decoded := iniLines(t, node, ini, files)
		for i, name := range names {
			checkIniModel(t, name, seeds[name], decoded[2*i])
			for _, e := range decoded[2*i+1] {
				for k, v := range e {
					if npmModelCredential(k, rf.keys) || oracleURLCreds(k, false) || oracleURLCreds(v, false) || !strings.HasPrefix(v, "s:") && !strings.HasPrefix(v, "a:") {
						t.Errorf("%s: ini reads %q = %q from the copy", name, k, v)
					}
				}
			}
		}
	})
	t.Run("pip-configparser", func(t *testing.T) {
		python := toolOrSkip(t, "python3")
		rf := redactRow(t, redactFormatPipConf)
		seeds := redactSeeds(t, "FuzzRedactPipConf")
		var names, files []string
		for name, in := range seeds {
			names = append(names, name)
			files = append(files, write(name+".in", in), write(name+".out", redact(in, rf)))
		}
		read := pyConfigParser(t, python, files)
		for i, name := range names {
			model, _ := modelPipConf(seeds[name])
			var all, kept []pipModelOption
			for _, o := range model {
				all = append(all, *o)
				if pipRemoved(rf.keys, o.name) {
					continue
				}
				k := pipModelOption{section: stripURLCredentials(o.section, false), name: stripURLCredentials(o.name, false), first: o.first}
				for _, p := range o.parts {
					k.parts = append(k.parts, stripURLCredentials(p, true))
				}
				if o.name == "" {
					k.parts = []string{pipRejected} // an option without a name: the line stands for it
				}
				kept = append(kept, k)
			}
			if got, want := read[2*i], pipPythonOrder(all); !slices.Equal(got, want) {
				t.Errorf("%s: configparser reads\n%q\nthe model reads\n%q", name, got, want)
			}
			if pipJoinedCreds(kept) {
				kept = nil
			}
			if got, want := read[2*i+1], pipPythonOrder(kept); !slices.Equal(got, want) {
				t.Errorf("%s: configparser reads from the copy\n%q\nwant\n%q", name, got, want)
			}
		}
	})
	t.Run("uv-tomllib", func(t *testing.T) {
		python := toolOrSkip(t, "python3")
		rf := redactRow(t, redactFormatUvToml)
		seeds := redactSeeds(t, "FuzzRedactUvToml")
		var names, files []string
		for name, in := range seeds {
			names = append(names, name)
			files = append(files, write(name+".in", in), write(name+".out", redact(in, rf)))
		}
		read := pyTOML(t, python, files)
		for i, name := range names {
			leavesIn, leavesOut := read[2*i], read[2*i+1]
			if _, ok := modelTOML(string(seeds[name])); leavesIn != nil && !ok {
				t.Errorf("%s: tomllib reads it, the model does not", name)
			}
			if leavesIn == nil {
				continue // not TOML: nothing of it is read
			}
			if leavesOut == nil {
				t.Errorf("%s: tomllib reads the original but not the copy %q", name, redact(seeds[name], rf))
				continue
			}
			want := map[string]bool{}
			for _, l := range leavesIn {
				want[tomlLeafRedacted(l, redactFile{keys: rf.keys, urls: true})] = true
			}
			for _, l := range leavesOut {
				plain := tomlLeafRedacted(l, redactFile{})
				if !want[plain] || tomlLeafRedacted(l, redactFile{keys: rf.keys, urls: true}) != plain {
					t.Errorf("%s: tomllib reads %s from the copy, which is not the original's, redacted", name, l)
				}
			}
		}
	})
	t.Run("yarnrc-js-yaml", func(t *testing.T) {
		jsyaml := os.Getenv("SANDTABLE_JSYAML")
		if jsyaml == "" {
			t.Skip("SANDTABLE_JSYAML does not name js-yaml's directory (npm install js-yaml, then its node_modules/js-yaml)")
		}
		node := toolOrSkip(t, "node")
		rf := redactRow(t, redactFormatYarnrc)
		for name, in := range redactSeeds(t, "FuzzRedactYarnrc") {
			doc, _ := parseYarnrc(in)
			inJS, inOK := jsYAML(t, node, jsyaml, write("in", in))
			if doc != nil && (!inOK || inJS != yJSON(doc)) {
				t.Errorf("%s: js-yaml reads %s (%v), the reader %s", name, inJS, inOK, yJSON(doc))
			}
			out := redact(in, rf)
			n, _ := yamlCanonical(string(out))
			if outJS, ok := jsYAML(t, node, jsyaml, write("out", out)); !ok || n == nil || outJS != yJSON(n) {
				t.Errorf("%s: js-yaml reads the copy as %s (%v), the oracle as %s", name, outJS, ok, yJSON(n))
			}
		}
	})
}

func toolOrSkip(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed: %v", name, err)
	}
	return p
}

// redactSeeds reads a fuzz target's seed corpus.
func redactSeeds(t *testing.T, target string) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds for %s: %v", target, err)
	}
	seeds := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lit, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "go test fuzz v1\n[]byte(")
		s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
		if !ok || err != nil {
			t.Fatalf("%s: not a []byte seed: %v", f, err)
		}
		seeds[filepath.Base(f)] = []byte(s)
	}
	return seeds
}

// gitList is git config --list -z of file: each variable as NAME\nVALUE
// (NAME alone without a value); failed is set when git stops at an error.
func gitList(git, file string) (vars []string, failed bool) {
	cmd := exec.Command(git, "config", "--no-includes", "--file", file, "--list", "-z")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.Output()
	for _, v := range strings.Split(string(out), "\x00") {
		if v != "" {
			vars = append(vars, v)
		}
	}
	return vars, err != nil
}

func gitModelList(vars []gitVarModel) []string {
	var out []string
	for _, v := range vars {
		s := v.name
		if v.valued {
			s += "\n" + v.value
		}
		out = append(out, s)
	}
	return out
}

// gitNormalize reads white space inside values as one space each, as
// git before 2.42 wrote it (newer git keeps tabs and CRs as they are).
func gitNormalize(vars []string) []string {
	out := make([]string, len(vars))
	for i, v := range vars {
		name, value, ok := strings.Cut(v, "\n")
		if ok {
			value = strings.NewReplacer("\t", " ", "\r", " ").Replace(value)
			v = name + "\n" + value
		}
		out[i] = v
	}
	return out
}

var wgetSetting = regexp.MustCompile(`^Setting (.*) \((\w+)\) to (.*)$`)

// wgetDebug is what wget reads from file: a "set COMMAND = VALUE" line for
// each command it takes, "bad" for each line it rejects.
func wgetDebug(t *testing.T, wget, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rc := file + ".debug"
	if err := os.WriteFile(rc, append([]byte("debug = on\n"), data...), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(wget, "--config="+rc, "--version")
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	_ = cmd.Run()
	var out []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		switch m := wgetSetting.FindStringSubmatch(l); {
		case m != nil && m[2] == "chooseconfig":
		case m != nil:
			out = append(out, "set "+m[2]+" = "+m[3])
		case strings.Contains(l, "Syntax error in"):
			out = append(out, "bad")
		case strings.Contains(l, "Unknown command"):
			cmd := l[strings.Index(l, "command ")+len("command "):]
			cmd = strings.Trim(cmd[:strings.Index(cmd, " in ")], "‘’'`")
			out = append(out, "set "+wgetCommand(cmd)+" = ?")
		}
	}
	return out
}

func wgetModelShow(lines []wgetModelLine) []string {
	var out []string
	for _, l := range lines {
		if l.bad {
			out = append(out, "bad")
			continue
		}
		out = append(out, "set "+l.command+" = "+l.value)
	}
	return out
}

// wgetrcRemoved reports whether wget reads the command cmd as one of keys.
func wgetrcRemoved(keys []string, cmd string) bool {
	for _, k := range keys {
		if wgetCommand(k) == wgetCommand(cmd) {
			return true
		}
	}
	return false
}

// npmIni finds the ini package npm itself loads.
func npmIni(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		t.Skipf("npm root -g: %v", err)
	}
	ini := filepath.Join(strings.TrimSpace(string(out)), "npm", "node_modules", "ini")
	if _, err := os.Stat(ini); err != nil {
		t.Skipf("npm's ini: %v", err)
	}
	return ini
}

const iniLinesJS = `const ini = require(process.argv[1]);
const all = [];
for (const f of process.argv.slice(2)) {
  const out = [];
  for (const line of require('fs').readFileSync(f, 'utf8').split(/[\r\n]+/g)) {
    const o = ini.decode(line), e = {};
    for (const [k, v] of Object.entries(o)) {
      if (line.startsWith('[') && v !== null && typeof v === 'object' && !Array.isArray(v)) continue; // a section
      e[k] = Array.isArray(v) ? 'a:' + JSON.stringify(v) : v !== null && typeof v === 'object' ? 'o' : 's:' + String(v);
    }
    out.push(e);
  }
  all.push(out);
}
process.stdout.write(JSON.stringify(all));`

// iniLines decodes each line of each file alone with npm's ini: its key
// and value (sections left out), a scalar's as s:String(VALUE), an
// array's as a:JSON, an object's as o.
func iniLines(t *testing.T, node, ini string, files []string) [][]map[string]string {
	t.Helper()
	out, err := exec.Command(node, append([]string{"-e", iniLinesJS, ini}, files...)...).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var lines [][]map[string]string
	if err := json.Unmarshal(out, &lines); err != nil || len(lines) != len(files) {
		t.Fatalf("node: %d results for %d files: %v", len(lines), len(files), err)
	}
	return lines
}

// checkIniModel compares ini's reading of each line of in with the model's
// (a value JSON.parse makes an object or array of matches any such).
func checkIniModel(t *testing.T, name string, in []byte, decoded []map[string]string) {
	t.Helper()
	var got []string
	for _, e := range decoded {
		for k, v := range e {
			if v == "o" || strings.HasPrefix(v, "a:") && !strings.HasPrefix(v, `a:["`) || strings.HasPrefix(v, `a:[[`) {
				v = "json"
			}
			got = append(got, k+" = "+v)
		}
	}
	var want []string
	for _, e := range modelNpmrc(in) {
		if e.section {
			continue
		}
		v := "s:" + e.value
		switch {
		case !e.valued && e.bracketed:
			v = "a:[true]"
		case !e.valued:
			v = "s:true"
		case e.valueJSON:
			v = "json"
		case e.bracketed:
			j, _ := json.Marshal([]string{e.value})
			v = "a:" + string(j)
		}
		want = append(want, e.key+" = "+v)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: ini reads\n%q\nthe model reads\n%q", name, got, want)
	}
}

const configParserPy = `import configparser, json, sys
res = []
for f in sys.argv[1:]:
    p = configparser.RawConfigParser(strict=False)
    try:
        p.read(f, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        pass
    out = []
    for s in ["DEFAULT"] + list(p._sections):
        opts = p._defaults if s == "DEFAULT" else p._sections[s]
        for k, v in opts.items():
            if isinstance(v, list):
                v = "\n".join(v).rstrip()
            out.append([s, k, v])
    res.append(out)
print(json.dumps(res))`

// pyConfigParser is what configparser reads from each file, each option
// as pipShow writes it, in its dictionaries' order.
func pyConfigParser(t *testing.T, python string, files []string) [][]string {
	t.Helper()
	out, err := exec.Command(python, append([]string{"-c", configParserPy}, files...)...).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var res [][][3]string
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(files) {
		t.Fatalf("python3: %d results for %d files: %v", len(res), len(files), err)
	}
	opts := make([][]string, len(res))
	for i, r := range res {
		for _, o := range r {
			opts[i] = append(opts[i], pipShow(o[0], o[1], o[2]))
		}
	}
	return opts
}

func pipShow(section, name, value string) string {
	return "[" + section + "] " + name + " = " + strconv.Quote(value)
}

// pipPythonOrder lists options as configparser's dictionaries hold them:
// DEFAULT first, then each section in the order it first appears, each
// option at its first place with its last value.
func pipPythonOrder(opts []pipModelOption) []string {
	var sections []string
	first := map[string]int{}
	values := map[string]map[string]string{}
	names := map[string][]string{}
	for _, o := range opts {
		if values[o.section] == nil {
			values[o.section] = map[string]string{}
			sections = append(sections, o.section)
			first[o.section] = o.first
		}
		if _, seen := values[o.section][o.name]; !seen {
			names[o.section] = append(names[o.section], o.name)
		}
		values[o.section][o.name] = o.value()
	}
	sort.SliceStable(sections, func(i, j int) bool { return first[sections[i]] < first[sections[j]] })
	var out []string
	for _, s := range sections {
		for _, n := range names[s] {
			out = append(out, pipShow(s, n, values[s][n]))
		}
	}
	return out
}

// pipRemoved reports whether pip reads the option name as one of keys.
func pipRemoved(keys []string, name string) bool {
	for _, k := range keys {
		if pipModelName(k) == pipModelName(name) {
			return true
		}
	}
	return false
}

const tomlPy = `import json, sys, tomllib
res = []
def walk(out, p, v):
    if isinstance(v, dict):
        for k, x in v.items(): walk(out, p + [k], x)
    elif isinstance(v, list):
        for i, x in enumerate(v): walk(out, p + ["#%d" % i], x)
    else:
        out.append(json.dumps([p, v if isinstance(v, (str, bool, int)) else str(v)]))
for f in sys.argv[1:]:
    try:
        d = tomllib.load(open(f, "rb"))
    except Exception:
        res.append(None); continue
    out = []
    walk(out, [], d)
    res.append(out)
print(json.dumps(res))`

// pyTOML is what tomllib reads from each file: each leaf as a JSON [path,
// value]; nil where it cannot read the file.
func pyTOML(t *testing.T, python string, files []string) [][]string {
	t.Helper()
	out, err := exec.Command(python, append([]string{"-c", tomlPy}, files...)...).Output()
	if err != nil {
		t.Skipf("python3 tomllib: %v", err)
	}
	var res [][]string
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(files) {
		t.Fatalf("python3: %d results for %d files: %v", len(res), len(files), err)
	}
	return res
}

// tomlLeafRedacted is a tomllib leaf as the copy holds it: "" when a
// component of its path is removed, its strings without URL credentials.
func tomlLeafRedacted(leaf string, rf redactFile) string {
	var l [2]any
	if json.Unmarshal([]byte(leaf), &l) != nil {
		return ""
	}
	path, _ := l[0].([]any)
	strip := func(s string) string {
		if rf.urls {
			return stripURLCredentials(s, false)
		}
		return s
	}
	for i, p := range path {
		s, _ := p.(string)
		if hasKey(rf.keys, s) {
			return ""
		}
		path[i] = strip(s)
	}
	if s, ok := l[1].(string); ok {
		l[1] = strip(s)
	}
	b, _ := json.Marshal(l)
	return string(b)
}

const jsYAMLJS = `const y = require(process.argv[1]);
try {
  const v = y.load(require('fs').readFileSync(process.argv[2], 'utf8'), {schema: y.FAILSAFE_SCHEMA, json: true});
  process.stdout.write(JSON.stringify(v === undefined ? null : v));
} catch (e) { process.stdout.write("ERROR") }`

func jsYAML(t *testing.T, node, jsyaml, file string) (string, bool) {
	t.Helper()
	out, err := exec.Command(node, "-e", jsYAMLJS, jsyaml, file).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	return string(out), string(out) != "ERROR"
}

// yJSON is n as JSON.stringify writes what js-yaml made of it (the last of
// duplicate keys winning, in the first one's place).
func yJSON(n *yNode) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	str := func(s string) {
		b.WriteByte('"')
		for _, r := range s {
			switch {
			case r == '"' || r == '\\':
				b.WriteByte('\\')
				b.WriteRune(r)
			case r == '\n':
				b.WriteString(`\n`)
			case r == '\r':
				b.WriteString(`\r`)
			case r == '\t':
				b.WriteString(`\t`)
			case r == '\b':
				b.WriteString(`\b`)
			case r == '\f':
				b.WriteString(`\f`)
			case r < 0x20:
				b.WriteString(`\u00` + strconv.FormatInt(int64(r)>>4, 16) + strconv.FormatInt(int64(r)&15, 16))
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	var w func(n *yNode)
	w = func(n *yNode) {
		switch n.kind {
		case yNull:
			b.WriteString("null")
		case yString:
			str(n.str)
		case ySequence:
			b.WriteByte('[')
			for i, v := range n.vals {
				if i > 0 {
					b.WriteByte(',')
				}
				w(v)
			}
			b.WriteByte(']')
		case yMapping:
			b.WriteByte('{')
			last := map[string]int{}
			var order []string
			for i, k := range n.keys {
				if _, seen := last[k]; !seen {
					order = append(order, k)
				}
				last[k] = i
			}
			// JavaScript puts keys that are array indexes first, in order.
			index := func(k string) (uint64, bool) {
				v, err := strconv.ParseUint(k, 10, 32)
				return v, err == nil && strconv.FormatUint(v, 10) == k && v < 1<<32-1
			}
			sort.SliceStable(order, func(i, j int) bool {
				a, ai := index(order[i])
				c, ci := index(order[j])
				return ai && (!ci || a < c)
			})
			for i, k := range order {
				if i > 0 {
					b.WriteByte(',')
				}
				str(k)
				b.WriteByte(':')
				w(n.vals[last[k]])
			}
			b.WriteByte('}')
		}
	}
	w(n)
	return b.String()
}
