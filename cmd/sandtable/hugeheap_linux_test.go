package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHugeHeap: hugeHeap backs the huge page of the heap that holds its
// probe with a huge page, where this kernel collapses one at all, and the
// heap's contents are the same after the collapse. It runs in a fresh
// process (this test binary again), whose heap nothing collapsed yet.
func TestHugeHeap(t *testing.T) {
	if os.Getenv("SANDTABLE_TEST_HUGEHEAP") == "1" {
		hugeHeapChild()
		return
	}
	if err := collapseWorks(); err != nil {
		t.Skipf("this kernel collapses no anonymous memory into a huge page: %v", err)
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || bytes.Contains(b, []byte("[never]")) {
		t.Skipf("transparent huge pages are off here (%q, %v): hugeHeap asks for none", b, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestHugeHeap$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "SANDTABLE_TEST_HUGEHEAP=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("hugeheap: ok")) {
		t.Fatalf("the child said nothing of its heap:\n%s", out)
	}
}

// hugeHeapChild is TestHugeHeap's fresh process: it fails with a line
// that says why, or prints "hugeheap: ok".
func hugeHeapChild() {
	fail := func(format string, a ...any) {
		fmt.Printf("hugeheap: "+format+"\n", a...)
		os.Exit(1)
	}
	keep := make([][]byte, 256)
	for i := range keep {
		keep[i] = bytes.Repeat([]byte{byte(i)}, 1000)
	}
	probe := new([64]byte) // where the heap is now, for the count before
	before, err := anonHugeKB(uintptr(unsafe.Pointer(probe)))
	if err != nil {
		fail("%v", err)
	}
	hugeHeap()
	after, err := anonHugeKB(uintptr(unsafe.Pointer(heapProbe)))
	if err != nil {
		fail("%v", err)
	}
	if after < before+hugePage>>10 {
		fail("the heap's mapping has %d kB in huge pages after hugeHeap, %d before: no huge page made", after, before)
	}
	for i, b := range keep {
		if !bytes.Equal(b, bytes.Repeat([]byte{byte(i)}, 1000)) {
			fail("heap object %d changed across the collapse", i)
		}
	}
	fmt.Println("hugeheap: ok")
}

// collapseWorks collapses a fresh anonymous huge page's worth of memory.
func collapseWorks() error {
	b, err := unix.Mmap(-1, 0, 2*hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer unix.Munmap(b)
	off := (hugePage - int(uintptr(unsafe.Pointer(&b[0]))%hugePage)) % hugePage
	r := b[off : off+hugePage]
	r[0] = 1
	return unix.Madvise(r, unix.MADV_COLLAPSE)
}

// anonHugeKB is the AnonHugePages of the mapping that holds addr
// (/proc/self/smaps).
func anonHugeKB(addr uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= uint64(addr) && uint64(addr) < hi
			continue
		}
		if v, ok := strings.CutPrefix(line, "AnonHugePages:"); ok && in {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				return 0, fmt.Errorf("smaps: %q: %w", line, err)
			}
			return kb, nil
		}
	}
	return 0, fmt.Errorf("smaps: no mapping holds %#x (%v)", addr, sc.Err())
}

// mappingRange parses a mapping's first line in smaps ("lo-hi perms ...").
func mappingRange(line string) (lo, hi uint64, ok bool) {
	r, _, found := strings.Cut(line, " ")
	l, h, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseUint(l, 16, 64)
	hi, err2 := strconv.ParseUint(h, 16, 64)
	return lo, hi, err1 == nil && err2 == nil
}
