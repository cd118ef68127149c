package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCloserNeedsItsArgv: a program that imports this package, started
// with SANDTABLE_CLOSER=1 in its environment (this test binary, asked to
// list its tests), runs as it would without it, instead of skipping its
// main and exiting 0; control: with the closer's argv too, it is the
// closer (it prints nothing and exits 0 once its stdin ends).
func TestCloserNeedsItsArgv(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(argv0 string) string {
		c := exec.Command(exe, "-test.list", "^TestCloserNeedsItsArgv$")
		if argv0 != "" {
			c.Args = []string{argv0}
		}
		c.Env = append(os.Environ(), closerEnv+"=1")
		out, err := c.Output() // stdin is /dev/null: a closer ends at once
		if err != nil {
			t.Fatalf("%s: %v: %s", c.Args, err, out)
		}
		return string(out)
	}
	if out := run(""); !strings.Contains(out, "TestCloserNeedsItsArgv") {
		t.Errorf("with %s=1 alone the program printed %q, want its test list: the variable made it the closer", closerEnv, out)
	}
	if out := run(closerArg0); out != "" {
		t.Errorf("control: the closer's argv and variable printed %q, want nothing", out)
	}
}
