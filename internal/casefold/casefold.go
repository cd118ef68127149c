// Package casefold writes the patterns that match a name in every spelling
// APFS takes for it: case folded and canonically decomposed, for the ASCII
// letters and the Latin-1 and Latin Extended-A letters that decompose into
// an ASCII letter and one combining mark (the table below, checked against
// Python's unicodedata by TestFoldTable and TestFoldComplete). It owns that
// table and nothing else: no paths, no plan; it imports only the standard
// library. The sandbox's macOS profile and its refuse stage use it.
package casefold

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// APFS compares names after canonical decomposition and case folding, so
// é (U+00E9), e followed by U+0301, É and E followed by U+0301 are one
// name there, and so are k, K and the Kelvin sign. A pattern matches every
// such spelling of each letter the table knows; any other character that
// is not ASCII cannot be folded here.

// foldMarks lists, for each combining mark, the composed letters and
// their ASCII base letters, position for position.
var foldMarks = []struct {
	mark           rune
	composed, base string
}{
	{'\u0300', "ÀÈÌÒÙàèìòù", "AEIOUaeiou"},
	{'\u0301', "ÁÉÍÓÚÝáéíóúýĆćĹĺŃńŔŕŚśŹź", "AEIOUYaeiouyCcLlNnRrSsZz"},
	{'\u0302', "ÂÊÎÔÛâêîôûĈĉĜĝĤĥĴĵŜŝŴŵŶŷ", "AEIOUaeiouCcGgHhJjSsWwYy"},
	{'\u0303', "ÃÑÕãñõĨĩŨũ", "ANOanoIiUu"},
	{'\u0304', "ĀāĒēĪīŌōŪū", "AaEeIiOoUu"},
	{'\u0306', "ĂăĔĕĞğĬĭŎŏŬŭ", "AaEeGgIiOoUu"},
	{'\u0307', "ĊċĖėĠġİŻż", "CcEeGgIZz"},
	{'\u0308', "ÄËÏÖÜäëïöüÿŸ", "AEIOUaeiouyY"},
	{'\u030A', "ÅåŮů", "AaUu"},
	{'\u030B', "ŐőŰű", "OoUu"},
	{'\u030C', "ČčĎďĚěĽľŇňŘřŠšŤťŽž", "CcDdEeLlNnRrSsTtZz"},
	{'\u0327', "ÇçĢģĶķĻļŅņŖŗŞşŢţ", "CcGgKkLlNnRrSsTt"},
	{'\u0328', "ĄąĘęĮįŲų", "AaEeIiUu"},
}

type decomposed struct {
	base byte
	mark rune
}

// foldMaps are decompose (a composed letter's base and mark) and compose
// (the other way), made from foldMarks on first use: only a macOS
// pattern needs them.
var foldMaps = sync.OnceValues(func() (map[rune]decomposed, map[decomposed]rune) {
	decompose, compose := map[rune]decomposed{}, map[decomposed]rune{}
	for _, m := range foldMarks {
		base := 0
		for _, r := range m.composed {
			d := decomposed{base: m.base[base], mark: m.mark}
			decompose[r], compose[d] = d, r
			base++
		}
	}
	return decompose, compose
})

var (
	// markAlts are the marks that decompose to a mark of the table, and
	// singletons the characters that decompose to an ASCII one that is
	// not a letter (the letters' are in their case orbits: K, Å).
	markAlts   = map[rune]rune{'\u0340': '\u0300', '\u0341': '\u0301'}
	singletons = map[rune]string{';': "\u037e", '`': "\u1fef"}
)

// foldOrbit is r and every letter that folds to the same case, as
// unicode.SimpleFold cycles through them.
func foldOrbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

// spellings lists every spelling APFS takes for the letter r: each case
// of it, and each case of its base letter followed by its mark (or a mark
// that decomposes to it). It
// returns nil for a character the table cannot fold.
func spellings(r rune) []string {
	decompose, _ := foldMaps()
	orbit := foldOrbit(r)
	known := false
	for _, o := range orbit {
		_, ok := decompose[o]
		known = known || ok || o < utf8.RuneSelf
	}
	if !known {
		return nil
	}
	var out []string
	for _, o := range orbit {
		out = append(out, string(o))
		if d, ok := decompose[o]; ok {
			for _, b := range foldOrbit(rune(d.base)) {
				out = append(out, string(b)+string(d.mark))
				for alt, m := range markAlts {
					if m == d.mark {
						out = append(out, string(b)+string(alt))
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Write appends to b a pattern (POSIX extended, as SBPL's regex reads it)
// for name matching it in every spelling APFS takes, and reports false at the first character it cannot
// fold (a ^, or a character beyond the table; an ASCII letter followed
// by a combining mark is read as the composed letter). With asIs, such a
// character is matched as it is spelled instead, except ^.
func Write(b *strings.Builder, name string, asIs bool) bool {
	_, compose := foldMaps()
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r < utf8.RuneSelf && i+n < len(name) {
			if m, mn := utf8.DecodeRuneInString(name[i+n:]); m >= utf8.RuneSelf {
				if alt, ok := markAlts[m]; ok {
					m = alt
				}
				if c, ok := compose[decomposed{base: byte(r), mark: m}]; ok {
					r, n = c, n+mn
				}
			}
		}
		i += n
		switch {
		case r == '^':
			return false
		case singletons[r] != "":
			b.WriteByte('(')
			b.WriteRune(r)
			b.WriteByte('|')
			b.WriteString(singletons[r])
			b.WriteByte(')')
		case strings.ContainsRune(".+*?()[]{}|$", r):
			b.WriteByte('[')
			b.WriteRune(r)
			b.WriteByte(']')
		case unicode.IsLetter(r):
			alts := spellings(r)
			switch {
			case alts == nil && asIs:
				b.WriteString(name[i-n : i])
			case alts == nil:
				return false
			case len(alts) == 2 && len(alts[0]) == 1 && len(alts[1]) == 1:
				b.WriteByte('[')
				b.WriteString(alts[1]) // the lower case first: [eE]
				b.WriteString(alts[0])
				b.WriteByte(']')
			default:
				b.WriteByte('(')
				b.WriteString(strings.Join(alts, "|"))
				b.WriteByte(')')
			}
		case r < utf8.RuneSelf, asIs:
			b.WriteString(name[i-n : i])
		default:
			return false
		}
	}
	return true
}
