package sandbox

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The redactors' fuzz targets, one per format: whatever a file holds, what
// the tool would read from its copy (the format's oracle in
// redact_oracle_test.go) has none of the row's keys and no URL
// credentials, is what the tool read from the original less those, and
// redacts to itself again. Their seeds are in testdata/fuzz/FuzzRedact*/,
// and TestRedactToolsAgree holds the same seeds to the tools themselves.

func FuzzRedactGitconfig(f *testing.F) { f.Fuzz(checkRedactGitconfig) }
func FuzzRedactWgetrc(f *testing.F)    { f.Fuzz(checkRedactWgetrc) }
func FuzzRedactNpmrc(f *testing.F)     { f.Fuzz(checkRedactNpmrc) }
func FuzzRedactPipConf(f *testing.F)   { f.Fuzz(checkRedactPipConf) }
func FuzzRedactYarnrc(f *testing.F)    { f.Fuzz(checkRedactYarnrc) }
func FuzzRedactUvToml(f *testing.F)    { f.Fuzz(checkRedactUvToml) }

// redactSame fails unless redacting out again gives out; a copy that says
// the file is not served redacts to nothing.
func redactSame(t *testing.T, out []byte, rf redactFile) {
	t.Helper()
	again := redact(out, rf)
	if bytes.HasPrefix(out, []byte("# sandtable: this file is not served: ")) && len(bytes.TrimSpace(again)) == 0 {
		return
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("the copy redacts to another copy:\n%q\n%q", out, again)
	}
}

func checkRedactGitconfig(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatGitconfig)
	out := redact(data, rf)
	got, complete := modelGitConfig(out)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	stopped := lines[len(lines)-1]+"\n" == gitStopLine
	if complete == stopped {
		t.Fatalf("git reads the copy to its end: %v, the copy stops: %v:\n%q", complete, stopped, out)
	}
	for _, v := range got {
		_, sub, _, hasSub := gitModelSplit(v.name)
		if gitModelRemoved(v.name, rf.keys) || hasSub && oracleURLCreds(sub, false) || oracleURLCreds(v.value, false) {
			t.Fatalf("git reads %q = %q from the copy:\n%q\nof\n%q", v.name, v.value, out, data)
		}
	}
	redactSame(t, out, rf)
	if bytes.IndexByte(data, 0) >= 0 {
		return // git's names end at a NUL, the reader stops at one
	}
	in, inComplete := modelGitConfig(data)
	if inComplete == stopped {
		t.Fatalf("git reads the original to its end: %v, the copy stops: %v", inComplete, stopped)
	}
	var want []gitVarModel
	for _, v := range in {
		if gitModelRemoved(v.name, rf.keys) {
			continue
		}
		if section, sub, key, hasSub := gitModelSplit(v.name); hasSub {
			v.name = section + "." + stripURLCredentials(sub, false) + "." + key
		}
		v.value = stripURLCredentials(v.value, false)
		want = append(want, v)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("git reads from the copy\n%+v\nand from the original, less its keys,\n%+v\ncopy %q", got, want, out)
	}
}

func checkRedactWgetrc(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatWgetrc)
	removed := map[string]bool{}
	for _, k := range rf.keys {
		removed[strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(k))] = true
	}
	out := redact(data, rf)
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" {
			continue
		}
		for _, l := range modelWgetrc([]byte(line)) {
			switch {
			case l.bad && !strings.HasPrefix(line, "!sandtable: "):
				t.Fatalf("the copy's line %q is one wget rejects", line)
			case removed[l.command] || oracleURLCreds(l.value, true):
				t.Fatalf("wget reads %s = %q from the copy:\n%q", l.name, l.value, out)
			}
		}
	}
	redactSame(t, out, rf)
	var want []wgetModelLine
	for _, l := range modelWgetrc(data) {
		if l.bad || !removed[l.command] {
			l.value = strings.Trim(stripURLCredentials(l.value, true), " \t\n\v\f\r")
			want = append(want, l)
		}
	}
	if got := modelWgetrc(out); !slices.Equal(got, want) {
		t.Fatalf("wget reads from the copy\n%+v\nand from the original, less its keys,\n%+v", got, want)
	}
}

func checkRedactNpmrc(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatNpmrc)
	out := redact(data, rf)
	got := modelNpmrc(out)
	for _, e := range got {
		switch {
		case e.section && oracleURLCreds(e.key, false):
			t.Fatalf("ini reads the section %q from the copy", e.key)
		case e.section:
		case !e.keyString || npmModelCredential(e.key, rf.keys) || oracleURLCreds(e.key, false):
			t.Fatalf("npm reads the key %q from the copy:\n%q", e.key, out)
		case e.valued && (e.valueJSON || oracleURLCreds(e.value, false)):
			t.Fatalf("npm reads %s = %q from the copy:\n%q", e.key, e.value, out)
		}
	}
	redactSame(t, out, rf)
	var want []npmModelEntry
	for _, e := range modelNpmrc(data) {
		if e.section {
			if !e.keyString {
				e.key, e.keyString = "sandtable-not-served", true
			}
			e.key = stripURLCredentials(e.key, false)
			want = append(want, e)
			continue
		}
		if !e.keyString || npmModelCredential(e.key, rf.keys) || stripURLCredentials(e.key, false) != e.key || e.valueJSON {
			continue
		}
		e.value = stripURLCredentials(e.value, false)
		want = append(want, e)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("npm reads from the copy\n%+v\nand from the original, less its keys,\n%+v\ncopy %q", got, want, out)
	}
}

func checkRedactPipConf(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatPipConf)
	out := redact(data, rf)
	got, _ := modelPipConf(out)
	removed := func(name string) bool {
		for _, k := range rf.keys {
			if strings.EqualFold(pipModelName(k), pipModelName(name)) {
				return true
			}
		}
		return false
	}
	for _, o := range got {
		if removed(o.name) || oracleURLCreds(o.value(), true) || oracleURLCreds(o.section, false) {
			t.Fatalf("pip reads [%s] %s = %q from the copy:\n%q", o.section, o.name, o.value(), out)
		}
	}
	redactSame(t, out, rf)
	if !utf8.Valid(data) {
		return
	}
	in, _ := modelPipConf(data)
	var want []pipModelOption
	for _, o := range in {
		if removed(o.name) {
			continue
		}
		w := pipModelOption{section: stripURLCredentials(o.section, false), name: stripURLCredentials(o.name, false), first: o.first}
		for _, p := range o.parts {
			w.parts = append(w.parts, stripURLCredentials(p, true))
		}
		want = append(want, w)
	}
	show := func(opts []pipModelOption) []string {
		var s []string
		for _, o := range opts {
			s = append(s, fmt.Sprintf("[%s] %s = %q", o.section, o.name, o.value()))
		}
		return s
	}
	if pipJoinedCreds(want) {
		want = nil
	}
	var gotOpts []pipModelOption
	for _, o := range got {
		gotOpts = append(gotOpts, *o)
	}
	for i := range want {
		if want[i].name == "" {
			want[i].parts = []string{pipRejected} // the line that stands for one without a name
		}
	}
	if g, w := show(gotOpts), show(want); !slices.Equal(g, w) {
		t.Fatalf("pip reads from the copy\n%q\nand from the original, less its keys,\n%q\ncopy %q", g, w, out)
	}
}

func checkRedactYarnrc(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatYarnrc)
	out := redact(data, rf)
	n, ok := yamlCanonical(string(out))
	if !ok {
		t.Fatalf("the copy is not in the one form it is written in:\n%q", out)
	}
	yamlModelCheck(n, rf.keys, func(what string) { t.Fatalf("js-yaml reads %s from the copy:\n%q", what, out) })
	redactSame(t, out, rf)
	if doc, err := parseYarnrc(out); doc != nil && !yEqual(doc, n) {
		t.Fatalf("the copy reads back as another tree (%v):\n%q", err, out)
	}
}

// yEqual reports whether two trees are the same; a null and an empty
// document are.
func yEqual(a, b *yNode) bool {
	if a.kind != b.kind || a.str != b.str || !slices.Equal(a.keys, b.keys) || len(a.vals) != len(b.vals) {
		return false
	}
	for i := range a.vals {
		if !yEqual(a.vals[i], b.vals[i]) {
			return false
		}
	}
	return true
}

func checkRedactUvToml(t *testing.T, data []byte) {
	rf := redactRow(t, redactFormatUvToml)
	out := redact(data, rf)
	if bytes.HasPrefix(out, []byte("# sandtable: this file is not served: ")) && bytes.Count(out, []byte("\n")) == 1 {
		return
	}
	m, ok := modelTOML(string(out))
	if !ok {
		t.Fatalf("a TOML reader cannot read the copy:\n%q\nof\n%q", out, data)
	}
	for _, k := range m.keys {
		for _, part := range k {
			if hasKey(rf.keys, part) || oracleURLCreds(part, false) {
				t.Fatalf("uv reads the key %q from the copy:\n%q", k, out)
			}
		}
	}
	for _, s := range m.strings {
		if oracleURLCreds(s, false) {
			t.Fatalf("uv reads %q from the copy:\n%q", s, out)
		}
	}
	redactSame(t, out, rf)
}
