package sandbox

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// An evaluator for the SBPL the rule table emits, so the macOS profile's
// decisions are tested here, where no Mac runs it. Its semantics: the
// profile's forms are read in order; a form matches a request when one of
// its operations names the request's operation (exactly, or as a prefix
// ending in *; default names every operation) and, if it has filters, at
// least one of them matches; the last matching form decides; when none
// matches the answer is allow, SBPL's own default. It knows the filters
// the table can emit (literal, subpath, regex, require-all, require-any,
// require-not, remote and local with ip or unix-socket, global-name,
// sysctl-name, sysctl-name-prefix, target, socket-domain,
// socket-protocol, preference-domain) and refuses any other.
//
// Where it can differ from the kernel, the README says at length: it
// compares paths as bytes (the kernel sees resolved paths on a file
// system that is case-insensitive), uses Go's POSIX regular expressions,
// asks about one operation at a time (one system call can be several
// checks), and reads localhost as 127.0.0.1, ::1 and the name.

// sbplRequest is one access: an operation and what it is about.
type sbplRequest struct {
	op         string
	path       string // file operations
	remoteIP   string // network-outbound to HOST:PORT
	remoteUnix string // network-outbound to a unix socket
	localIP    string // network-bind, network-inbound on HOST:PORT
	name       string // mach-lookup
	sysctl     string // sysctl-read
	target     string // signal, process-info*: "same-sandbox" or "other"
	domain     string // system-socket: AF_SYSTEM, AF_UNIX, ...
	protocol   string // system-socket: the protocol number
	pref       string // user-preference-read: the preference domain
}

func (q sbplRequest) String() string {
	if q.domain != "" {
		return q.op + " " + q.domain + " " + q.protocol
	}
	for _, s := range []string{q.path, q.remoteIP, q.remoteUnix, q.localIP, q.name, q.sysctl, q.target, q.pref} {
		if s != "" {
			return q.op + " " + s
		}
	}
	return q.op
}

// sbplForm is one allow or deny form and the rule that emitted it.
type sbplForm struct {
	rule    string
	allow   bool
	ops     []string
	filters []sexp
}

// readPolicy reads a profile's forms, each tagged with the rule of the
// step it came from.
func readPolicy(steps []Step) ([]sbplForm, error) {
	var out []sbplForm
	for _, s := range steps {
		for _, text := range s.Args {
			forms, err := readSexps(text)
			if err != nil {
				return nil, err
			}
			for _, f := range forms {
				if f.kind != sexpList || len(f.items) == 0 || f.items[0].kind != sexpSymbol {
					return nil, fmt.Errorf("rule %s: not a form: %s", s.Rule, f)
				}
				head := f.items[0].text
				if head == "version" {
					continue
				}
				if head != "allow" && head != "deny" {
					return nil, fmt.Errorf("rule %s: unknown form %s", s.Rule, head)
				}
				form := sbplForm{rule: s.Rule, allow: head == "allow"}
				for _, it := range f.items[1:] {
					switch it.kind {
					case sexpSymbol:
						form.ops = append(form.ops, it.text)
					case sexpList:
						if err := checkFilterSexp(it); err != nil {
							return nil, fmt.Errorf("rule %s: %w", s.Rule, err)
						}
						form.filters = append(form.filters, it)
					default:
						return nil, fmt.Errorf("rule %s: stray string in %s", s.Rule, f)
					}
				}
				out = append(out, form)
			}
		}
	}
	return out, nil
}

// evalFilterKinds are the filters the evaluator knows.
var evalFilterKinds = map[string]bool{
	"literal": true, "subpath": true, "regex": true, "require-all": true, "require-any": true,
	"require-not": true, "remote": true, "local": true, "global-name": true, "sysctl-name": true,
	"sysctl-name-prefix": true, "target": true, "socket-domain": true, "socket-protocol": true,
	"preference-domain": true,
}

func checkFilterSexp(f sexp) error {
	if len(f.items) < 2 || f.items[0].kind != sexpSymbol || !evalFilterKinds[f.items[0].text] {
		return fmt.Errorf("a filter the evaluator does not know: %s", f)
	}
	return nil
}

// decide returns the answer to q and the form that gave it (-1: none
// matched).
func decide(forms []sbplForm, q sbplRequest) (allow bool, at int) {
	allow, at = true, -1
	for i, f := range forms {
		if formMatches(f, q) {
			allow, at = f.allow, i
		}
	}
	return allow, at
}

func formMatches(f sbplForm, q sbplRequest) bool {
	named := false
	for _, op := range f.ops {
		if op == "default" || op == q.op {
			named = true
		} else if p, ok := strings.CutSuffix(op, "*"); ok && strings.HasPrefix(q.op, p) {
			named = true
		}
	}
	if !named {
		return false
	}
	if len(f.filters) == 0 {
		return true
	}
	for _, fl := range f.filters {
		if filterMatches(fl, q) {
			return true
		}
	}
	return false
}

func filterMatches(f sexp, q sbplRequest) bool {
	kind := f.items[0].text
	arg := f.items[1]
	str := func() string { return arg.text }
	switch kind {
	case "literal", "path-literal":
		return q.path != "" && q.path == str()
	case "subpath":
		return q.path != "" && (str() == "/" || q.path == str() || strings.HasPrefix(q.path, str()+"/"))
	case "regex":
		return q.path != "" && regexp.MustCompilePOSIX(str()).MatchString(q.path)
	case "require-all", "require-any":
		for _, s := range f.items[1:] {
			m := filterMatches(s, q)
			if kind == "require-all" && !m {
				return false
			}
			if kind == "require-any" && m {
				return true
			}
		}
		return kind == "require-all"
	case "require-not":
		return !filterMatches(arg, q)
	case "remote", "local":
		addr := q.remoteIP
		unix := q.remoteUnix
		if kind == "local" {
			addr, unix = q.localIP, ""
		}
		switch arg.text {
		case "ip":
			return addr != "" && ipMatches(f.items[2].text, addr)
		case "unix-socket":
			return unix != "" && filterMatches(f.items[2], sbplRequest{path: unix})
		}
		return false
	case "global-name":
		return q.name == str()
	case "sysctl-name":
		return q.sysctl == str()
	case "sysctl-name-prefix":
		return q.sysctl != "" && strings.HasPrefix(q.sysctl, str())
	case "target":
		return q.target != "" && (q.target == str() || str() == "same-sandbox" && q.target == "self")
	case "socket-domain":
		return q.domain == str()
	case "socket-protocol":
		return q.protocol == str()
	case "preference-domain":
		return q.pref != "" && q.pref == str()
	}
	return false
}

// ipMatches reads HOST:PORT patterns: * for any host or port, localhost
// for the loopback addresses.
func ipMatches(pattern, addr string) bool {
	ph, pp, _ := strings.Cut(pattern, ":")
	i := strings.LastIndex(addr, ":")
	ah, ap := addr[:i], addr[i+1:]
	hostOK := ph == "*" || ph == ah || ph == "localhost" && (ah == "127.0.0.1" || ah == "::1" || ah == "localhost")
	return hostOK && (pp == "*" || pp == ap)
}

// TestSBPLEvaluator checks the evaluator on forms whose answers SBPL's
// semantics fix, including the last-match rule the profile relies on.
func TestSBPLEvaluator(t *testing.T) {
	steps := []Step{{Rule: "r", Args: []string{
		"(version 1)\n(deny default)\n",
		"(allow file-read* (subpath \"/usr\") (literal \"/\"))\n",
		"(deny file-read* (regex \"^/usr/[sS]ecret(/|$)\"))\n",
		"(allow file-read-metadata (require-all (subpath \"/usr/secret\") (require-not (literal \"/usr/secret/k\"))))\n",
		"(allow network-outbound (remote ip \"localhost:*\"))\n",
		"(allow network-outbound (remote unix-socket (path-literal \"/var/run/s\")))\n",
		"(allow mach-lookup (global-name \"com.apple.logd\"))\n",
		"(allow sysctl-read (sysctl-name-prefix \"hw.optional.\"))\n",
		"(allow signal (target same-sandbox))\n",
		"(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)) (socket-domain AF_UNIX))\n",
		"(allow user-preference-read (preference-domain \"kCFPreferencesAnyApplication\"))\n",
	}}}
	forms, err := readPolicy(steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		q    sbplRequest
		want bool
	}{
		{sbplRequest{op: "file-read-data", path: "/usr/bin/true"}, true},
		{sbplRequest{op: "file-read-data", path: "/usrx"}, false},
		{sbplRequest{op: "file-read-data", path: "/"}, true},
		{sbplRequest{op: "file-write-data", path: "/usr/bin/true"}, false},
		{sbplRequest{op: "file-read-data", path: "/usr/Secret/k"}, false},
		{sbplRequest{op: "file-read-metadata", path: "/usr/secret/j"}, true},
		{sbplRequest{op: "file-read-metadata", path: "/usr/secret/k"}, false},
		{sbplRequest{op: "network-outbound", remoteIP: "127.0.0.1:80"}, true},
		{sbplRequest{op: "network-outbound", remoteIP: "203.0.113.7:80"}, false},
		{sbplRequest{op: "network-outbound", remoteUnix: "/var/run/s"}, true},
		{sbplRequest{op: "network-outbound", remoteUnix: "/var/run/t"}, false},
		{sbplRequest{op: "mach-lookup", name: "com.apple.logd"}, true},
		{sbplRequest{op: "mach-lookup", name: "com.apple.pasteboard.1"}, false},
		{sbplRequest{op: "sysctl-read", sysctl: "hw.optional.avx2_0"}, true},
		{sbplRequest{op: "sysctl-read", sysctl: "kern.procargs2"}, false},
		{sbplRequest{op: "signal", target: "same-sandbox"}, true},
		{sbplRequest{op: "signal", target: "other"}, false},
		{sbplRequest{op: "system-socket", domain: "AF_SYSTEM", protocol: "2"}, true},
		{sbplRequest{op: "system-socket", domain: "AF_SYSTEM", protocol: "1"}, false},
		{sbplRequest{op: "system-socket", domain: "AF_UNIX", protocol: "0"}, true},
		{sbplRequest{op: "system-socket", domain: "AF_ROUTE", protocol: "0"}, false},
		{sbplRequest{op: "user-preference-read", pref: "kCFPreferencesAnyApplication"}, true},
		{sbplRequest{op: "user-preference-read", pref: "com.apple.Safari"}, false},
	} {
		if got, _ := decide(forms, c.q); got != c.want {
			t.Errorf("%s: allow=%v, want %v", c.q, got, c.want)
		}
	}
	if _, err := readPolicy([]Step{{Rule: "x", Args: []string{"(allow file-read* (vnode-type DIRECTORY))"}}}); err == nil {
		t.Error("an unknown filter was read; the evaluator must refuse what it cannot judge")
	}
}
