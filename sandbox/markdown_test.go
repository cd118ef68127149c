package sandbox_test

import (
	"bufio"
	"fmt"
	"github.com/sandtable/sandtable/sandbox"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documentation these tests hold to the code: README.md and every page
// under docs/, POLICY.md included.
func markdownFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return root, append([]string{filepath.Join(root, "README.md")}, docs...)
}

// codeBlock is one fenced block of a Markdown file.
type codeBlock struct {
	file string // relative to the module root
	line int    // of the opening fence
	lang string
	text string // without the fences, de-indented by the fence's indent
}

func (b codeBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var fence = regexp.MustCompile("^( *)```([a-z]*)$")

func codeBlocks(t *testing.T, root, path string) []codeBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(root, path)
	var blocks []codeBlock
	var cur *codeBlock
	var indent string
	var lines []string
	for i, l := range strings.Split(string(data), "\n") {
		if cur == nil {
			if m := fence.FindStringSubmatch(l); m != nil {
				cur = &codeBlock{file: rel, line: i + 1, lang: m[2]}
				indent, lines = m[1], nil
			}
			continue
		}
		if strings.TrimSpace(l) == "```" {
			cur.text = strings.Join(lines, "\n")
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, indent))
	}
	if cur != nil {
		t.Errorf("%s: the block opened here is never closed", cur)
	}
	return blocks
}

// testSources lists the module's *_test.go files, outside testdata.
func testSources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// exampleBodies maps each Example function of the module's tests to its
// body as a reader would copy it: the lines between the braces, each with
// gofmt's one tab of indentation removed.
func exampleBodies(t *testing.T, root string) map[string]string {
	t.Helper()
	bodies := map[string]string{}
	for _, p := range testSources(t, root) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Example") {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			var lines []string
			for _, l := range strings.Split(strings.Trim(body, "\n"), "\n") {
				lines = append(lines, strings.TrimPrefix(l, "\t"))
			}
			rel, _ := filepath.Rel(root, p)
			bodies[rel+": "+fn.Name.Name] = strings.Join(lines, "\n")
		}
	}
	return bodies
}

// TestMarkdownGoBlocks holds every ```go block of the README and docs/ to
// one of two shapes: the body of an Example function of the module's tests,
// word for word (so go test compiles it, and runs it where the Example has
// an Output comment or a test calls it), or a Go file of its own, starting
// with its package clause, which must build against this module. A block
// that drifted from its Example, or stopped compiling, fails here. Every
// ```sh block, and the "$ " lines of every ```console transcript, must
// parse as sh.
func TestMarkdownGoBlocks(t *testing.T) {
	root, files := markdownFiles(t)
	bodies := exampleBodies(t, root)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to build the docs' Go files: %v", err)
	}
	n := 0
	for _, path := range files {
		for _, b := range codeBlocks(t, root, path) {
			switch b.lang {
			case "go":
				n++
				checkGoBlock(t, root, goTool, bodies, b, n)
			case "sh":
				checkShell(t, b, b.text)
			case "console":
				// A transcript: the commands are its "$ " lines.
				var cmds []string
				for _, l := range strings.Split(b.text, "\n") {
					if c, ok := strings.CutPrefix(l, "$ "); ok {
						cmds = append(cmds, c)
					}
				}
				if len(cmds) == 0 {
					t.Errorf("%s: ```console block has no \"$ \" command line", b)
				}
				checkShell(t, b, strings.Join(cmds, "\n"))
			}
		}
	}
	if n == 0 {
		t.Error("no ```go block in README.md or docs/*.md: the extraction is broken")
	}
}

func checkShell(t *testing.T, b codeBlock, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-n")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: ```%s block does not parse as sh: %v\n%s", b, b.lang, err, out)
	}
}

func checkGoBlock(t *testing.T, root, goTool string, bodies map[string]string, b codeBlock, n int) {
	t.Helper()
	text := strings.Trim(b.text, "\n")
	for _, body := range bodies {
		if body == text {
			return
		}
	}
	if !goFile(text) {
		what := "no Example's body starts with its first line"
		if name, line := closestExample(bodies, text); line > 1 {
			what = fmt.Sprintf("closest: %s, which differs from the block's line %d on", name, line)
		}
		t.Errorf("%s: ```go block is neither an Example function's body in a *_test.go file, verbatim, nor a Go file of its own (starting with package); %s", b, what)
		return
	}
	// Build it as a package of its own inside the module, through an
	// overlay: nothing is written to the source tree.
	dir := t.TempDir()
	src := filepath.Join(dir, "block.go")
	if err := os.WriteFile(src, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg := fmt.Sprintf("internal/zz_docblock%d", n)
	overlay := filepath.Join(dir, "overlay.json")
	spec := fmt.Sprintf(`{"Replace":{%q:%q}}`, filepath.Join(root, pkg, "block.go"), src)
	if err := os.WriteFile(overlay, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "build", "-overlay", overlay, "-o", dir+string(filepath.Separator), "./"+pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%s: ```go block does not build (%v); its line N is block.go:N:\n%s", b, err, out)
	}
}

// goFile reports whether text starts with a package clause, after any
// comments.
func goFile(text string) bool {
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return strings.HasPrefix(l, "package ")
	}
	return false
}

// closestExample is the Example whose body agrees with text for the most
// leading lines, and the first line (1-based) where they differ.
func closestExample(bodies map[string]string, text string) (string, int) {
	want := strings.Split(text, "\n")
	best, bestN := "none", -1
	names := make([]string, 0, len(bodies))
	for name := range bodies {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		got := strings.Split(bodies[name], "\n")
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		if i > bestN {
			best, bestN = name, i
		}
	}
	return best, bestN + 1
}

var citedTest = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z]\w*`)

// TestMarkdownTestNames fails when the README or a page of docs/ cites a
// test, benchmark or fuzz target (TestX, BenchmarkX, FuzzX: the proofs the
// text points at) that no *_test.go file of the module defines any more.
func TestMarkdownTestNames(t *testing.T) {
	root, files := markdownFiles(t)
	defined := map[string]bool{}
	def := regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)\w*)\(`)
	for _, p := range testSources(t, root) {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range def.FindAllSubmatch(src, -1) {
			defined[string(m[1])] = true
		}
	}
	cited := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for i, l := range strings.Split(string(data), "\n") {
			for _, name := range citedTest.FindAllString(l, -1) {
				cited++
				if !defined[name] {
					t.Errorf("%s:%d: cites %s, but no *_test.go file has func %s(", rel, i+1, name, name)
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no test name cited in README.md or docs/*.md: the extraction is broken")
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile(`^#{1,6} (.+)$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// anchors are the ids a Markdown renderer gives the headings of text, as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
// a repeated one suffixed -1, -2, ...
func anchors(text string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, l := range strings.Split(text, "\n") {
		if fence.MatchString(l) {
			inCode = !inCode
			continue
		}
		m := mdHeading.FindStringSubmatch(l)
		if inCode || m == nil {
			continue
		}
		id := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[id]; n > 0 {
			seen[id]++
			id = fmt.Sprintf("%s-%d", id, n)
		} else {
			seen[id] = 1
		}
		ids[id] = true
	}
	return ids
}

// TestMarkdownLinks fails on a relative link of the README or docs/ that
// leads to no file, or to no heading of the page it names.
func TestMarkdownLinks(t *testing.T) {
	root, files := markdownFiles(t)
	links := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		inCode := false
		for i, l := range strings.Split(string(data), "\n") {
			if fence.MatchString(l) {
				inCode = !inCode
			}
			if inCode {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				links++
				file, anchor, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %s: %v", rel, i+1, target, err)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				page, err := os.ReadFile(dest)
				if err != nil {
					t.Errorf("%s:%d: link %s: %v", rel, i+1, target, err)
					continue
				}
				if !anchors(string(page))[anchor] {
					t.Errorf("%s:%d: link %s: no heading #%s there", rel, i+1, target, anchor)
				}
			}
		}
	}
	if links == 0 {
		t.Error("no relative link in README.md or docs/*.md: the extraction is broken")
	}
}

// TestMarkdownRuleSources: where the README or a page of docs/ quotes a
// rule with its place ("hide-ssh (rules/common.yaml:419)", as sandtable
// why and the run hints print it), the place is the row's own in the
// table as it is now, so an edit of rules/ that moves a row cannot leave
// the docs pointing at another line. Control: a wrong line is found.
func TestMarkdownRuleSources(t *testing.T) {
	root, files := markdownFiles(t)
	quoted := regexp.MustCompile(`\b([a-z0-9]+(?:-[a-z0-9]+)*) \((rules/[a-z]+\.yaml:[0-9]+)\)`)
	place := func(id, src string) bool {
		for _, r := range sandbox.Rules() {
			if r.ID == id && r.Source == src {
				return true
			}
		}
		return false
	}
	seen := 0
	for _, f := range files {
		if filepath.Base(f) == "POLICY.md" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quoted.FindAllStringSubmatch(string(b), -1) {
			seen++
			if !place(m[1], m[2]) {
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s quotes %s at %s, which is not that row's place now (sandtable rules %s)", rel, m[1], m[2], m[1])
			}
		}
	}
	if seen == 0 {
		t.Error("no quoted rule place found in README.md or docs/: is the pattern right?")
	}
	if place("hide-ssh", "rules/common.yaml:1") {
		t.Error("control: a wrong place is taken for the row's")
	}
}
