package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
)

// The cache helper's variables (TestCacheHelper), unset before the
// command starts: the workspace's grants, and what a control leaves out.
const (
	cacheWriteVar = "SANDTABLE_TEST_CACHE_WRITE" // Config.Write, colon-separated
	cacheReadVar  = "SANDTABLE_TEST_CACHE_READ"  // Config.Read, colon-separated
	// cacheDropVar names, comma-separated, the bwrap rules (with their
	// -read-only companions) and refuse rows mode rules leaves out.
	cacheDropVar = "SANDTABLE_TEST_CACHE_DROP"
)

// cacheHelperConfig is the helper's Config for workspace ws, with the
// grants its variables name; in network mode host for mode rules, which
// runs bwrap's own argv (mode proxy puts it behind the wrap helper).
func cacheHelperConfig(ws string, noCache, host bool) Config {
	cfg := Config{Workspace: ws, NoCache: noCache}
	if host {
		cfg.Network.Mode = NetworkHost
	}
	split := func(name string) []string {
		v := os.Getenv(name)
		os.Unsetenv(name)
		if v == "" {
			return nil
		}
		return strings.Split(v, ":")
	}
	cfg.Write, cfg.Read = split(cacheWriteVar), split(cacheReadVar)
	return cfg
}

// cacheRulesCmd is the real argv for ws, planned without the refuse rows
// and built without the rules cacheDropVar names; each name must match a
// row or a step, so a control cannot pass by dropping nothing.
func cacheRulesCmd(ws string, noCache bool, snippet string) *exec.Cmd {
	cfg := cacheHelperConfig(ws, noCache, true)
	var drop []string
	if v := os.Getenv(cacheDropVar); v != "" {
		drop = strings.Split(v, ",")
	}
	os.Unsetenv(cacheDropVar)
	used := map[string]bool{}
	rows := slices.DeleteFunc(slices.Clone(refuseRows[:]), func(r refuseRow) bool {
		used[r.id] = used[r.id] || slices.Contains(drop, r.id)
		return slices.Contains(drop, r.id)
	})
	var r resolver
	cfg.Policy = Required
	p, err := planWithRows(&r, "linux", cfg, rows)
	if err != nil {
		cacheHelperFail("plan: " + err.Error())
	}
	prog, hf, err := hostProgramWith("linux", p, &r, checkNone)
	if err != nil {
		cacheHelperFail("bwrap: " + err.Error())
	}
	var argv []string
	for _, s := range linuxSteps(p.with(hf)) {
		id := strings.TrimSuffix(s.Rule, "-read-only")
		if slices.Contains(drop, id) {
			used[id] = true
			continue
		}
		argv = append(argv, s.Args...)
	}
	for _, d := range drop {
		if !used[d] {
			cacheHelperFail("the control drops " + d + ", which no step or refuse row is")
		}
	}
	files, _, err := openFiles(wrapFiles(p))
	if err != nil {
		cacheHelperFail("files: " + err.Error())
	}
	c := exec.Command(prog, append(argv, "/bin/sh", "-c", snippet)...)
	c.Env = setEnv(os.Environ(), tableEnv(p))
	c.Dir = p.workspace
	c.ExtraFiles = files
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	return c
}

func cacheHelperFail(msg string) {
	os.Stderr.WriteString("cache helper: " + msg + "\n")
	os.Exit(3)
}
