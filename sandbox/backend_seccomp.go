package sandbox

import (
	"runtime"
	"sync"

	"github.com/sandtable/sandtable/internal/seccomp"
)

// The reduced backend's second seccomp filter: the landlock section's
// refuse rows (landlockSeccompRows, from rules/linux.yaml), loaded after
// the seccomp section's own filter, which the kernel applies as well (the
// stricter verdict wins); internal/seccomp assembles it.

// landlockSeccomp is the filter for this process's architecture, nil
// where there is none.
var landlockSeccomp = sync.OnceValue(func() []byte { return seccomp.ReducedFilter(runtime.GOARCH, landlockSeccompRows[:]) })
