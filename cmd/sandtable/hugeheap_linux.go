package main

import (
	"bytes"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on amd64 and arm64 (with
// 4 KiB pages).
const hugePage = 2 << 20

// heapProbe holds the allocation whose address says where the heap is.
var heapProbe *[64]byte

// hugeHeap asks the kernel to back the Go heap's huge page that holds its
// newest allocation, and the next one, with huge pages (MADV_COLLAPSE,
// Linux 6.1 and later): the heap a run allocates lies there, and where a
// page's first touch is dear (a fault of some 11 µs on a PVM guest), its
// few hundred first touches cost more than the collapse (README,
// Performance). Any error (an older kernel, one without huge pages, none
// free, the next one not mapped yet) leaves that part as it was; where the
// administrator set transparent huge pages to never, which the call would
// not heed, nothing is asked.
func hugeHeap() {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || bytes.Contains(b, []byte("[never]")) {
		return
	}
	heapProbe = new([64]byte)
	base := uintptr(unsafe.Pointer(heapProbe)) &^ (hugePage - 1)
	for _, at := range []uintptr{base, base + hugePage} {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, at, hugePage, unix.MADV_COLLAPSE)
	}
}
