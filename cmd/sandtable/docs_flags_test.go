package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	docFence   = regexp.MustCompile("(?ms)^ *```([a-z]*)\n(.*?)^ *```$")
	docSpan    = regexp.MustCompile("`([^`]+)`")
	docCommand = regexp.MustCompile(`\bsandtable (run|explain|probe|why|rules|version)\b([^|;&]*)`)
	helpFlag   = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)`)
)

// TestDocsFlags fails when README.md or a page of docs/ shows a sandtable
// subcommand with a flag that subcommand's --help does not list: in a
// ```sh block, a ```console transcript or an inline code span.
func TestDocsFlags(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	known := map[string]map[string]bool{}
	flagsOf := func(sub string) map[string]bool {
		if known[sub] == nil {
			out, err := exec.Command(bin, sub, "--help").Output()
			if err != nil {
				t.Fatalf("sandtable %s --help: %v", sub, err)
			}
			known[sub] = map[string]bool{"help": true}
			for _, m := range helpFlag.FindAllStringSubmatch(string(out), -1) {
				known[sub][m[1]] = true
			}
		}
		return known[sub]
	}
	checked := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var snippets []string
		prose := docFence.ReplaceAllStringFunc(string(data), func(block string) string {
			m := docFence.FindStringSubmatch(block)
			if m[1] == "sh" || m[1] == "console" {
				snippets = append(snippets, strings.Split(m[2], "\n")...)
			}
			return ""
		})
		prose = strings.Join(strings.Fields(prose), " ") // spans wrap across lines
		for _, m := range docSpan.FindAllStringSubmatch(prose, -1) {
			snippets = append(snippets, m[1])
		}
		for _, s := range snippets {
			for _, c := range docCommand.FindAllStringSubmatch(s, -1) {
				for _, word := range strings.Fields(c[2]) {
					if word == "--" {
						break // CMD's own words follow
					}
					name, ok := strings.CutPrefix(word, "--")
					if !ok {
						continue
					}
					name, _, _ = strings.Cut(name, "=")
					checked++
					if !flagsOf(c[1])[name] {
						t.Errorf("%s: %q: sandtable %s has no flag --%s (its --help lists none)", filepath.Base(path), strings.TrimSpace(c[0]), c[1], name)
					}
				}
			}
		}
	}
	t.Logf("%d flags checked", checked)
	if checked == 0 {
		t.Error("no sandtable flag found in README.md or docs/*.md: the extraction is broken")
	}
}
