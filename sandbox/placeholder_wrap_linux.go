package sandbox

import "strings"

// Command's wrap helper makes the spawn's placeholders before bwrap starts
// and removes them after it ends, as NewCmd's Start and Wait do
// (startPlaceholders, phRun.finish): the argv names each protected path
// with its kind, and the caller's journal, and the helper holds the same
// shared locks on their directories from before it makes them to after
// the removal.

var protectKindLetter = map[pathKind]string{kindMissing: "m", kindDir: "d", kindFile: "f"}

// protectWords are p's protected paths as the helper's words, and this
// process's placeholder journal when there is one to name.
func protectWords(p *plan) []string {
	out := protectPathWords(p)
	if j, err := placeholderJournal(); len(out) > 0 && err == nil && j != "" {
		out = append(out, wrapHelperJournal+j)
	}
	return out
}

// protectPathWords are p's protected paths as the helper's words, without
// a journal: the reduced backend's helper makes no placeholders.
func protectPathWords(p *plan) []string {
	out := make([]string, 0, len(p.protected)+1)
	for _, f := range p.protected {
		out = append(out, wrapHelperProtect+protectKindLetter[f.kind]+":"+f.path)
	}
	return out
}

// withProtectWords puts words before the first "--" of a wrapped argv.
func withProtectWords(args, words []string) []string {
	for i, a := range args {
		if a == "--" {
			return append(append(append(make([]string, 0, len(args)+len(words)), args[:i]...), words...), args[i:]...)
		}
	}
	return args
}

// parseProtect reads one protect= word into a fact; false when it is not
// one of protectWords'.
func parseProtect(w string) (pathFact, bool) {
	v, ok := strings.CutPrefix(w, wrapHelperProtect)
	k, p, ok2 := strings.Cut(v, ":")
	if !ok || !ok2 || !strings.HasPrefix(p, "/") {
		return pathFact{}, false
	}
	for kind, letter := range protectKindLetter {
		if letter == k {
			return pathFact{path: p, kind: kind}, true
		}
	}
	return pathFact{}, false
}
