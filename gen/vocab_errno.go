package gen

// seccompErrnos are the errors a seccomp entry may return, with their
// number (the same on every ABI the filter knows) and the entry kinds that
// may return each: ENOSYS says the call does not exist, which is true to a
// program only of a call refused outright, never of one whose argument
// alone is refused.
var seccompErrnos = map[string]struct {
	nr    uint32
	kinds []string
	means string
}{
	"EPERM":        {nr: 1, kinds: []string{"syscall", "ioctl", "setid-mode", "keep-families"}, means: "says the call is not permitted"},
	"ENOSYS":       {nr: 38, kinds: []string{"syscall"}, means: "says the call does not exist"},
	"EAFNOSUPPORT": {nr: 97, kinds: []string{"keep-families"}, means: "says an address family is not supported"},
}
