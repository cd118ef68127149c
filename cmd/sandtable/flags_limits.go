package main

import (
	"flag"
	"strconv"

	"github.com/sandtable/sandtable/sandbox"
)

// limitFlags are the flags that change a limit from the table's default
// (docs/POLICY.md, Limits).
type limitFlags struct {
	tmpSize, shmSize sizeFlag
}

func (f *limitFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.tmpSize, "tmp-size", "bound the private /tmp to `size` bytes (K, M, G suffixes; default 1G, at most\n        a quarter of RAM)")
	fs.Var(&f.shmSize, "shm-size", "bound /dev/shm to `size` bytes (default 64M)")
}

func (f *limitFlags) apply(l *sandbox.Limits) {
	l.TmpSize = int64(f.tmpSize)
	l.ShmSize = int64(f.shmSize)
}

// sizeFlag is a size in bytes, read by sandbox.ParseSize.
type sizeFlag int64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*s), 10)
}

func (s *sizeFlag) Set(v string) error {
	n, err := sandbox.ParseSize(v)
	*s = sizeFlag(n)
	return err
}
