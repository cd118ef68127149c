package gen

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Load reads every *.yaml file in dir.
func Load(dir string) (*Table, error) {
	return LoadFS(os.DirFS(dir), filepath.ToSlash(dir))
}

// LoadFS reads every *.yaml file at the top of fsys, naming them name/FILE
// in errors. On errors it still returns what it could read, so [Check] can
// report the rest of the table's problems in the same run. It walks yaml.Node itself rather than decoding into structs:
// Node.Decode ignores KnownFields, and the walk gives every error a line and
// column. Every problem in the table is reported, not just the first.
func LoadFS(fsys fs.FS, name string) (*Table, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("load %s: no *.yaml files", name)
	}
	t := &Table{}
	var c errs
	seenCommon := false
	for _, file := range names {
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		l := &loader{errs: &c, name: path.Join(name, file)}
		l.read(src, t, &seenCommon)
	}
	if len(c.list) == 0 {
		top := Pos{File: name, Line: 1, Col: 1}
		if t.Linux == nil {
			c.at(top, "", "no table with platform: linux (want a file with platform: linux)")
		}
		if t.Darwin == nil {
			c.at(top, "", "no table with platform: darwin (want a file with platform: darwin)")
		}
		if !seenCommon {
			c.at(top, "", "no table with platform: any (policy, strip-env, default-hidden) (want a file with platform: any)")
		}
	}
	if err := c.err(); err != nil {
		return t, err
	}
	return t, nil
}

type loader struct {
	*errs
	name string
}

func (l *loader) pos(n *yaml.Node) Pos { return Pos{File: l.name, Line: n.Line, Col: n.Column} }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlError reports a parse error at the line yaml.v3 names in it.
func (l *loader) yamlError(err error) {
	line, msg := 1, err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	l.at(Pos{File: l.name, Line: line, Col: 1}, "", "yaml: %s (want valid YAML)", msg)
}

func (l *loader) read(src []byte, t *Table, seenCommon *bool) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		l.yamlError(err)
		return
	}
	if len(doc.Content) == 0 {
		l.at(Pos{File: l.name, Line: 1, Col: 1}, "", "empty file (want a mapping with schema and platform)")
		return
	}
	// A second document would be dropped without a word by a decoder that
	// reads one: a reviewer reading the file would see rules that are not
	// in the sandbox.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		l.yamlError(err)
		return
	default:
		l.at(l.pos(&next), "", "a second YAML document (want one per file)")
		return
	}
	root := doc.Content[0]
	if !l.kind(root, yaml.MappingNode, "", "the file") {
		return
	}
	platform := ""
	if v := lookup(root, "platform"); v != nil {
		platform, _ = l.str(v, "", "platform")
	} else {
		l.at(l.pos(root), "", "missing key platform (want linux, darwin or any)")
		return
	}
	if v := lookup(root, "schema"); v == nil {
		l.at(l.pos(root), "", "missing key schema (want 1)")
	} else if v.Value != "1" || v.Tag != "!!int" {
		l.at(l.pos(v), "", "schema: unsupported value %q (want 1)", v.Value)
	}
	switch platform {
	case "any":
		if *seenCommon {
			l.at(l.pos(root), "", "second table with platform: any (want one file per platform)")
			return
		}
		*seenCommon = true
		l.common(root, &t.Common)
	case "linux", "darwin":
		p := l.platform(root, platform)
		if platform == "linux" {
			if t.Linux != nil {
				l.at(l.pos(root), "", "second table with platform: linux (want one file per platform)")
			}
			t.Linux = p
		} else {
			if t.Darwin != nil {
				l.at(l.pos(root), "", "second table with platform: darwin (want one file per platform)")
			}
			t.Darwin = p
		}
	default:
		l.at(l.pos(lookup(root, "platform")), "", "platform: unknown value %q (want linux, darwin or any)", platform)
	}
}

// lookup returns the value of key in a mapping, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// keys walks a mapping, rejecting keys outside allowed and repeated keys.
// yaml.v3 keeps both copies of a repeated key in a Node, and which one a
// reader honours is arbitrary: a reviewer could read the first while the
// sandbox got the second.
func (l *loader) keys(m *yaml.Node, rule string, allowed []string, fn func(key string, k, v *yaml.Node)) {
	seen := make(map[string]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if first, ok := seen[k.Value]; ok {
			l.at(l.pos(k), rule, "key %q repeated (first at line %d; want it once)", k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		if !slices.Contains(allowed, k.Value) {
			l.at(l.pos(k), rule, "unknown key %q (want one of %s)", k.Value, strings.Join(allowed, ", "))
			continue
		}
		fn(k.Value, k, v)
	}
}

var nodeKinds = map[yaml.Kind]string{
	yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list", yaml.ScalarNode: "a string",
}

func (l *loader) kind(n *yaml.Node, want yaml.Kind, rule, what string) bool {
	if n.Kind != want {
		got := nodeKinds[n.Kind]
		if got == "" {
			got = "an alias"
		}
		l.at(l.pos(n), rule, "%s: got %s (want %s)", what, got, nodeKinds[want])
		return false
	}
	return true
}

func (l *loader) str(n *yaml.Node, rule, what string) (string, bool) {
	if !l.kind(n, yaml.ScalarNode, rule, what) {
		return "", false
	}
	if n.Tag != "!!str" {
		l.at(l.pos(n), rule, "%s: got %s %s (want a string; quote it)", what, strings.TrimPrefix(n.Tag, "!!"), n.Value)
		return "", false
	}
	return n.Value, true
}

func (l *loader) strs(n *yaml.Node, rule, what string) []string {
	if !l.kind(n, yaml.SequenceNode, rule, what) {
		return nil
	}
	var out []string
	for _, e := range n.Content {
		if s, ok := l.str(e, rule, what); ok {
			out = append(out, s)
		}
	}
	return out
}

func (l *loader) common(root *yaml.Node, c *Common) {
	l.keys(root, "", []string{"schema", "platform", "policy", "strip-env", "keep-env", "default-hidden", "stdio", "protect", "caches", "redact", "offline-env", "proxy-refuse", "refuse", "network-default", "strip-env-values", "proxy-auth", "git-search", "backend"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "protect":
			c.Protect = l.protect(v)
		case "policy":
			l.policy(v, &c.Policy)
		case "backend":
			c.Backend = &Policy{}
			l.backend(v, c.Backend)
		case "strip-env":
			c.StripEnv = l.envEntries(v, "strip-env")
		case "keep-env":
			c.KeepEnv = l.envEntries(v, "keep-env")
		case "default-hidden":
			c.DefaultHidden = l.entries(v, "default-hidden", "path")
		case "stdio":
			c.Stdio = l.stdio(v)
		case "caches":
			c.Caches = l.caches(v)
		case "redact":
			c.Redact = l.redact(v)
		case "offline-env":
			c.Offline = l.offline(v)
		case "proxy-refuse":
			c.ProxyRefuse = l.proxyRefuse(v)
		case "refuse":
			c.Refuse = l.refuse(v)
		case "network-default":
			c.NetDefault = l.netDefault(v)
		case "strip-env-values":
			c.StripEnvValues = l.envValues(v)
		case "proxy-auth":
			c.ProxyAuth = l.proxyAuth(v)
		case "git-search":
			c.GitSearch = l.gitSearch(v)
		}
	})
	for _, key := range []string{"policy", "strip-env", "default-hidden"} {
		if lookup(root, key) == nil {
			l.at(l.pos(root), "", "missing key %s (want %s)", key, commonKeyWant[key])
		}
	}
}

// commonKeyWant and policyKeyWant say what each required key holds.
var (
	commonKeyWant = map[string]string{
		"policy":         "policy: a mapping of variable, default and values",
		"strip-env":      "strip-env: a list of {id, name, why} (a pattern may add catches and spares), or [] for none",
		"default-hidden": "default-hidden: a list of {id, path, why}, or [] for none",
	}
	policyKeyWant = map[string]string{
		"variable": "the environment variable that selects the policy",
		"default":  "the name of one of the values",
		"values":   "a list of {name, why}",
	}
)

// entryKeyWant says what an entry's key holds, by key.
func entryKeyWant(what, key string) string {
	switch key {
	case "id":
		return "a unique kebab-case id"
	case "why":
		return "the reason a reviewer reads"
	case "path":
		return "an absolute path or " + varHome + "/REL"
	case "name":
		if what == "policy.values" {
			return "the lower-case value"
		}
		return "an environment variable name"
	}
	return "a value"
}

func (l *loader) policy(n *yaml.Node, p *Policy) {
	if !l.kind(n, yaml.MappingNode, "", "policy") {
		return
	}
	l.keys(n, "", []string{"variable", "default", "values"}, func(key string, k, v *yaml.Node) {
		switch key {
		case "variable":
			p.VariablePos = l.pos(v)
			p.Variable, _ = l.str(v, "", "policy.variable")
		case "default":
			p.DefaultPos = l.pos(v)
			p.Default, _ = l.str(v, "", "policy.default")
		case "values":
			p.Values = l.entries(v, "policy.values", "name")
		}
	})
	for _, key := range []string{"variable", "default", "values"} {
		if lookup(n, key) == nil {
			l.at(l.pos(n), "", "policy: missing key %s (want %s)", key, policyKeyWant[key])
		}
	}
}

// entries reads a list of {id, <value key>, why} rows. Policy values are
// named by their value and carry no separate id.
func (l *loader) entries(n *yaml.Node, what, valueKey string) []Entry {
	if !l.kind(n, yaml.SequenceNode, "", what) {
		return nil
	}
	allowed := []string{"id", valueKey, "why"}
	if what == "policy.values" {
		allowed = []string{valueKey, "why"}
	}
	var out []Entry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", what+" entry") {
			continue
		}
		en := Entry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", what+": id")
		}
		if v := lookup(e, valueKey); v != nil {
			en.Value, _ = l.str(v, en.ID, what+": "+valueKey)
		}
		if what == "policy.values" {
			en.ID = en.Value
		}
		l.keys(e, en.ID, allowed, func(key string, k, v *yaml.Node) {
			if key == "why" {
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range allowed {
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "%s: missing key %s (want %s)", what, key, entryKeyWant(what, key))
			}
		}
		out = append(out, en)
	}
	return out
}

var (
	linuxRuleKeys  = []string{"id", "why", "when", "for", "group", "args", "reviewed", "landlock"}
	darwinRuleKeys = []string{"id", "why", "when", "for", "version", "allow", "deny", "filters", "reviewed", "args"}
)

func (l *loader) platform(root *yaml.Node, name string) *Platform {
	p := &Platform{Pos: l.pos(root), Name: name}
	allowed := []string{"schema", "platform", "program", "rules"}
	if name == "linux" {
		allowed = append(allowed, "seccomp", "limits", "watch", "diagnose", "landlock")
	}
	l.keys(root, "", allowed, func(key string, k, v *yaml.Node) {
		switch key {
		case "seccomp":
			p.Seccomp = l.seccomp(v)
		case "limits":
			p.Limits = l.limits(v)
		case "watch":
			p.Watch = l.watch(v)
		case "diagnose":
			p.Diagnose = l.diagnose(v)
		case "landlock":
			p.Landlock = l.landlockSection(v)
			if p.Landlock == nil {
				p.Landlock = []LandlockEntry{}
			}
		case "program":
			p.Program, _ = l.str(v, "", "program")
		case "rules":
			if !l.kind(v, yaml.SequenceNode, "", "rules") {
				return
			}
			for _, rn := range v.Content {
				if r := l.rule(rn, name); r != nil {
					p.Rules = append(p.Rules, r)
				}
			}
		}
	})
	if p.Program == "" {
		l.at(p.Pos, "", "missing key program (want the sandbox program's name)")
	}
	if len(p.Rules) == 0 && lookup(root, "rules") == nil {
		l.at(p.Pos, "", "missing key rules (want a list of rules)")
	}
	return p
}

// seccomp reads the linux table's seccomp section: {id, syscall, ioctl or
// setid-mode, errno (optional), why} rows.
func (l *loader) seccomp(n *yaml.Node) []SeccompEntry {
	if !l.kind(n, yaml.SequenceNode, "", "seccomp") {
		return nil
	}
	var out []SeccompEntry
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "seccomp entry") {
			continue
		}
		en := SeccompEntry{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "seccomp: id")
		}
		l.keys(e, en.ID, []string{"id", "syscall", "ioctl", "setid-mode", "keep-families", "errno", "why", "landlock"}, func(key string, k, v *yaml.Node) {
			switch key {
			case "landlock":
				en.Landlock = l.backendCol(v, en.ID)
			case "syscall":
				en.Syscall, _ = l.str(v, en.ID, "syscall")
			case "ioctl":
				en.Ioctl, _ = l.str(v, en.ID, "ioctl")
			case "setid-mode":
				en.SetidMode, _ = l.str(v, en.ID, "setid-mode")
			case "keep-families":
				en.KeepFamilies = l.strs(v, en.ID, "keep-families")
				if en.KeepFamilies == nil {
					en.KeepFamilies = []string{}
				}
			case "errno":
				en.Errno, _ = l.str(v, en.ID, "errno")
				en.ErrnoPos = l.pos(v)
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		if lookup(e, "id") == nil {
			l.at(en.Pos, "", "seccomp: missing key id (want a unique kebab-case id)")
		}
		kinds := 0
		for _, k := range []string{"syscall", "ioctl", "setid-mode", "keep-families"} {
			if lookup(e, k) != nil {
				kinds++
			}
		}
		if kinds != 1 {
			l.at(en.Pos, en.ID, "seccomp: an entry names one syscall, one ioctl, one setid-mode call or the socket families to keep (want exactly one of syscall, ioctl, setid-mode, keep-families)")
		}
		out = append(out, en)
	}
	return out
}

func (l *loader) rule(n *yaml.Node, platform string) *Rule {
	if !l.kind(n, yaml.MappingNode, "", "rule") {
		return nil
	}
	r := &Rule{Pos: l.pos(n)}
	if v := lookup(n, "id"); v != nil {
		r.ID, _ = l.str(v, "", "id")
	}
	allowed := linuxRuleKeys
	if platform == "darwin" {
		allowed = darwinRuleKeys
	}
	l.keys(n, r.ID, allowed, func(key string, k, v *yaml.Node) {
		switch key {
		case "landlock":
			r.Landlock = l.backendCol(v, r.ID)
		case "why":
			r.Why, _ = l.str(v, r.ID, "why")
		case "reviewed":
			r.Reviewed, _ = l.str(v, r.ID, "reviewed")
		case "for":
			r.For, _ = l.str(v, r.ID, "for")
		case "group":
			r.Group, _ = l.str(v, r.ID, "group")
		case "when":
			r.WhenPos = l.pos(v)
			r.When = l.when(v, r.ID)
		case "args":
			r.ArgsPos = l.pos(v)
			r.Args = l.strs(v, r.ID, "args")
		case "version":
			r.Action = "version"
			r.OpsPos = l.pos(v)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				l.at(l.pos(v), r.ID, "version: got %q (want 1)", v.Value)
				return
			}
			r.Version, _ = strconv.Atoi(v.Value)
		case "allow", "deny":
			if r.Action != "" {
				l.at(l.pos(k), r.ID, "%s: a rule has one of version, allow or deny (got %s too; want a separate rule for each)", key, r.Action)
				return
			}
			r.Action = key
			r.OpsPos = l.pos(v)
			r.Ops = l.strs(v, r.ID, key)
		case "filters":
			r.Filters = l.filters(v, r.ID)
		}
	})
	if r.ID == "" {
		l.at(r.Pos, "", "rule without id (want a unique kebab-case id)")
	}
	return r
}

func (l *loader) when(n *yaml.Node, rule string) []Cond {
	var words []*yaml.Node
	switch n.Kind {
	case yaml.ScalarNode:
		words = []*yaml.Node{n}
	case yaml.SequenceNode:
		words = n.Content
	default:
		l.at(l.pos(n), rule, "when: got %s (want a condition or a list of them)", nodeKinds[n.Kind])
		return nil
	}
	var out []Cond
	for _, w := range words {
		s, ok := l.str(w, rule, "when")
		if !ok {
			continue
		}
		f := strings.Fields(s)
		switch {
		case len(f) == 1:
			out = append(out, Cond{Word: f[0]})
		case len(f) == 2 && f[0] == "not":
			out = append(out, Cond{Not: true, Word: f[1]})
		default:
			l.at(l.pos(w), rule, "when: cannot read %q (want WORD or not WORD)", s)
		}
	}
	return out
}
