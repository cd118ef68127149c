package sandbox

import (
	"errors"
	"regexp"
	"testing"
)

// TestFoldUnicode: a hidden name with an accented letter matches in its
// composed and decomposed spellings and either case, a name with k or s
// also in the Kelvin sign and long s (which APFS folds to them), and not
// a name with another letter; a character beyond the table is refused.
func TestFoldUnicode(t *testing.T) {
	pat, ok := foldPattern("/Users/u/ws/clé.pem")
	if !ok {
		t.Fatal("not folded")
	}
	re := regexp.MustCompilePOSIX(pat)
	for _, s := range []string{"/Users/u/ws/clé.pem", "/Users/u/ws/cle\u0301.pem", "/Users/u/ws/CLÉ.PEM", "/Users/u/ws/CLE\u0301.pem/x", "/Users/u/ws/cle\u0341.pem", "/Users/u/ws/clé.pem"} {
		if !re.MatchString(s) {
			t.Errorf("%s does not match %q", pat, s)
		}
	}
	for _, s := range []string{"/Users/u/ws/cle.pem", "/Users/u/ws/clè.pem", "/Users/u/ws/cle\u0300.pem", "/Users/u/ws/clé.pemx"} {
		if re.MatchString(s) {
			t.Errorf("%s matches %q", pat, s)
		}
	}
	// The same pattern from the decomposed spelling.
	if got, ok := foldPattern("/Users/u/ws/cle\u0301.pem"); !ok || got != pat {
		t.Errorf("decomposed: %q, %v; want %q", got, ok, pat)
	}
	ks, ok := foldPattern("/Users/u/ws/.ssh/key")
	if !ok {
		t.Fatal("not folded")
	}
	re = regexp.MustCompilePOSIX(ks)
	for _, s := range []string{"/Users/u/ws/.\u017fsh/\u212aey", "/Users/u/ws/.SSH/KEY"} {
		if !re.MatchString(s) {
			t.Errorf("%s does not match %q", ks, s)
		}
	}
	for _, bad := range []string{"/Users/u/ws/ключ", "/Users/u/ws/straße", "/Users/u/ws/e\u0344", "/Users/u/ws/\u0301x"} {
		if got, ok := foldPattern(bad); ok || got != "" {
			t.Errorf("foldPattern(%q) = %q, %v; want it not folded", bad, got, ok)
		}
	}
}

// TestRespellHidden: an existing hidden path the file system stores in
// another spelling is hidden in that spelling too; a missing one, an
// ancestor of the workspace and one stored as asked are not doubled, and
// a stored spelling no profile can hold is refused.
func TestRespellHidden(t *testing.T) {
	ws := "/Users/u/ws"
	stored := map[string]string{ws + "/Ключ": ws + "/ключ", ws + "/.env": ws + "/.env", "/Users/u": "/users/u", ws + "/gone": ws + "/GONE"}
	fake := func(p string) (string, bool) { s, ok := stored[p]; return s, ok }
	hidden := []pathFact{fact(ws+"/Ключ", kindFile, ws), fact(ws+"/.env", kindFile, ws), fact("/Users/u", kindDir, ws), fact(ws+"/gone", kindMissing, ws)}
	got, err := respellHidden(hidden, ws, fake)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[4].path != ws+"/ключ" || got[4].kind != kindFile || !got[4].inside {
		t.Errorf("respelled %+v, want the four and %s/ключ, a file inside the workspace", got, ws)
	}
	stored[ws+"/.env"] = ws + "/.e\"nv"
	if _, err := respellHidden(hidden[1:2], ws, fake); !errors.Is(err, ErrBadPath) {
		t.Errorf("a stored spelling with a quote: %v, want ErrBadPath", err)
	}
}

// TestRespelledDecision asks the evaluator about the stored spelling of
// a hidden key the fold table cannot fold: denied with the respelling,
// allowed (the workspace is readable) without it.
func TestRespelledDecision(t *testing.T) {
	ws := "/Users/u/ws"
	q := sbplRequest{op: "file-read-data", path: ws + "/ключ.pem"}
	for _, respell := range []bool{true, false} {
		p := &plan{workspace: ws, network: true, netHost: true}
		p.hidden = []pathFact{fact(ws+"/Ключ.pem", kindFile, ws)}
		stored := func(string) (string, bool) { return ws + "/ключ.pem", respell }
		var err error
		if p.hidden, err = respellHidden(p.hidden, ws, stored); err != nil {
			t.Fatal(err)
		}
		if err := darwinFacts(p); err != nil {
			t.Fatal(err)
		}
		forms, err := readPolicy(darwinSteps(p))
		if err != nil {
			t.Fatal(err)
		}
		got, at := decide(forms, q)
		if got == respell {
			t.Errorf("respelled %v: %s is %s (by %s)", respell, q, answer(got), forms[at].rule)
		}
		t.Logf("respelled %v: %s by %s", respell, answer(got), forms[at].rule)
	}
}
