package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// docOf renders the POLICY.md output of a fixture through GenerateFS, the
// path genrules takes.
func docOf(t *testing.T, dir string) []byte {
	t.Helper()
	outs, err := GenerateFS(os.DirFS(dir), "rules")
	if err != nil {
		t.Fatalf("generate %s: %v", dir, err)
	}
	for _, o := range outs {
		if o.Path == "docs/POLICY.md" {
			return o.Data
		}
	}
	t.Fatal("no docs/POLICY.md among the outputs")
	return nil
}

func TestDoc(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir(fixtures+"/TestDoc"), goldie.WithNameSuffix(".md.golden"))
	for _, name := range cases(t, "TestGen") {
		t.Run(name, func(t *testing.T) {
			doc := docOf(t, filepath.Join(fixtures, "TestGen", name))
			checkTables(t, doc)
			g.Assert(t, name, doc)
		})
	}
}

// TestDocRules checks the real table's doc for well-formed tables; its
// content is pinned by TestGenerated against docs/POLICY.md.
func TestDocRules(t *testing.T) {
	checkTables(t, docOf(t, "../rules"))
}

// checkTables fails on a Markdown table row whose cell count, counting only
// unescaped pipes, differs from its header's: the symptom of an unescaped |.
func checkTables(t *testing.T, doc []byte) {
	t.Helper()
	header := -1
	for i, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "|") {
			header = -1
			continue
		}
		n := 0
		for j := 0; j < len(line); j++ {
			switch line[j] {
			case '\\':
				j++
			case '|':
				n++
			}
		}
		if header < 0 {
			header = n
		} else if n != header {
			t.Errorf("line %d has %d cell borders, its table's header %d: %s", i+1, n, header, line)
		}
	}
}

func TestDocEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a|b", "`a\\|b`"},
		{"", ""},
		{"a`b", "``a`b``"},
		{"`a``b`", "``` `a``b` ```"},
		{"two\nlines", "`two lines`"},
	} {
		if got := code(tc.in); got != tc.want {
			t.Errorf("code(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"x | y", `x \| y`},
		{"a <!-- hide the rest", "a &lt;!-- hide the rest"},
		{"folded\n  text", "folded text"},
		{"R&D", "R&amp;D"},
	} {
		if got := prose(tc.in); got != tc.want {
			t.Errorf("prose(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDocPhrases keeps the doc's wording in step with the vocabulary: a new
// condition or iteration must say how a reviewer reads it.
func TestDocPhrases(t *testing.T) {
	for w := range conditions {
		if _, ok := condPhrase[w]; !ok {
			t.Errorf("condition %q has no phrase in condPhrase", w)
		}
	}
	for w := range iterations {
		if _, ok := iterSubject[w]; !ok {
			t.Errorf("iteration %q has no subject in iterSubject", w)
		}
	}
}

// TestDocEmitsForms checks that the doc's per-form split of a rule's output
// is Emits, as sandtable rules prints it.
func TestDocEmitsForms(t *testing.T) {
	tb, err := Load("../rules")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Platform{tb.Linux, tb.Darwin} {
		for _, r := range p.Rules {
			if got, want := strings.Join(emitsForms(p.Name, r), " "), Emits(p.Name, r); got != want {
				t.Errorf("%s %s: forms join to %q, Emits is %q", p.Name, r.ID, got, want)
			}
		}
	}
}

// TestPostureDerived edits the real table and watches the posture follow:
// the table is derived from the rules, not written beside them.
func TestPostureDerived(t *testing.T) {
	load := func() *Table {
		tb, err := Load("../rules")
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	has := func(es []entry, rule, text string) bool {
		return slices.ContainsFunc(es, func(e entry) bool { return e.rule == rule && strings.Contains(e.text, text) })
	}
	drop := func(p *Platform, id string) {
		p.Rules = slices.DeleteFunc(p.Rules, func(r *Rule) bool { return r.ID == id })
	}
	find := func(p *Platform, id string) *Rule {
		for _, r := range p.Rules {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("%s: no rule %q", p.Name, id)
		return nil
	}

	tb := load()
	linux, darwin := derivePosture(tb)
	for _, c := range []struct {
		es         []entry
		rule, text string
	}{
		{linux["Read"], "root-read-only", "the whole host file system, read-only"},
		{linux["Write"], "workspace-bind", "the workspace, read-write"},
		{linux["Write"], "tmp", "`/tmp`: private and empty"},
		{linux["Network"], "share-net", "with `NetworkHost`"},
		{linux["Network"], "proxy-net", "the network helper's own namespace: a loopback where the proxy listens, nothing of the host's, with `NetworkProxy`"},
		{linux["Environment"], "proxy-env", "`HTTPS_PROXY` set to `http://127.0.0.1:3128`"},
		{linux["Hidden paths"], "hide-dir", "each hidden path that is a directory: covered by an empty tmpfs"},
		{linux["Home directory"], "root-read-only", "readable, not writable"},
		{linux["Privileges"], "seccomp", "`add_key`, `request_key` and `keyctl` fail with EPERM"},
		{linux["Privileges"], "seccomp", "`openat2`, `io_uring_setup` and `socketcall` fail with ENOSYS"},
		{linux["Network"], "seccomp", "sockets of `AF_UNIX`, `AF_INET`, `AF_INET6` and `AF_NETLINK` only: `socket` and `socketpair` fail with EAFNOSUPPORT"},
		{linux["Privileges"], "seccomp", "no setuid or setgid file: `chmod`, "},
		{linux["Other"], "status-fd", "on a pipe the caller reads, only for `NewCmd`"},
		{linux["Terminal"], "seccomp", "`TIOCSTI`, `TIOCLINUX`, `TIOCSETD`, `TIOCEXCL`, "},
		{darwin["Read"], "read-allowlist", "the workspace"},
		{darwin["Network"], "network-outbound-ip", "`(remote ip \"*:*\")`, with `NetworkHost`"},
		{darwin["Network"], "dns-socket", "`(remote unix-socket (path-literal \"/private/var/run/mDNSResponder\"))`"},
		{darwin["Other"], "sysctl-read", "`(sysctl-name \"hw.ncpu\")`"},
		{darwin["Hidden paths"], "hide-dir", "not an ancestor of the workspace"},
		{darwin["Home directory"], "deny-default", "not readable, not writable"},
	} {
		if !has(c.es, c.rule, c.text) {
			t.Errorf("no entry %q from %s in %q", c.text, c.rule, c.es)
		}
	}

	tb = load()
	drop(tb.Linux, "share-net")
	tmp := find(tb.Linux, "tmp")
	tmp.Args = []string{"--bind", "/tmp", "/tmp"}
	find(tb.Darwin, "network-outbound-ip").When = nil
	drop(tb.Darwin, "deny-default")
	tb.Darwin.Rules = append(tb.Darwin.Rules, &Rule{ID: "home-read", Action: "allow", Ops: []string{"file-read*"},
		Filters: []Filter{{Kind: "subpath", Value: "/Users"}}})
	linux, darwin = derivePosture(tb)
	if has(linux["Network"], "share-net", "") {
		t.Errorf("linux network still on without share-net: %q", linux["Network"])
	}
	if !has(linux["Write"], "tmp", "`/tmp`, read-write") {
		t.Errorf("a host /tmp bind is not a write entry: %q", linux["Write"])
	}
	if !has(darwin["Network"], "network-outbound-ip", "allowed") || has(darwin["Network"], "network-outbound-ip", "unless") {
		t.Errorf("unconditional darwin network: %q", darwin["Network"])
	}
	if has(darwin["Read"], "", "everything else denied") || has(darwin["Read"], "deny-default", "") {
		t.Errorf("still denied by default: %q", darwin["Read"])
	}
	if !has(darwin["Home directory"], "home-read", "readable") {
		t.Errorf("a /Users read grant does not make home readable: %q", darwin["Home directory"])
	}
}
