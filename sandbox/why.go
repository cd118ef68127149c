package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/sandtable/sandtable/internal/proxy"
)

// Answer is what the sandbox a Config describes decides about one target,
// and the row of the table that decides it.
type Answer struct {
	// Target is the target as the sandbox sees it: a path resolved through
	// its symlinks, HOST:PORT, or a variable's name.
	Target string
	// Kind is "path", "socket", "host" or "env".
	Kind string
	// Decision is one word. A path or socket: hidden, redacted,
	// read-only, protected, writable, private (the sandbox's own, such
	// as /tmp) or reachable (a granted socket). A host: reachable or
	// refused. A variable: stripped, set (by the table), passed or unset.
	Decision string
	// Rule is the row that decides; Rule.Source is its place in rules/.
	Rule Rule
	// Via is the row that carries Rule out, when that is another one (the
	// mount hide-dir for the default hidden path hide-ssh); nil otherwise.
	Via *Rule
	// Change is the flag of sandtable run that would change Decision
	// (--reveal, --write, --allow-host, --keep-env ...), "" when none does.
	Change string
	// Refused is the refuse row that forbids Change, nil when it is allowed.
	Refused *Rule
	// Detail is the decision in a line of words.
	Detail string

	origin string // the path of the row's entry that decides (a hidden directory)
}

// Why answers, for goos and cfg, what the sandbox decides about target and
// which row decides it, from the plan a spawn makes (on Linux its bwrap
// argv: the last mount over a path decides it). target is an absolute path,
// a URL or HOST:PORT (a name with a dot or a colon), or else the name of an
// environment variable. The policy does not matter: it answers for the
// sandbox, as [Explain] does. A Config the plan refuses is the error.
func Why(goos string, cfg Config, target string) (Answer, error) {
	cfg.Policy = Required
	switch {
	case strings.HasPrefix(target, "/"):
		return whyPath(goos, cfg, target)
	case strings.Contains(target, "://") || strings.ContainsAny(target, ".:[") && !envNameLike(target):
		return whyHost(goos, cfg, target)
	case envNameLike(target):
		return whyEnv(goos, cfg, target)
	}
	return Answer{}, fmt.Errorf("sandbox: why %q: want an absolute path, a URL, HOST:PORT or a variable's name: %w", target, ErrBadPolicy)
}

// RefusedBy returns the refuse row that refused a Config, when err is such
// a refusal.
func RefusedBy(err error) (Rule, bool) {
	var r *refusedError
	if errors.As(err, &r) {
		return ruleFor("any", r.rule), true
	}
	var pe *pathError
	if errors.As(err, &pe) && pe.rule != "" {
		return ruleFor("any", pe.rule), true
	}
	return Rule{}, false
}

// refusedError is a refusal of the refuse stage: the row's id and what it
// refused.
type refusedError struct {
	rule string
	err  error
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

func envNameLike(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// ruleFor finds the row id on goos (or a shared one), a row named but
// missing from the table being a bug of the generator.
func ruleFor(goos, id string) Rule {
	for _, r := range ruleTable {
		if r.ID == id && (r.Platform == goos || r.Platform == "any") {
			return r
		}
	}
	return Rule{ID: id}
}

func rulePtr(r Rule) *Rule { return &r }

// whyPath answers for a path from the mounts of the Linux argv, or the
// plan's lists on macOS.
func whyPath(goos string, cfg Config, target string) (Answer, error) {
	if err := checkPath("path", target); err != nil {
		return Answer{}, err
	}
	var r resolver
	p, err := newPlanWith(&r, goos, cfg)
	if err != nil {
		return Answer{}, err
	}
	real, fi, _ := r.resolve(target)
	a := Answer{Target: real, Kind: "path"}
	if fi != nil && fi.Mode().Type()&fs.ModeSocket != 0 || p.lists(p.sockets, real) || p.lists(p.socketGrants, real) {
		a.Kind = "socket"
	}
	switch goos {
	case "linux":
		_, hf, err := hostProgramWith(goos, p, &r, checkNone)
		if err != nil {
			return Answer{}, err
		}
		linuxPathAnswer(&a, p, linuxSteps(p.with(hf)))
		if a.Decision != "hidden" {
			linuxAbsentHidden(&a, p)
		}
	case "darwin":
		darwinPathAnswer(&a, p)
	default:
		return Answer{}, &unavailableError{reason: "no sandbox for GOOS " + goos}
	}
	whyPathChange(&a, goos, cfg, p)
	return a, nil
}

// lists reports whether facts hold path.
func (p *plan) lists(facts []pathFact, path string) bool {
	_, ok := factAt(facts, path)
	return ok
}

func factAt(facts []pathFact, path string) (pathFact, bool) {
	for _, f := range facts {
		if f.path == path {
			return f, true
		}
	}
	return pathFact{}, false
}

// covers reports whether a mount at dst decides path.
func coversPath(dst, path string) bool {
	return dst == "/" || dst == path || strictlyUnder(path, dst)
}

// linuxPathAnswer decides a from the argv's steps: the last mount over the
// path, then a --remount-ro over that mount.
func linuxPathAnswer(a *Answer, p *plan, steps []Step) {
	last, readOnly := -1, false
	for i, s := range steps {
		if len(s.Args) < 2 {
			continue
		}
		flag := s.Args[mountFlagAt(s.Args)]
		dst := s.Args[len(s.Args)-1]
		if !coversPath(dst, a.Target) {
			continue
		}
		if bwrapRemountRO(flag) {
			readOnly = last >= 0
			continue
		}
		if bwrapMount(flag) == mountNone {
			continue
		}
		last, readOnly = i, false
	}
	if last < 0 {
		return // no --ro-bind / /: a table without its first row
	}
	s := steps[last]
	flag := s.Args[mountFlagAt(s.Args)]
	dst := s.Args[len(s.Args)-1]
	mech := ruleFor("linux", s.Rule)
	a.Rule = mech
	switch {
	case mech.For == "hidden" || mech.For == "sockets" || mech.For == "cache-root" || mech.For == "socket-dirs":
		a.Decision = "hidden"
		a.Detail = "the sandbox shows an empty " + map[bool]string{true: "directory", false: "file"}[bwrapMount(flag) == mountFresh] + " in its place"
		if dst != a.Target {
			a.Detail = "it lies in " + dst + ", which the sandbox shows empty"
		}
		switch mech.For {
		case "hidden":
			whyOrigin(a, "linux", p.hidden, dst, mech)
		case "cache-root":
			a.Detail = "other workspaces' tool caches: the sandbox shows only this workspace's own"
		case "socket-dirs":
			a.Detail = "in a directory of host sockets the sandbox rebuilds without them"
		default:
			a.Detail = "a host socket, which the sandbox replaces by an empty file"
		}
	case mech.For == "redacted":
		a.Decision = "redacted"
		a.Detail = "the command reads a copy without its credentials"
		whyOrigin(a, "linux", p.redacted, dst, mech)
	case mech.For == "protected":
		a.Decision = "protected"
		a.Detail = "read-only inside a writable root: it runs later, outside the sandbox"
		whyOrigin(a, "linux", p.protected, dst, mech)
	case mech.For == "socket-grants":
		a.Decision = "reachable"
		a.Detail = "a socket the caller granted"
	case bwrapMount(flag) == mountFresh || s.Rule == "dns-stub":
		a.Decision = "private"
		a.Detail = "the sandbox's own: nothing written there reaches the host"
		if readOnly {
			a.Detail = "the sandbox's own, read-only"
		}
	case bwrapHostWrite(flag):
		a.Decision = "writable"
		a.Detail = "writes land on the host"
		if mech.For == "caches" {
			whyOrigin(a, "linux", p.caches, dst, mech)
			a.Detail = "a private tool cache: writes persist for later runs in this workspace"
		}
		if readOnly {
			a.Decision, a.Detail = "read-only", "mounted read-only again"
		}
	default:
		a.Decision = "read-only"
		a.Detail = "readable as on the host; writes fail"
	}
}

// linuxAbsentHidden answers for a path a hidden path holds that is not on
// the host now: no mount hides it, and a run where it appears is stopped
// (the watch's row for hidden paths).
func linuxAbsentHidden(a *Answer, p *plan) {
	for _, f := range p.hidden {
		if f.kind != kindMissing || !coversPath(f.path, a.Target) {
			continue
		}
		a.Decision = "hidden"
		a.Detail = "not on the host now: nothing to hide, and a run it appears in is stopped"
		a.Rule = ruleFor("linux", "stop-on-hidden-replaced")
		whyOrigin(a, "linux", p.hidden, f.path, a.Rule)
		return
	}
}

// whyOrigin makes the row that put dst in the plan (a default-hidden,
// redact, protect or caches row) the answer's rule, the mount its Via. A
// path the Config itself names keeps the mount as its rule.
func whyOrigin(a *Answer, goos string, facts []pathFact, dst string, mech Rule) {
	f, ok := factAt(facts, dst)
	if !ok || f.rule == "" {
		a.Detail += " (a path the caller named)"
		return
	}
	a.Rule = ruleFor(goos, f.rule)
	a.origin = f.path
	if mech.ID != a.Rule.ID {
		a.Via = rulePtr(mech)
	}
}

// darwinPathAnswer decides a from the plan's lists, as the profile's rows
// do: a hidden or redacted path denied, a protected one denied to writes,
// the writable roots allowed, the rest left to the read allowlist.
func darwinPathAnswer(a *Answer, p *plan) {
	best := func(facts []pathFact) (pathFact, bool) {
		var out pathFact
		found := false
		for _, f := range facts {
			if coversPath(f.path, a.Target) && (!found || len(f.path) > len(out.path)) {
				out, found = f, true
			}
		}
		return out, found
	}
	if f, ok := best(p.hidden); ok && !f.ancestor {
		a.Decision, a.Detail = "hidden", "the profile denies reading and writing it"
		mech := ruleFor("darwin", map[bool]string{true: "hide-file", false: "hide-dir"}[f.kind == kindFile])
		a.Rule = mech
		whyOrigin(a, "darwin", p.hidden, f.path, mech)
		return
	}
	if f, ok := best(p.cacheRoots); ok && !f.ancestor {
		if c, own := best(p.caches); !own || len(c.path) < len(f.path) {
			a.Decision, a.Detail = "hidden", "other workspaces' tool caches: the profile allows only this workspace's own"
			a.Rule = ruleFor("darwin", "hide-cache-root")
			return
		}
	}
	if f, ok := best(p.redacted); ok {
		a.Decision, a.Detail = "redacted", "the profile denies it"
		a.Rule = ruleFor("darwin", "redact-file")
		whyOrigin(a, "darwin", p.redacted, f.path, a.Rule)
		return
	}
	if f, ok := best(p.protected); ok {
		a.Decision, a.Detail = "protected", "the profile denies writing it: it runs later, outside the sandbox"
		a.Rule = ruleFor("darwin", "protect-deny")
		whyOrigin(a, "darwin", p.protected, f.path, a.Rule)
		return
	}
	if f, ok := best(p.caches); ok {
		a.Decision, a.Detail = "writable", "a private tool cache: writes persist for later runs in this workspace"
		a.Rule = ruleFor("darwin", "cache-bind")
		whyOrigin(a, "darwin", p.caches, f.path, a.Rule)
		return
	}
	for _, f := range p.write {
		if coversPath(f.path, a.Target) {
			a.Decision, a.Detail, a.Rule = "writable", "writes land on the host", ruleFor("darwin", "write-path")
			return
		}
	}
	if coversPath(p.workspace, a.Target) {
		a.Decision, a.Detail, a.Rule = "writable", "writes land on the host", ruleFor("darwin", "write-allowlist")
		return
	}
	for _, f := range p.read {
		if coversPath(f.path, a.Target) {
			a.Decision, a.Detail, a.Rule = "read-only", "readable as on the host; writes fail", ruleFor("darwin", "read-path")
			return
		}
	}
	a.Decision, a.Detail, a.Rule = "read-only", "readable where the read allowlist names it (system directories), denied elsewhere", ruleFor("darwin", "read-allowlist")
}

// whyPathChange names the flag that would change a path's decision and
// plans the Config with it, so a refuse row that forbids it is named.
func whyPathChange(a *Answer, goos string, cfg Config, p *plan) {
	switch {
	case (a.Decision == "hidden" || a.Decision == "redacted") && a.Via != nil:
		a.Change = "--reveal " + a.origin
		cfg.Reveal = append(cfg.Reveal, a.origin)
	case a.Decision == "protected" && a.Rule.When != "" && strings.Contains(a.Rule.When, "allow-git-config"):
		a.Change = "--allow-git-config"
		cfg.AllowGitConfig = true
	case a.Decision == "read-only" && a.Kind == "path":
		dir := a.Target
		var r resolver
		for !r.isDir(dir) && dir != "/" {
			dir = path.Dir(dir)
		}
		a.Change = "--write " + dir
		cfg.Write = append(cfg.Write, dir)
	default:
		return
	}
	if _, err := newPlan(goos, cfg); err != nil {
		if row, ok := RefusedBy(err); ok {
			a.Refused = &row
		} else {
			a.Change += " (refused: " + err.Error() + ")"
		}
	}
}

// whyHost answers for a destination from the network mode and, in mode
// proxy, the proxy's own policy (its lists, the one resolution, each
// address checked), without dialling.
func whyHost(goos string, cfg Config, target string) (Answer, error) {
	host, port, err := hostTarget(target)
	if err != nil {
		return Answer{}, err
	}
	cfg = withDefaultNetwork(goos, cfg)
	if err := checkConfig(cfg); err != nil {
		return Answer{}, err
	}
	a := Answer{Target: net.JoinHostPort(host, strconv.Itoa(port)), Kind: "host"}
	mode, _ := networkMode(cfg)
	switch mode {
	case NetworkOff:
		a.Decision, a.Detail = "refused", "the network is off: the sandbox has no route out"
		a.Rule = ruleFor(goos, map[string]string{"linux": "unshare-all", "darwin": "deny-default"}[goos])
		a.Change = "--network proxy"
		return a, nil
	case NetworkHost:
		a.Decision, a.Detail = "reachable", "the host's network, unfiltered"
		a.Rule = ruleFor(goos, map[string]string{"linux": "share-net", "darwin": "network-outbound-ip"}[goos])
		return a, nil
	}
	px, err := newProxy(cfg.Network, nil)
	if err != nil {
		return Answer{}, err
	}
	a.Rule = ruleFor(goos, map[string]string{"linux": "proxy-net", "darwin": "proxy-outbound"}[goos])
	ip, err := px.Decide(context.Background(), host, port)
	if err == nil {
		a.Decision = "reachable"
		a.Detail = "through the proxy, to " + ip.Unmap().String()
		if px.HasAllowlist() {
			a.Detail += ", listed in the allowlist"
		}
		return a, nil
	}
	var rf *proxy.Refusal
	var re *proxy.ResolveError
	switch {
	case errors.As(err, &rf):
		a.Decision, a.Detail = "refused", strings.TrimPrefix(rf.Msg, "sandbox: ")
		if rf.Rule != "proxy-net" {
			a.Via = rulePtr(a.Rule)
			a.Rule = ruleFor("any", rf.Rule)
		}
		if i := strings.Index(rf.Msg, "allow it with "); i >= 0 {
			a.Change, _, _ = strings.Cut(rf.Msg[i+len("allow it with "):], " (")
		}
	case errors.As(err, &re):
		a.Decision, a.Detail = "refused", "the proxy cannot resolve it here: "+re.Error()
	default:
		return Answer{}, err
	}
	return a, nil
}

// hostTarget reads a URL (its host and port, the scheme's port when it
// names none) or HOST:PORT (port 443 when it names none).
func hostTarget(s string) (string, int, error) {
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", 0, fmt.Errorf("sandbox: why %q: not a URL with a host: %w", s, ErrBadPolicy)
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "ssh": "22", "git": "9418"}[u.Scheme]
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("sandbox: why %q: no port for scheme %q (write HOST:PORT): %w", s, u.Scheme, ErrBadPolicy)
		}
		return u.Hostname(), n, nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = strings.Trim(s, "[]"), "443"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("sandbox: why %q: port %q is not 1-65535: %w", s, port, ErrBadPolicy)
	}
	return host, n, nil
}

// whyEnv answers for a variable from the environment a spawn gives the
// command: the strip rows, the keep rows and Config.KeepEnv, then what the
// table sets.
func whyEnv(goos string, cfg Config, name string) (Answer, error) {
	p, err := newPlan(goos, cfg)
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Target: name, Kind: "env"}
	for _, kv := range tableEnv(p) {
		if strings.HasPrefix(kv, name+"=") {
			a.Decision, a.Detail = "set", "the table sets it: "+kv
			a.Rule = ruleFor("any", tableEnvRule(p, name))
			return a, nil
		}
	}
	value, set := os.LookupEnv(name)
	if !set {
		value = "x" // a name row decides without a value
	}
	if rule := envRemovedBy(name + "=" + value); rule != "" {
		a.Rule = ruleFor("any", rule)
		if envKept(name) || keeps(cfg.KeepEnv, name) {
			a.Decision, a.Detail = "passed", "a strip row names it, and a keep row or --keep-env passes it on"
			return a, nil
		}
		a.Decision, a.Detail, a.Change = "stripped", "the command does not see it", "--keep-env "+name
		if !set {
			a.Detail += " (not set here)"
		}
		return a, nil
	}
	if cfg.Env != nil && !setIn(cfg.Env, name) && !keeps(cfg.KeepEnv, name) && !envKept(name) {
		a.Decision, a.Detail, a.Change = "unset", "Config.Env replaces the environment and does not name it", "--keep-env "+name
		return a, nil
	}
	a.Decision, a.Detail = "passed", "no row strips it"
	if !set {
		a.Decision, a.Detail = "unset", "not set here; no row would strip it"
	}
	return a, nil
}

// tableEnvRule is the row that sets name in the command's environment.
func tableEnvRule(p *plan, name string) string {
	for _, c := range cacheDirs {
		if c.env == name {
			return c.id
		}
	}
	for i, kv := range offlineEnv {
		if strings.HasPrefix(kv, name+"=") {
			return offlineEnvRules[i]
		}
	}
	return ""
}

// HiddenPath is one entry of the hidden set of a Config, resolved on this
// machine: a default-hidden or redact row, or a path the Config hides.
type HiddenPath struct {
	Rule Rule   // the row; its ID is "" for a path of Config.Hidden
	Path string // resolved; "" when the row names nothing here
	// State is hidden (the path exists and is hidden), absent (nothing
	// there now: on Linux nothing is mounted, and a run it appears in is
	// stopped), redacted (served without its credentials), or none (the
	// row names no path here: revealed, its variable unset, or no home).
	State string
}

// HiddenSet lists cfg's hidden set for goos as the plan resolves it here:
// the table's default-hidden rows in table order, each with what it hides
// (a derived row may hide several paths), then the redact rows, then
// Config.Hidden.
func HiddenSet(goos string, cfg Config) ([]HiddenPath, error) {
	cfg.Policy = Required
	p, err := newPlan(goos, cfg)
	if err != nil {
		return nil, err
	}
	var out []HiddenPath
	add := func(id string, facts []pathFact, state func(pathFact) string) {
		found := false
		for _, f := range facts {
			if f.rule == id {
				out = append(out, HiddenPath{Rule: ruleFor("any", id), Path: f.path, State: state(f)})
				found = true
			}
		}
		if !found {
			out = append(out, HiddenPath{Rule: ruleFor("any", id), State: "none"})
		}
	}
	hiddenState := func(f pathFact) string {
		if f.kind == kindMissing {
			return "absent"
		}
		return "hidden"
	}
	for _, d := range defaultHidden {
		add(d.id, p.hidden, hiddenState)
	}
	for _, rf := range redactFiles {
		add(rf.id, p.redacted, func(pathFact) string { return "redacted" })
	}
	for _, f := range p.hidden {
		if f.rule == "" {
			out = append(out, HiddenPath{Path: f.path, State: hiddenState(f)})
		}
	}
	return out, nil
}
