package gen

import (
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/sandtable/sandtable/internal/pathsyntax"
	"gopkg.in/yaml.v3"
)

// The SBPL filters a darwin rule may use, each built from structure and
// checked for what it holds: a path, an anchored pattern, a service or
// sysctl name, a target, an address, or other filters it combines.

// operand is what a filter kind holds.
type operand uint8

const (
	operandPath    operand = iota // an absolute path or a path variable
	operandRegex                  // an anchored pattern, or a pattern variable
	operandName                   // a Mach service or sysctl name
	operandTarget                 // a process relation: same-sandbox or self
	operandAddress                // {ip: HOST:PORT} or {unix-socket: {literal|subpath: PATH}}
	operandFilters                // a list of filters, all of which must match
	operandFilter                 // one filter, which must not match
	operandSymbol                 // a word of a closed list, or a number, written unquoted
)

// filterClass groups operations by the filters the kernel evaluates for
// them: a path filter on a sysctl would never match, and silently so.
type filterClass string

const (
	classFile    filterClass = "file"
	classMach    filterClass = "mach-lookup"
	classSysctl  filterClass = "sysctl"
	classTarget  filterClass = "process"
	classRemote  filterClass = "network-outbound"
	classLocal   filterClass = "network-bind/inbound"
	classSocket  filterClass = "socket"
	classPref    filterClass = "preference"
	classNothing filterClass = ""
)

type filterKind struct {
	operand operand
	class   filterClass // classNothing: any class (the combinators)
}

var sbplFilterKinds = map[string]filterKind{
	"literal":     {operand: operandPath, class: classFile},
	"subpath":     {operand: operandPath, class: classFile},
	"regex":       {operand: operandRegex, class: classFile},
	"global-name": {operand: operandName, class: classMach},
	"sysctl-name": {operand: operandName, class: classSysctl},
	// sysctl-name-prefix matches every name that starts with it.
	"sysctl-name-prefix": {operand: operandName, class: classSysctl},
	"target":             {operand: operandTarget, class: classTarget},
	"remote":             {operand: operandAddress, class: classRemote},
	"local":              {operand: operandAddress, class: classLocal},
	// socket-domain and socket-protocol are what socket(2) asks for;
	// preference-domain is a CFPreferences domain.
	"socket-domain":     {operand: operandSymbol, class: classSocket},
	"socket-protocol":   {operand: operandSymbol, class: classSocket},
	"preference-domain": {operand: operandName, class: classPref},
	"require-all":       {operand: operandFilters},
	"require-not":       {operand: operandFilter},
}

func sbplFilterNames() []string { return slices.Sorted(maps.Keys(sbplFilterKinds)) }

// opClass is the filter class of an operation, as its vocabulary row
// says; classNothing means the table uses the operation without filters
// only.
func opClass(op string) filterClass { return sbplOps[op].class }

var (
	machName     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@-]*$`)
	sysctlName   = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$`)
	sysctlPrefix = regexp.MustCompile(`^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*\.?$`)
	ipAddress    = regexp.MustCompile(`^(\*|localhost):(\*|[1-9][0-9]{0,4})$`)
	targets      = []string{"same-sandbox", "self"}
	addrForms    = []string{"ip", "unix-socket"}
	// socketDomains are the address families a rule may name.
	socketDomains = []string{"AF_INET", "AF_INET6", "AF_ROUTE", "AF_SYSTEM", "AF_UNIX"}
	// varHomeRegex is the home directory as a pattern matches it, each
	// metacharacter bracketed: what ^$home/ starts a regex filter with.
	varHomeRegex = "$homeregex"
	// varProxyPort is the loopback port of the proxy a macOS spawn in
	// network mode proxy reaches (sandbox/proxy_darwin.go).
	varProxyPort   = "$proxyport"
	socketProtocol = regexp.MustCompile(`^(0|[1-9][0-9]?|1[0-9][0-9]|2[0-4][0-9]|25[0-5])$`)
)

// filters reads a rule's filter list.
func (l *loader) filters(n *yaml.Node, rule string) []Filter {
	if !l.kind(n, yaml.SequenceNode, rule, "filters") {
		return nil
	}
	var out []Filter
	for _, e := range n.Content {
		if f, ok := l.filter(e, rule); ok {
			out = append(out, f)
		}
	}
	return out
}

// filter reads one {KIND: OPERAND} mapping.
func (l *loader) filter(e *yaml.Node, rule string) (Filter, bool) {
	if !l.kind(e, yaml.MappingNode, rule, "filter") {
		return Filter{}, false
	}
	if len(e.Content) != 2 {
		l.at(l.pos(e), rule, "filter: got %d keys (want exactly one of %s)", len(e.Content)/2, words(sbplFilterNames()))
		return Filter{}, false
	}
	k, v := e.Content[0], e.Content[1]
	kind, ok := sbplFilterKinds[k.Value]
	if !ok {
		l.at(l.pos(k), rule, "unknown filter %q (want one of %s)", k.Value, words(sbplFilterNames()))
		return Filter{}, false
	}
	f := Filter{Kind: k.Value}
	switch kind.operand {
	case operandFilters:
		if !l.kind(v, yaml.SequenceNode, rule, k.Value) {
			return f, false
		}
		for _, s := range v.Content {
			if sub, ok := l.filter(s, rule); ok {
				f.Of = append(f.Of, sub)
			}
		}
		if len(f.Of) < 2 {
			l.at(l.pos(v), rule, "%s: got %d filters (want at least two; one needs no require-all)", k.Value, len(v.Content))
			return f, false
		}
	case operandFilter:
		sub, ok := l.filter(v, rule)
		if !ok {
			return f, false
		}
		f.Of = []Filter{sub}
	case operandAddress:
		if !l.kind(v, yaml.MappingNode, rule, k.Value) {
			return f, false
		}
		if len(v.Content) != 2 || !slices.Contains(addrForms, v.Content[0].Value) {
			l.at(l.pos(v), rule, "%s: want exactly one of %s (as {ip: \"localhost:*\"} or {unix-socket: {literal: PATH}})", k.Value, words(addrForms))
			return f, false
		}
		f.Form = v.Content[0].Value
		if f.Form == "ip" {
			f.Value, ok = l.str(v.Content[1], rule, k.Value+" ip")
			return f, ok
		}
		sub, ok := l.filter(v.Content[1], rule)
		if !ok {
			return f, false
		}
		if sbplFilterKinds[sub.Kind].operand != operandPath {
			l.at(l.pos(v.Content[1]), rule, "%s unix-socket: got filter %s (want literal or subpath)", k.Value, sub.Kind)
			return f, false
		}
		f.Of = []Filter{sub}
	default:
		var ok bool
		if f.Value, ok = l.str(v, rule, k.Value); !ok {
			return f, false
		}
	}
	return f, true
}

// walkFilters calls fn on every filter, nested ones included.
func walkFilters(fs []Filter, fn func(Filter)) {
	for _, f := range fs {
		fn(f)
		walkFilters(f.Of, fn)
	}
}

// walkCombined is walkFilters without the path inside an address: the
// filters an operation evaluates.
func walkCombined(fs []Filter, fn func(Filter)) {
	for _, f := range fs {
		fn(f)
		if f.Form == "" {
			walkCombined(f.Of, fn)
		}
	}
}

// checkFilters checks every filter of an SBPL rule: its operand, and that
// each of the rule's operations evaluates it.
func checkFilters(c *errs, r *Rule, pos Pos) {
	for _, f := range r.Filters {
		checkFilter(c, r, pos, f)
	}
	if len(r.Filters) == 0 {
		return
	}
	for _, op := range r.Ops {
		if sbplOps[op].every {
			continue // the order check reports a filtered default
		}
		class := opClass(op)
		walkCombined(r.Filters, func(f Filter) {
			want := sbplFilterKinds[f.Kind].class
			if want == classNothing || want == class {
				return
			}
			if class == classNothing {
				c.at(pos, r.ID, "%s %s: takes no filters here (want it in a rule of its own, without filters)", r.Action, op)
				return
			}
			c.at(pos, r.ID, "%s %s: filter %s applies to %s operations and never matches here (want %s)", r.Action, op, f.Kind, want, classFilters(class))
		})
	}
}

// classFilters names the filters an operation class evaluates.
func classFilters(class filterClass) string {
	var ks []string
	for _, k := range sbplFilterNames() {
		if c := sbplFilterKinds[k].class; c == class || c == classNothing {
			ks = append(ks, k)
		}
	}
	return "one of " + words(ks)
}

func checkFilter(c *errs, r *Rule, pos Pos, f Filter) {
	bad := func(format string, args ...any) {
		c.at(pos, r.ID, "filter %s %q: "+format, append([]any{f.Kind, f.Value}, args...)...)
	}
	switch sbplFilterKinds[f.Kind].operand {
	case operandPath:
		if rest, ok := strings.CutPrefix(f.Value, varHome+"/"); ok {
			if msg := badPath("/" + rest); msg != "" || strings.Contains(rest, "$") {
				c.at(pos, r.ID, "filter %s %q: not a clean path under %s (want %s/REL)", f.Kind, f.Value, varHome, varHome)
			}
			if !slices.Contains(r.When, Cond{Word: "home"}) {
				c.at(pos, r.ID, "%s is empty without a home directory (want when: home)", varHome)
			}
			return
		}
		if strings.Contains(f.Value, "$") {
			checkOperandAt(c, r, pos, f.Value, darwinPathVars)
			return
		}
		if msg := badPath(f.Value); msg != "" {
			c.at(pos, r.ID, "filter %s %q: %s", f.Kind, f.Value, msg)
		}
	case operandRegex:
		if rest, ok := strings.CutPrefix(f.Value, "^"+varHome+"/"); ok {
			if msg := badRegex("^/" + rest); msg != "" {
				bad("%s", msg)
			}
			if !slices.Contains(r.When, Cond{Word: "home"}) {
				c.at(pos, r.ID, "%s is empty without a home directory (want when: home)", varHome)
			}
			return
		}
		if strings.HasPrefix(f.Value, "$") {
			checkOperandAt(c, r, pos, f.Value, darwinRegexVars)
			return
		}
		if msg := badRegex(f.Value); msg != "" {
			bad("%s", msg)
		}
	case operandName:
		re, what, want := machName, "a Mach service name", "letters, digits, . _ @ and -"
		switch f.Kind {
		case "sysctl-name":
			re, what, want = sysctlName, "a sysctl name", "words of letters, digits and _ joined by ."
		case "sysctl-name-prefix":
			re, what, want = sysctlPrefix, "a sysctl name prefix", "words of letters, digits and _ joined by ., perhaps ending in ."
		case "preference-domain":
			what = "a preference domain"
		}
		if !re.MatchString(f.Value) {
			bad("not %s (want %s)", what, want)
		}
	case operandTarget:
		if !slices.Contains(targets, f.Value) {
			bad("unknown target (want one of %s)", words(targets))
		}
	case operandSymbol:
		if f.Kind == "socket-domain" && !slices.Contains(socketDomains, f.Value) {
			bad("unknown address family (want one of %s)", words(socketDomains))
		}
		if f.Kind == "socket-protocol" && !socketProtocol.MatchString(f.Value) {
			bad("not a protocol number (want 0 to 255)")
		}
	case operandAddress:
		if f.Form == "ip" && f.Value == "localhost:"+varProxyPort {
			if !slices.Contains(r.When, Cond{Word: "network-proxy"}) {
				c.at(pos, r.ID, "%s has a value in network mode proxy only (want when: network-proxy)", varProxyPort)
			}
		} else if f.Form == "ip" && !ipAddress.MatchString(f.Value) {
			bad("not an address the table may name (want localhost:PORT, localhost:*, localhost:%s, *:PORT or *:*)", varProxyPort)
		}
		for _, s := range f.Of {
			checkFilter(c, r, pos, s)
		}
	default:
		for _, s := range f.Of {
			checkFilter(c, r, pos, s)
		}
	}
}

// badRegex checks a constant pattern: anchored at the start, one string
// atom SBPL reads as written (no quote, backslash or control character;
// bracket a metacharacter, as in [.], to match it literally), and a
// regular expression at all. A $ may only end it, as the anchor, alone or
// in a final (/|$). A pattern may start with ^$home/: the home directory,
// its metacharacters bracketed.
func badRegex(re string) string {
	end := strings.TrimSuffix(re, "(/|$)")
	switch {
	case !strings.HasPrefix(re, "^"):
		return "not anchored (want a pattern starting with ^)"
	case strings.ContainsAny(re, "\"\\"):
		return "contains a quote or backslash (want [.] rather than \\.)"
	case strings.Contains(strings.TrimSuffix(end, "$"), "$"):
		return "$ inside the pattern (want $ only at its end, as the anchor)"
	}
	for _, r := range re {
		if pathsyntax.IsControl(r) {
			return "contains a control character (want printable characters only)"
		}
	}
	if _, err := syntax.Parse(re, syntax.POSIX); err != nil {
		return fmt.Sprintf("does not parse: %v (want a POSIX extended regular expression)", err)
	}
	return ""
}

// filterParts renders one filter as SBPL text, a variable's value as its
// own part.
func filterParts(f Filter) []part {
	switch sbplFilterKinds[f.Kind].operand {
	case operandPath, operandRegex, operandName:
		ps := []part{{text: "(" + f.Kind + " \""}}
		if rest, ok := strings.CutPrefix(f.Value, varHome+"/"); ok {
			ps = append(ps, part{text: varHome, v: varHome}, part{text: "/" + rest})
		} else if rest, ok := strings.CutPrefix(f.Value, "^"+varHome+"/"); ok && f.Kind == "regex" {
			ps = append(ps, part{text: "^"}, part{text: varHomeRegex, v: varHomeRegex}, part{text: "/" + rest})
		} else if strings.HasPrefix(f.Value, "$") {
			ps = append(ps, part{text: f.Value, v: f.Value})
		} else {
			ps = append(ps, part{text: f.Value})
		}
		return append(ps, part{text: "\")"})
	case operandTarget:
		return []part{{text: "(target " + f.Value + ")"}}
	case operandSymbol:
		return []part{{text: "(" + f.Kind + " " + f.Value + ")"}}
	case operandAddress:
		if host, ok := strings.CutSuffix(f.Value, varProxyPort); ok && f.Form == "ip" {
			return []part{{text: "(" + f.Kind + " ip \"" + host}, {text: varProxyPort, v: varProxyPort}, {text: "\")"}}
		}
		if f.Form == "ip" {
			return []part{{text: "(" + f.Kind + " ip \"" + f.Value + "\")"}}
		}
		inner := f.Of[0]
		if inner.Kind == "literal" {
			inner.Kind = "path-literal" // its name inside an address
		}
		return append(append([]part{{text: "(" + f.Kind + " unix-socket "}}, filterParts(inner)...), part{text: ")"})
	}
	ps := []part{{text: "(" + f.Kind}}
	for _, s := range f.Of {
		ps = append(append(ps, part{text: " "}), filterParts(s)...)
	}
	return append(ps, part{text: ")"})
}

// filterKey is a filter's SBPL text with variables unexpanded: two
// filters are the same filter when their keys are equal.
func filterKey(f Filter) string {
	s := ""
	for _, p := range filterParts(f) {
		s += p.text
	}
	return s
}

func filterEqual(a, b Filter) bool { return filterKey(a) == filterKey(b) }

func filterKeys(fs []Filter) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = filterKey(f)
	}
	return out
}

// isPathFilter reports whether a filter names a path a reviewer can place
// (literal or subpath at the top of a rule).
func isPathFilter(f Filter) bool { return sbplFilterKinds[f.Kind].operand == operandPath }

// filterShow is how the semantic diff lists a filter: "subpath /usr" for
// a path filter as before, the SBPL text for the others.
func filterShow(key string) string {
	for _, k := range []string{"literal", "subpath"} {
		if v, ok := strings.CutPrefix(key, "("+k+" \""); ok && strings.HasSuffix(v, "\")") && !strings.Contains(v, "(") {
			return k + " " + strings.TrimSuffix(v, "\")")
		}
	}
	return key
}

// sbplFilterContains judges the filters beyond paths for the semantic
// diff: a require-all matches no more than any of its parts, a wildcard
// address more than any address, and nothing else is known to contain
// anything but itself.
func sbplFilterContains(a, b Filter) bool {
	switch {
	case b.Kind == "require-all":
		for _, s := range b.Of {
			if filterContains(a, s) {
				return true
			}
		}
	case a.Kind == b.Kind && a.Form == "ip" && b.Form == "ip":
		ah, ap, _ := strings.Cut(a.Value, ":")
		bh, bp, _ := strings.Cut(b.Value, ":")
		return (ah == "*" || ah == bh) && (ap == "*" || ap == bp)
	case a.Kind == b.Kind && a.Form == "unix-socket" && b.Form == "unix-socket":
		return filterContains(a.Of[0], b.Of[0])
	}
	return false
}
