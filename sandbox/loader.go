package sandbox

import (
	"os"
	"path"
	"strings"
)

// loaderVars are the dynamic loader's variables that name files for it to
// load: in bwrap too, which runs outside the sandbox, before it has built
// anything.
var loaderVars = []string{"LD_LIBRARY_PATH", "LD_PRELOAD", "LD_AUDIT"}

// checkLoaderEnv refuses a loader variable of this process's environment,
// which bwrap inherits, that names a place the sandbox can write: a library
// an earlier run left there would run on the host. A relative entry is
// taken from bwrap's working directory, /, and an empty one is / itself.
func checkLoaderEnv(r *resolver, roots []string) error {
	for _, name := range loaderVars {
		v, ok := os.LookupEnv(name)
		if !ok {
			continue
		}
		sep := func(c rune) bool { return c == ':' }
		if name != "LD_LIBRARY_PATH" {
			sep = func(c rune) bool { return c == ':' || c == ' ' }
		}
		for _, e := range strings.FieldsFunc(v, sep) {
			if !strings.Contains(e, "/") && name != "LD_LIBRARY_PATH" {
				continue // a bare library name, looked up in the system's directories
			}
			if r.within(path.Join("/", e), roots) {
				return badPath(name+" entry", e, "lies where a sandboxed command can write, and bwrap, "+
					"which runs outside the sandbox, would load a library it left there (want the entry removed)")
			}
		}
	}
	return nil
}
