package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestFoldTable checks the fold table against Python's unicodedata, where
// python3 is installed: every letter of Latin-1 and Latin Extended-A whose
// canonical decomposition is an ASCII letter and one mark is in it, with
// that decomposition, and nothing else is.
func TestFoldTable(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the table is checked against its unicodedata")
	}
	out, err := exec.Command(py, "-c", `
import unicodedata as u
for cp in range(0xC0, 0x180):
    d = u.decomposition(chr(cp))
    if d and not d.startswith('<'):
        ps = [int(x, 16) for x in d.split()]
        if len(ps) == 2 and ps[0] < 0x80:
            print(cp, ps[0], ps[1])
`).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[rune]decomposed{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var cp, base, mark rune
		if _, err := fmt.Sscan(line, &cp, &base, &mark); err != nil {
			t.Fatal(err)
		}
		want[cp] = decomposed{base: byte(base), mark: mark}
	}
	if len(want) < 150 {
		t.Fatalf("python listed %d letters, want the ~170 of the two blocks", len(want))
	}
	decompose, _ := foldMaps()
	for r, d := range want {
		if got, ok := decompose[r]; !ok || got != d {
			t.Errorf("%c (U+%04X): table has %+v, %v; unicodedata says %c + U+%04X", r, r, got, ok, d.base, d.mark)
		}
	}
	for r := range decompose {
		if _, ok := want[r]; !ok {
			t.Errorf("%c (U+%04X) is in the table but does not decompose so", r, r)
		}
	}
}

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

// TestFoldComplete asks Python's unicodedata for every character that
// APFS could take as one spelling of an ASCII character or of an ASCII
// letter with one mark (its decomposition, case folded and decomposed
// again, is that), and checks that the pattern of that spelling, where
// one is made at all, matches the character and its decomposition. The
// full case foldings to two letters (ß is ss) are not covered; the test
// counts them.
func TestFoldComplete(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the fold is checked against its unicodedata")
	}
	out, err := exec.Command(py, "-c", `
import unicodedata as u
def key(s): return u.normalize('NFD', u.normalize('NFD', s).casefold())
for cp in range(0x80, 0x30000):
    x = chr(cp)
    if 0xD800 <= cp < 0xE000: continue
    k = key(x)
    if k and k[0] < '\x80' and (len(k) == 1 or len(k) == 2 and k[1] >= '\x80'):
        print(cp, ' '.join(str(ord(c)) for c in k), ' '.join(str(ord(c)) for c in u.normalize('NFD', x)))
    elif k and all(c < '\x80' for c in k) and len(k) > 1:
        print(cp, 'multi')
`).Output()
	if err != nil {
		t.Fatal(err)
	}
	checked, multi := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var x rune
		var keyPart, nfdPart string
		cp, rest, _ := strings.Cut(line, " ")
		fmt.Sscan(cp, &x)
		if rest == "multi" {
			multi++
			continue
		}
		parts := strings.Fields(rest)
		// The key's runes come first, then the decomposition's; the key
		// has one or two, and the second is never ASCII.
		nk := 1
		if len(parts) > 2 {
			var second rune
			fmt.Sscan(parts[1], &second)
			if second >= 0x80 {
				nk = 2
			}
		}
		for i, p := range parts {
			var r rune
			fmt.Sscan(p, &r)
			if i < nk {
				keyPart += string(r)
			} else {
				nfdPart += string(r)
			}
		}
		var b strings.Builder
		b.WriteString("^/")
		if !writeFolded(&b, keyPart, false) {
			continue // refused: nothing to cover
		}
		b.WriteString("$")
		re := regexp.MustCompilePOSIX(b.String())
		for _, s := range []string{string(x), nfdPart} {
			if !re.MatchString("/" + s) {
				t.Errorf("U+%04X: %s (the pattern of %q) does not match %q", x, b.String(), keyPart, s)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked %d characters, want the hundreds the table folds", checked)
	}
	t.Logf("%d characters checked; %d fold to several ASCII letters and are not covered", checked, multi)
}
