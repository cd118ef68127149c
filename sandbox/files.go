package sandbox

import (
	"os"
	"slices"
	"strconv"

	"github.com/sandtable/sandtable/internal/proxy"
)

// WrapFile is one descriptor the wrapper reads, either a file to open or
// bytes to serve.
type WrapFile struct {
	// Path is a file to open read-only (always /dev/null).
	Path string
	// Data, when Path is "", is what the descriptor must read as, from its
	// start: the seccomp filter. It needs a fresh descriptor per spawn,
	// such as a memfd or a pipe: bwrap read()s it, and every duplicate of
	// one descriptor shares its offset, so a second spawn would read
	// nothing.
	Data []byte
}

// numberFiles hands out the child's descriptor numbers of what bwrap
// reads, from 3 up as exec.Cmd.ExtraFiles places them, and only for what
// the argv uses: /dev/null when a hidden path is a file, one per redacted
// file's copy, the DNS stub's resolv.conf in network mode proxy, the
// seccomp filter (last) when this architecture has one.
// wrapFiles lists them in the same order.
func (p *plan) numberFiles(seccomp bool) {
	next := 3
	take := func(use bool) string {
		if !use {
			return ""
		}
		next++
		return strconv.Itoa(next - 1)
	}
	p.nullFD = take(len(p.sockets) > 0 || slices.ContainsFunc(p.hidden, func(f pathFact) bool { return f.kind == kindFile }) ||
		slices.ContainsFunc(p.protected, func(f pathFact) bool { return f.kind == kindMissing }))
	for i := range p.redacted {
		p.redacted[i].fd = take(true)
	}
	p.resolvFD = take(p.netProxy && hostHasResolvConf())
	p.seccompFD = take(seccomp)
}

// wrapFiles is what goes behind the descriptors numberFiles handed out,
// in their order. The filter is copied: a caller that wrote to Data must
// not change what later spawns load.
func wrapFiles(p *plan) []WrapFile {
	var files []WrapFile
	if p.nullFD != "" {
		files = append(files, WrapFile{Path: os.DevNull})
	}
	for _, d := range p.redactData {
		files = append(files, WrapFile{Data: d})
	}
	if p.resolvFD != "" {
		files = append(files, WrapFile{Data: []byte(proxy.ResolvConf)})
	}
	if p.seccompFD != "" {
		files = append(files, WrapFile{Data: slices.Clone(nativeSeccomp())})
	}
	return files
}
