package gen

import (
	"slices"
	"strings"
	"testing"

	"github.com/sandtable/sandtable/internal/testkit"
)

// TestVocabCoversRules: every bwrap flag and SBPL operation the rule table
// uses has its vocabulary row.
func TestVocabCoversRules(t *testing.T) {
	tab, err := Load("../rules")
	if err != nil {
		t.Fatal(err)
	}
	flags, ops := map[string]bool{}, map[string]bool{}
	for _, r := range tab.Linux.Rules {
		for _, f := range flagUses(r.Args) {
			flags[f.flag] = true
		}
	}
	for _, r := range tab.Darwin.Rules {
		for _, op := range r.Ops {
			ops[op] = true
		}
	}
	if len(flags) < 10 || len(ops) < 10 {
		t.Fatalf("the rules use %d flags and %d operations; is the table read?", len(flags), len(ops))
	}
	for f := range flags {
		if _, ok := bwrapFlags[f]; !ok {
			t.Errorf("rules/linux.yaml uses %s, which has no row in bwrapFlags", f)
		}
	}
	for op := range ops {
		if _, ok := sbplOps[op]; !ok {
			t.Errorf("rules/darwin.yaml uses %s, which has no row in sbplOps", op)
		}
	}
}

// TestVocabRowsComplete: each row says what every consumer reads of it,
// so none of them falls back to a guess.
func TestVocabRowsComplete(t *testing.T) {
	for flag, f := range bwrapFlags {
		if f.posture == nil {
			t.Errorf("%s: no posture (want postureOther or postureNothing at least)", flag)
		}
		if (f.pol == polUnset) == (f.polOf == nil) {
			t.Errorf("%s: want exactly one of pol and polOf", flag)
		}
		if f.level != 0 && f.mount != mountBind {
			t.Errorf("%s: a bind level on a flag that binds nothing", flag)
		}
		if (f.hostWrite || f.home != "") && !f.dest() {
			t.Errorf("%s: writes or shows a host path, and has no destination", flag)
		}
		if (f.fd || f.dest() || f.mount == mountModifier || f.seccomp || f.caps || f.size) && f.operands == 0 {
			t.Errorf("%s: a descriptor, destination or operand kind with no operand", flag)
		}
		if f.before != "" && (f.mount != mountModifier || !bwrapFlags[f.before].dest()) {
			t.Errorf("%s: before %q: want a modifier before a mount flag", flag, f.before)
		}
	}
	for op, o := range sbplOps {
		if len(o.rows) == 0 {
			t.Errorf("%s: no posture rows", op)
		}
		for _, row := range o.rows {
			if !slices.Contains(postureRows, row) {
				t.Errorf("%s: posture row %q is not one of %v", op, row, postureRows)
			}
		}
	}
}

// vocabLiterals are the flag and operation words that may appear outside
// the vocabulary files: the table's fixed shape (the argv starts with
// --ro-bind / / and ends with --; the profile's second rule is deny
// default) and sandbox-exec's own --. Anything else a consumer knows of
// a flag or an operation belongs in its row.
var vocabLiterals = map[string][]string{
	"check.go":        {"--ro-bind", "--", "default"},
	"posture_sbpl.go": {"default"},
	"sbpl_args.go":    {"--"},
	// The filter classes are named for the operation that evaluates them.
	"sbpl_filter.go": {"mach-lookup", "network-outbound"},
	// "default" is also a key of these sections.
	"load.go": {"default"}, "load_caches.go": {"default"}, "limits.go": {"default"},
	"landlock.go": {"default"}, "landlock_check.go": {"default"}, "backend.go": {"default"},
}

// TestVocabOneSource fails when a consumer in gen/ names a bwrap flag or an
// SBPL operation itself instead of reading its vocabulary row.
func TestVocabOneSource(t *testing.T) {
	lits, checked, err := testkit.StringLiterals(".", func(name string) bool { return !strings.HasPrefix(name, "vocab_") })
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lits {
		_, flag := bwrapFlags[l.Value]
		_, op := sbplOps[l.Value]
		if (flag || op) && !slices.Contains(vocabLiterals[l.Pos.Filename], l.Value) {
			t.Errorf("%s: %q: a flag or operation named outside its vocabulary row (read the row instead)", l.Pos, l.Value)
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files; is the glob right?", checked)
	}
}

// TestGoCondNegated: a condition's negation flips its comparison or
// prefixes !, and negating twice gives it back, for every word of the
// vocabulary; a literal holding an operator is never rewritten.
func TestGoCondNegated(t *testing.T) {
	for word, c := range conditions {
		n := c.expr.negated()
		if n.negated() != c.expr && c.expr.op != "" {
			t.Errorf("%s: %q negated twice is %q", word, c.expr, n.negated())
		}
		if c.expr.op == "" && n.String() != "!"+c.expr.String() || c.expr.op == "==" && n.op != "!=" || c.expr.op == "!=" && n.op != "==" {
			t.Errorf("%s: %q negated is %q", word, c.expr, n)
		}
	}
	if got := cmp("f.name", "==", `" == "`).negated().String(); got != `f.name != " == "` {
		t.Errorf("a literal holding == negated: %q", got)
	}
}
