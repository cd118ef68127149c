package casefold

import (
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
		if !Write(&b, keyPart, false) {
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
