package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// A profile is only as safe as sandbox-exec's reading of it. These tests
// read every profile back with a Scheme reader, the syntax SBPL uses, and
// check that a path cannot change the profile's shape: the forms are the
// ones the rules emit, and each path is one string atom equal to the path.

type sexpKind uint8

const (
	sexpList sexpKind = iota
	sexpSymbol
	sexpString
)

// sexp is one datum: a list, a symbol (numbers and #t included) or a
// string, decoded.
type sexp struct {
	kind  sexpKind
	text  string
	items []sexp
}

func (s sexp) String() string {
	switch s.kind {
	case sexpSymbol:
		return s.text
	case sexpString:
		return strconv.Quote(s.text)
	}
	parts := make([]string, len(s.items))
	for i, it := range s.items {
		parts[i] = it.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// readSexps reads every datum in src: lists, symbols, strings with
// escapes, ; line comments, nested #| |# block comments and #; datum
// comments, and 'x as (quote x).
func readSexps(src string) ([]sexp, error) {
	r := &sexpReader{src: src}
	var out []sexp
	for {
		if err := r.skip(); err != nil {
			return nil, err
		}
		if r.pos == len(src) {
			return out, nil
		}
		d, err := r.datum()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
}

type sexpReader struct {
	src string
	pos int
}

func (r *sexpReader) errorf(format string, args ...any) error {
	return fmt.Errorf("read sexp: offset %d: %s", r.pos, fmt.Sprintf(format, args...))
}

// skip passes whitespace and comments.
func (r *sexpReader) skip() error {
	for r.pos < len(r.src) {
		switch c := r.src[r.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			r.pos++
		case c == ';':
			for r.pos < len(r.src) && r.src[r.pos] != '\n' {
				r.pos++
			}
		case strings.HasPrefix(r.src[r.pos:], "#|"):
			depth := 0
			for {
				switch {
				case r.pos >= len(r.src):
					return r.errorf("unterminated #| comment")
				case strings.HasPrefix(r.src[r.pos:], "#|"):
					depth++
					r.pos += 2
				case strings.HasPrefix(r.src[r.pos:], "|#"):
					depth--
					r.pos += 2
				default:
					r.pos++
				}
				if depth == 0 {
					break
				}
			}
		case strings.HasPrefix(r.src[r.pos:], "#;"):
			r.pos += 2
			if err := r.skip(); err != nil {
				return err
			}
			if _, err := r.datum(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

func (r *sexpReader) datum() (sexp, error) {
	if r.pos >= len(r.src) {
		return sexp{}, r.errorf("unexpected end of input")
	}
	switch c := r.src[r.pos]; c {
	case '(':
		r.pos++
		l := sexp{kind: sexpList}
		for {
			if err := r.skip(); err != nil {
				return sexp{}, err
			}
			if r.pos >= len(r.src) {
				return sexp{}, r.errorf("unterminated list")
			}
			if r.src[r.pos] == ')' {
				r.pos++
				return l, nil
			}
			d, err := r.datum()
			if err != nil {
				return sexp{}, err
			}
			l.items = append(l.items, d)
		}
	case ')':
		return sexp{}, r.errorf("unexpected )")
	case '"':
		return r.str()
	case '\'':
		r.pos++
		if err := r.skip(); err != nil {
			return sexp{}, err
		}
		d, err := r.datum()
		return sexp{kind: sexpList, items: []sexp{{kind: sexpSymbol, text: "quote"}, d}}, err
	case '|':
		return sexp{}, r.errorf("unexpected |")
	}
	start := r.pos
	for r.pos < len(r.src) && !strings.ContainsRune(" \t\n\r\f()\";'|", rune(r.src[r.pos])) {
		r.pos++
	}
	return sexp{kind: sexpSymbol, text: r.src[start:r.pos]}, nil
}

func (r *sexpReader) str() (sexp, error) {
	r.pos++
	var b strings.Builder
	for r.pos < len(r.src) {
		c := r.src[r.pos]
		r.pos++
		switch c {
		case '"':
			return sexp{kind: sexpString, text: b.String()}, nil
		case '\\':
			if r.pos >= len(r.src) {
				return sexp{}, r.errorf("unterminated string")
			}
			e := r.src[r.pos]
			r.pos++
			switch e {
			case '"', '\\', '|':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'a':
				b.WriteByte('\a')
			case '\n':
				for r.pos < len(r.src) && (r.src[r.pos] == ' ' || r.src[r.pos] == '\t') {
					r.pos++
				}
			case 'x':
				end := strings.IndexByte(r.src[r.pos:], ';')
				if end < 0 {
					return sexp{}, r.errorf(`\x escape without ;`)
				}
				n, err := strconv.ParseUint(r.src[r.pos:r.pos+end], 16, 32)
				if err != nil {
					return sexp{}, r.errorf(`bad \x escape: %v`, err)
				}
				b.WriteRune(rune(n))
				r.pos += end + 1
			default:
				return sexp{}, r.errorf(`unknown escape \%c`, e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return sexp{}, r.errorf("unterminated string")
}

func TestSexpReader(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`(version 1)`, `(version 1)`},
		{"; comment\n(a ; more\n b)", `(a b)`},
		{`(a #| x #| nested |# y |# b)`, `(a b)`},
		{`(a #;(skipped form) b)`, `(a b)`},
		{`(s "a\"b\\c\x41;\n")`, `(s "a\"b\\cA\n")`},
		{`(s "(;#| |#)")`, `(s "(;#| |#)")`},
		{`'x`, `(quote x)`},
		{`() (a (b (c)))`, `() (a (b (c)))`},
		{`(allow file-read* (subpath "/usr"))`, `(allow file-read* (subpath "/usr"))`},
	} {
		forms, err := readSexps(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		var got []string
		for _, f := range forms {
			got = append(got, f.String())
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: read %q, want %q", tc.src, strings.Join(got, " "), tc.want)
		}
	}
	for _, bad := range []string{`(a`, `)`, `(a "b)`, `#| x`, `(a "\q")`, `(a |b|)`, `"\x41"`} {
		if forms, err := readSexps(bad); err == nil {
			t.Errorf("%q: read %v, want an error", bad, forms)
		}
	}
}

// hostilePaths pass the path validator yet look like SBPL syntax, or are
// as long as a path can be.
func hostilePaths() []string {
	long := "/" + strings.Repeat("x", 254)
	for len(long)+256 <= 4096-2 {
		long += "/" + strings.Repeat("y", 255)
	}
	long += "/" + strings.Repeat("z", 4096-len(long)-1)
	return []string{
		"/home/u/my project",
		"/home/u/a)(b",
		"/home/u/(allow file-write* (subpath \"", // rejected: a quote
		"/home/u/x) (allow file-write* (subpath /)",
		"/home/u/semi;colon",
		"/home/u/#|open",
		"/home/u/close|#",
		"/home/u/#|both|#",
		"/home/u/#;datum",
		"/home/u/'quote",
		"/home/u/ünïcødé ☃ 日本語",
		"/home/u/\u00a0nbsp\u2028sep",
		"/home/u/$HOME/`id`/%s",
		"/home/u/--bind",
		long,
	}
}

// sexpPlans builds plans that put each accepted hostile path in every role
// a builder reads: workspace, read, write and hidden of each kind.
func sexpPlans(t *testing.T) []*plan {
	t.Helper()
	var paths []string
	for _, p := range hostilePaths() {
		if err := checkPath("test path", p); err != nil {
			if !errors.Is(err, ErrBadPath) {
				t.Fatalf("checkPath(%q): %v does not wrap ErrBadPath", p, err)
			}
			continue
		}
		paths = append(paths, p)
	}
	if len(paths) != len(hostilePaths())-1 {
		t.Fatalf("the validator accepted %d of the %d hostile paths, want all but the one with a quote", len(paths), len(hostilePaths()))
	}
	var plans []*plan
	for i, ws := range paths {
		other := paths[(i+1)%len(paths)]
		p := &plan{workspace: ws, network: i%2 == 0, netHost: i%2 == 0, interactive: i%3 == 0, disableUserns: true, nullFD: "3"}
		p.read = []pathFact{fact(other+"/r", kindDir, ws)}
		p.write = []pathFact{fact(other+"/w", kindDir, ws)}
		p.hidden = []pathFact{
			fact(ws+"/inside dir", kindDir, ws),
			fact(ws+"/inside;file", kindFile, ws),
			fact(other, kindDir, ws),
			fact(other+"/missing #|", kindMissing, ws),
		}
		if parent := filepath.Dir(ws); parent != "/" {
			p.hidden = append(p.hidden, fact(parent, kindDir, ws))
		}
		for _, f := range append(append(slices.Clone(p.read), p.write...), p.hidden...) {
			if len(f.path) > 4096 {
				continue // checkPath has no length limit; the kernel does
			}
			if err := checkPath("test path", f.path); err != nil {
				t.Fatalf("derived path %q: %v", f.path, err)
			}
		}
		p.mounts = sortMounts(linuxMounts(p, nil))
		plans = append(plans, p)
	}
	return plans
}

// TestProfileWellFormed reads back the profile of every golden-matrix case
// and of every hostile plan.
func TestProfileWellFormed(t *testing.T) {
	for _, c := range profileCases {
		checkDarwinPlan(t, c.name, newTestPlan(c))
	}
	for i, p := range sexpPlans(t) {
		checkDarwinPlan(t, fmt.Sprintf("hostile %d", i), p)
	}
}

// TestProfileGoldensParse reads the committed golden profiles themselves,
// so a golden regenerated from a broken builder fails here too.
func TestProfileGoldensParse(t *testing.T) {
	files, err := filepath.Glob(fixtures + "/TestProfile/*.darwin.golden")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden profiles under %s/TestProfile", fixtures)
	}
	cases := map[string]profileCase{}
	for _, c := range profileCases {
		cases[c.name] = c
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		forms, err := readSexps(string(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		c, ok := cases[strings.TrimSuffix(filepath.Base(f), ".darwin.golden")]
		if !ok {
			continue
		}
		if n := sbplFormCount(darwinSteps(newTestPlan(c))); len(forms) != n {
			t.Errorf("%s: %d forms, the rules emit %d", f, len(forms), n)
		}
	}
}

func sbplFormCount(steps []Step) int {
	n := 0
	for _, s := range steps {
		n += len(s.Args)
	}
	return n
}

// ruleByID finds a rule's row, whose Emits is the template of its output.
func ruleByID(platform, id string) (Rule, bool) {
	for _, r := range ruleTable {
		if r.Platform == platform && r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// darwinTemplates caches each rule's Emits read as forms: the fuzz
// targets check every input against them.
var darwinTemplates sync.Map

func darwinTemplate(r Rule) ([]sexp, error) {
	if v, ok := darwinTemplates.Load(r.ID); ok {
		return v.([]sexp), nil
	}
	forms, err := readSexps(r.Emits)
	if err == nil {
		darwinTemplates.Store(r.ID, forms)
	}
	return forms, err
}

// iterPaths are the paths a rule's `for` ranges over in p.
func iterPaths(p *plan, forWord string) []string {
	var facts []pathFact
	switch forWord {
	case "hidden":
		facts = p.hidden
	case "read":
		facts = p.read
	case "write":
		facts = p.write
	case "pin":
		facts = p.pins
	case "ancestor":
		facts = p.ancestors
	case "guard":
		facts = p.guards
	case "tty":
		facts = p.ttys
	case "sockets":
		facts = p.sockets
	case "socket-grants":
		facts = p.socketGrants
	}
	out := make([]string, len(facts))
	for i, f := range facts {
		out[i] = f.path
	}
	return out
}

// foldedOf is the path whose case-folded pattern is pattern, if any.
func foldedOf(p *plan, pattern string) (string, bool) {
	for _, f := range p.hidden {
		if f.folded != "" && f.folded == pattern {
			return f.path, true
		}
	}
	return "", false
}

// checkDarwinPlan reads p's profile back. It must hold exactly the forms
// darwinSteps lists, and each of them must be its rule's Emits template
// with every "$workspace" or "$path" string replaced by one string atom:
// the workspace, or one path of the rule's iteration.
func checkDarwinPlan(t testing.TB, name string, p *plan) {
	t.Helper()
	prof := darwinProfile(p)
	forms, err := readSexps(prof)
	if err != nil {
		t.Fatalf("%s: the profile does not read: %v\n%s", name, err, prof)
	}
	steps := darwinSteps(p)
	if n := sbplFormCount(steps); len(forms) != n {
		t.Fatalf("%s: the profile reads as %d forms, the rules emitted %d", name, len(forms), n)
	}
	seen := map[string]bool{}
	i := 0
	for _, s := range steps {
		rule, ok := ruleByID("darwin", s.Rule)
		if !ok {
			t.Fatalf("%s: step of unknown rule %q", name, s.Rule)
		}
		tmpl, err := darwinTemplate(rule)
		if err != nil {
			t.Fatalf("%s: rule %s: Emits does not read: %v", name, s.Rule, err)
		}
		if len(tmpl) != len(s.Args) {
			t.Fatalf("%s: rule %s emitted %d forms, its template has %d", name, s.Rule, len(s.Args), len(tmpl))
		}
		item := ""
		for k, arg := range s.Args {
			one, err := readSexps(arg)
			if err != nil || len(one) != 1 {
				t.Fatalf("%s: rule %s: form %q reads as %d forms (%v)", name, s.Rule, arg, len(one), err)
			}
			if !sexpEqual(one[0], forms[i]) {
				t.Fatalf("%s: rule %s: form %d reads differently alone (%s) and in the profile (%s)", name, s.Rule, i, one[0], forms[i])
			}
			if msg := matchTemplate(tmpl[k], forms[i], p, rule.For, &item, seen); msg != "" {
				t.Fatalf("%s: rule %s: %s\ntemplate %s\nform     %s", name, s.Rule, msg, tmpl[k], forms[i])
			}
			i++
		}
	}
	if !seen[p.workspace] {
		t.Errorf("%s: the workspace %q is in no form", name, p.workspace)
	}
	for _, f := range append(slices.Clone(p.read), p.write...) {
		if !seen[f.path] {
			t.Errorf("%s: the granted path %q is in no form", name, f.path)
		}
	}
}

// matchTemplate compares a form with its template. item is the path the
// rule's iteration is at: one form of one step names one item.
func matchTemplate(tmpl, got sexp, p *plan, forWord string, item *string, seen map[string]bool) string {
	if tmpl.kind != got.kind {
		return fmt.Sprintf("got %s where the template has %s", got, tmpl)
	}
	switch tmpl.kind {
	case sexpSymbol:
		if tmpl.text != got.text {
			return fmt.Sprintf("symbol %s, want %s", got.text, tmpl.text)
		}
	case sexpString:
		switch tmpl.text {
		case "$workspace":
			if got.text != p.workspace {
				return fmt.Sprintf("string %q, want the workspace %q", got.text, p.workspace)
			}
		case "$tmpdir":
			if got.text != p.tmpdir {
				return fmt.Sprintf("string %q, want the temporary directory %q", got.text, p.tmpdir)
			}
		case "$foldedpath":
			path, ok := foldedOf(p, got.text)
			if !ok {
				return fmt.Sprintf("string %q is no hidden path's folded pattern", got.text)
			}
			if *item != "" && *item != path {
				return fmt.Sprintf("one step names two paths, %q and %q", *item, path)
			}
			*item = path
		case "$path":
			if !slices.Contains(iterPaths(p, forWord), got.text) {
				return fmt.Sprintf("string %q is none of the %s paths", got.text, forWord)
			}
			if *item != "" && *item != got.text {
				return fmt.Sprintf("one step names two paths, %q and %q", *item, got.text)
			}
			*item = got.text
		default:
			want := tmpl.text
			if rest, ok := strings.CutPrefix(want, "$home/"); ok {
				want = p.home + "/" + rest
			}
			if rest, ok := strings.CutPrefix(want, "^$homeregex/"); ok {
				want = "^" + p.homeRegex + "/" + rest
			}
			if host, ok := strings.CutSuffix(want, "$proxyport"); ok {
				want = host + p.proxyPort
			}
			if got.text != want {
				return fmt.Sprintf("string %q, want %q", got.text, want)
			}
		}
		seen[got.text] = true
	case sexpList:
		if len(tmpl.items) != len(got.items) {
			return fmt.Sprintf("a list of %d, want %d", len(got.items), len(tmpl.items))
		}
		for i := range tmpl.items {
			if msg := matchTemplate(tmpl.items[i], got.items[i], p, forWord, item, seen); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func sexpEqual(a, b sexp) bool {
	if a.kind != b.kind || a.text != b.text || len(a.items) != len(b.items) {
		return false
	}
	for i := range a.items {
		if !sexpEqual(a.items[i], b.items[i]) {
			return false
		}
	}
	return true
}

// tinyschemeScript prints every datum it reads as one token a line, the
// same stream sexpTokens makes.
const tinyschemeScript = `(define port (open-input-file %q))
(define (emit . xs) (for-each display xs) (newline))
(define (walk x)
  (cond ((string? x) (emit "T:" x))
        ((symbol? x) (emit "S:" (symbol->string x)))
        ((number? x) (emit "S:" x))
        ((null? x) (emit "(") (emit ")"))
        ((pair? x) (emit "(") (walk-list x) (emit ")"))
        (else (emit "?:" x))))
(define (walk-list x) (if (pair? x) (begin (walk (car x)) (walk-list (cdr x)))))
(let loop ((f (read port)))
  (if (not (eof-object? f)) (begin (emit "F") (walk f) (loop (read port)))))
(quit)
`

// sexpTokens flattens forms the way tinyschemeScript prints them. TinyScheme
// folds symbols to lower case; the profiles only use lower case.
func sexpTokens(forms []sexp) string {
	var b strings.Builder
	var walk func(s sexp)
	walk = func(s sexp) {
		switch s.kind {
		case sexpString:
			b.WriteString("T:" + s.text + "\n")
		case sexpSymbol:
			b.WriteString("S:" + strings.ToLower(s.text) + "\n")
		case sexpList:
			b.WriteString("(\n")
			for _, it := range s.items {
				walk(it)
			}
			b.WriteString(")\n")
		}
	}
	for _, f := range forms {
		b.WriteString("F\n")
		walk(f)
	}
	return b.String()
}

// tinyschemeLimit is the longest string atom TinyScheme 1.42's reader takes.
const tinyschemeLimit = 255

var longAtom = regexp.MustCompile(`"[^"]{` + strconv.Itoa(tinyschemeLimit+1) + `,}"`)

// TestProfileTinyScheme has a second, independent Scheme reader read the
// same profiles. Optional: apt-get install tinyscheme.
func TestProfileTinyScheme(t *testing.T) {
	bin, err := exec.LookPath("tinyscheme")
	if err != nil {
		t.Skip("tinyscheme not installed (apt-get install -y tinyscheme); the Go reader still ran")
	}
	var plans []*plan
	var names []string
	for _, c := range profileCases {
		plans, names = append(plans, newTestPlan(c)), append(names, c.name)
	}
	for i, p := range sexpPlans(t) {
		plans, names = append(plans, p), append(names, fmt.Sprintf("hostile %d", i))
	}
	dir := t.TempDir()
	ran := 0
	for i, p := range plans {
		prof := darwinProfile(p)
		if longAtom.MatchString(prof) {
			continue
		}
		sb := filepath.Join(dir, fmt.Sprintf("%d.sb", i))
		script := filepath.Join(dir, fmt.Sprintf("%d.scm", i))
		if err := os.WriteFile(sb, []byte(prof), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte(fmt.Sprintf(tinyschemeScript, sb)), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, script).CombinedOutput()
		if err != nil {
			t.Errorf("%s: tinyscheme: %v\n%s", names[i], err, out)
			continue
		}
		forms, err := readSexps(prof)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if got, want := string(out), sexpTokens(forms); got != want {
			t.Errorf("%s: tinyscheme reads\n%s\nthe Go reader\n%s", names[i], got, want)
		}
		ran++
	}
	if ran < len(profileCases) {
		t.Errorf("tinyscheme read %d profiles, want at least the %d of the golden matrix", ran, len(profileCases))
	}
	t.Logf("tinyscheme agreed on %d of %d profiles (the rest hold atoms over %d bytes)", ran, len(plans), tinyschemeLimit)
}

// failRecorder is a testing.TB that records the first failure instead of
// failing, so a test can show that a check fails when it should.
type failRecorder struct {
	testing.TB
	failed string
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Errorf(format string, args ...any) {
	if r.failed == "" {
		r.failed = fmt.Sprintf(format, args...)
	}
}

func (r *failRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// recordFailure runs check in its own goroutine, where Fatalf can stop it.
func recordFailure(t *testing.T, check func(testing.TB)) string {
	r := &failRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.failed
}

// TestSexpCatchesInjection feeds the check paths the validator would have
// stopped: the check must notice each one, or it proves nothing.
func TestSexpCatchesInjection(t *testing.T) {
	for _, bad := range []string{
		`/x") (allow file-write* (subpath "/`,
		`/x\") (allow file-write* (subpath \"/`,
		"/x\")\n; rest of the line",
	} {
		p := &plan{workspace: "/ws", nullFD: "3", read: []pathFact{fact(bad, kindDir, "/ws")}}
		if msg := recordFailure(t, func(tb testing.TB) { checkDarwinPlan(tb, "injected", p) }); msg == "" {
			t.Errorf("read path %q: the check passed", bad)
		} else {
			t.Logf("read path %q: %s", bad, strings.SplitN(msg, "\n", 2)[0])
		}
	}
}
