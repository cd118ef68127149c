package sandbox

import (
	"errors"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The fuzz targets hold the builders to the one promise that makes pasting
// paths safe: whatever the validator accepts reaches bwrap as exactly one
// argv element and Seatbelt as exactly one string atom, and whatever it
// rejects is an ErrBadPath. `make fuzz` runs each target; the seeds below
// and under testdata/fuzz/ run with every `go test`.

// fuzzSeeds are paths to start from: ordinary, SBPL-looking, option-looking,
// very long, and each kind of rejected one.
func fuzzSeeds() []string {
	return append(hostilePaths(),
		"/", "/home/u/ws", "/home/u/.ssh", "/run/docker.sock",
		"", "relative", "./x", "/a/../b", "/a//b", "/a/", "/a/.",
		"/a\"b", `/a\b`, "/a\x00b", "/a\nb", "/a\tb", "/a\x7fb", "/a\u0085b", "/\xff\xfe",
	)
}

func FuzzCheckPath(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		err := checkPath("fuzz path", p)
		if err != nil {
			if !errors.Is(err, ErrBadPath) {
				t.Fatalf("checkPath(%q) = %v, which is not an ErrBadPath", p, err)
			}
			if want := "sandbox: fuzz path " + strconv.Quote(p) + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("checkPath(%q) = %q, want it to start with %q", p, err, want)
			}
			return
		}
		// The rules again, independently of how validate.go spells them.
		switch {
		case !strings.HasPrefix(p, "/"):
			t.Fatalf("accepted %q: not absolute", p)
		case !utf8.ValidString(p):
			t.Fatalf("accepted %q: not UTF-8", p)
		case path.Clean(p) != p:
			t.Fatalf("accepted %q: not clean", p)
		case strings.ContainsAny(p, "\"\\"):
			t.Fatalf("accepted %q: a quote or backslash would end or escape an SBPL string", p)
		case strings.ContainsFunc(p, unicode.IsControl):
			t.Fatalf("accepted %q: a control character", p)
		}
	})
}

// fuzzPlan validates four paths as the runtime would and builds the plan a
// config with them yields; it reports false for a rejected input, after
// checking that the rejection is an ErrBadPath.
func fuzzPlan(t *testing.T, ws, read, write, hidden string, kind, flags uint8) (*plan, bool) {
	for _, in := range []struct{ field, p string }{
		{"workspace", ws}, {"read path", read}, {"write path", write}, {"hidden path", hidden},
	} {
		if err := checkPath(in.field, in.p); err != nil {
			if !errors.Is(err, ErrBadPath) {
				t.Fatalf("checkPath(%q) = %v, which is not an ErrBadPath", in.p, err)
			}
			return nil, false
		}
	}
	p := &plan{
		workspace:     ws,
		read:          []pathFact{fact(read, kindDir, ws)},
		write:         []pathFact{fact(write, kindDir, ws)},
		hidden:        []pathFact{fact(hidden, pathKind(kind%3), ws)},
		network:       flags&1 != 0,
		netHost:       flags&1 != 0,
		interactive:   flags&2 != 0,
		disableUserns: flags&4 != 0,
		callerRoot:    flags&8 != 0,
	}
	p.numberFiles(flags&16 != 0)
	if flags&32 != 0 {
		p.statusFD = "9" // NewCmd's, after the caller's ExtraFiles
	}
	p.pins = pinFacts(p)
	p.mounts = sortMounts(linuxMounts(p, nil))
	return p, true
}

func addPlanSeeds(f *testing.F) {
	f.Add("/home/u/ws", "/opt/sdk", "/home/u/.cache/go-build", "/home/u/.ssh", uint8(kindDir), uint8(0b0111))
	f.Add("/home/u/ws", "/home/u/ws/vendor", "/home/u/ws/out", "/home/u/ws/.env", uint8(kindFile), uint8(0b1000))
	f.Add("/srv/hidden/ws", "/srv/hidden/ws/r", "/srv/w", "/srv/hidden", uint8(kindDir), uint8(0))
	f.Add("/home/u/ws", "/r", "/w", "/home/u/.aws", uint8(kindMissing), uint8(0b1111))
	f.Add("/home/u/ws", "/r", "/w", "/home/u/ws", uint8(kindDir), uint8(1))
	seeds := fuzzSeeds()
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)], seeds[(i+2)%len(seeds)], seeds[(i+3)%len(seeds)], uint8(i), uint8(i))
	}
}

func FuzzDarwinProfile(f *testing.F) {
	addPlanSeeds(f)
	f.Fuzz(func(t *testing.T, ws, read, write, hidden string, kind, flags uint8) {
		if p, ok := fuzzPlan(t, ws, read, write, hidden, kind, flags); ok {
			checkDarwinPlan(t, "fuzz", p)
		}
	})
}

func FuzzLinuxArgs(f *testing.F) {
	addPlanSeeds(f)
	f.Fuzz(func(t *testing.T, ws, read, write, hidden string, kind, flags uint8) {
		if p, ok := fuzzPlan(t, ws, read, write, hidden, kind, flags); ok {
			checkLinuxPlan(t, "fuzz", p)
		}
	})
}

// TestLinuxArgsWellFormed runs the argv check over the golden matrix and
// the hostile plans, as TestProfileWellFormed does for profiles.
func TestLinuxArgsWellFormed(t *testing.T) {
	for _, c := range profileCases {
		checkLinuxPlan(t, c.name, newTestPlan(c))
	}
	for i, p := range sexpPlans(t) {
		checkLinuxPlan(t, "hostile "+strconv.Itoa(i), p)
	}
}

// checkLinuxPlan holds p's argv to the rule table: it is linuxSteps
// flattened, ends at its only "--", and each step is its rule's Emits with
// every variable replaced by exactly one element: the workspace, the null
// descriptor, or one path of the rule's iteration. So every path operand
// is an input path, whole. Emits separates operands with single spaces;
// no constant in the table contains one.
func checkLinuxPlan(t testing.TB, name string, p *plan) {
	t.Helper()
	args := linuxArgs(p)
	steps := linuxSteps(p)
	var flat []string
	for _, s := range steps {
		flat = append(flat, s.Args...)
	}
	if !slices.Equal(flat, args) {
		t.Fatalf("%s: linuxSteps flatten to\n%q\nlinuxArgs is\n%q", name, flat, args)
	}
	if i := slices.Index(args, "--"); i != len(args)-1 {
		t.Fatalf("%s: \"--\" at %d of %d: %q", name, i, len(args), args)
	}
	seen := map[string]bool{}
	for _, s := range steps {
		rule, ok := ruleByID("linux", s.Rule)
		if !ok {
			t.Fatalf("%s: step of unknown rule %q", name, s.Rule)
		}
		tmpl := strings.Split(rule.Emits, " ")
		if len(tmpl) != len(s.Args) && !strings.Contains(rule.Emits, "$") && strings.Join(s.Args, " ") == rule.Emits {
			continue // a constant row, one of whose arguments holds a space (proxy-env's JAVA_TOOL_OPTIONS)
		}
		if len(tmpl) != len(s.Args) {
			t.Fatalf("%s: rule %s emitted %d elements %q, its template %q has %d", name, s.Rule, len(s.Args), s.Args, rule.Emits, len(tmpl))
		}
		item := ""
		for k, arg := range s.Args {
			switch tmpl[k] {
			case "$workspace":
				if arg != p.workspace {
					t.Fatalf("%s: rule %s: %q where the workspace %q belongs", name, s.Rule, arg, p.workspace)
				}
			case "$nullfd":
				if arg != p.nullFD || arg == "" {
					t.Fatalf("%s: rule %s: %q where the null descriptor %q belongs", name, s.Rule, arg, p.nullFD)
				}
			case "$seccompfd":
				if arg != p.seccompFD || arg == "" {
					t.Fatalf("%s: rule %s: %q where the seccomp descriptor %q belongs", name, s.Rule, arg, p.seccompFD)
				}
			case "$statusfd":
				if arg != p.statusFD || arg == "" {
					t.Fatalf("%s: rule %s: %q where the status descriptor %q belongs", name, s.Rule, arg, p.statusFD)
				}
			case "$blockfd":
				if arg != p.blockFD || arg == "" {
					t.Fatalf("%s: rule %s: %q where the block descriptor %q belongs", name, s.Rule, arg, p.blockFD)
				}
			case "$tmpsize", "$shmsize":
				if n, err := strconv.ParseUint(arg, 10, 64); err != nil || n == 0 || arg != p.limitArg(map[string]int{"$tmpsize": limitTmpSize, "$shmsize": limitShmSize}[tmpl[k]]) {
					t.Fatalf("%s: rule %s: %q where the size %s belongs", name, s.Rule, arg, tmpl[k])
				}
			case "$path":
				if !slices.Contains(iterPaths(p, rule.For), arg) {
					t.Fatalf("%s: rule %s: %q is none of the %s paths", name, s.Rule, arg, rule.For)
				}
				if item != "" && item != arg {
					t.Fatalf("%s: rule %s: one step names two paths, %q and %q", name, s.Rule, item, arg)
				}
				item = arg
			default:
				if arg != tmpl[k] {
					t.Fatalf("%s: rule %s: element %d is %q, want %q", name, s.Rule, k, arg, tmpl[k])
				}
			}
			seen[arg] = true
		}
	}
	for _, f := range append(slices.Clone(p.read), p.write...) {
		if !seen[f.path] {
			t.Errorf("%s: the granted path %q is not in the argv", name, f.path)
		}
	}
	if !seen[p.workspace] {
		t.Errorf("%s: the workspace %q is not in the argv", name, p.workspace)
	}
}
