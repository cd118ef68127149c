package seccomp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Eval runs prog, a filter this package assembled, on one struct
// seccomp_data (nr, arch and the six arguments) and returns its verdict,
// interpreting the few instructions the assembler emits as the kernel
// does. It is how a test judges a filter for an ABI it cannot load here.
func Eval(prog []byte, nr, arch uint32, args [6]uint64) (uint32, error) {
	if err := Check(prog); err != nil {
		return 0, err
	}
	var data [64]byte
	binary.LittleEndian.PutUint32(data[0:], nr)
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc*8 < len(prog); pc++ {
		in := prog[pc*8:]
		code, jt, jf, k := binary.LittleEndian.Uint16(in), int(in[2]), int(in[3]), binary.LittleEndian.Uint32(in[4:])
		jump := func(cond bool) {
			if cond {
				pc += jt
			} else {
				pc += jf
			}
		}
		switch code {
		case ldWAbs:
			if k > 60 {
				return 0, fmt.Errorf("seccomp: eval: instruction %d loads offset %d beyond seccomp_data", pc, k)
			}
			acc = binary.LittleEndian.Uint32(data[k:])
		case jeqK:
			jump(acc == k)
		case jgeK:
			jump(acc >= k)
		case jsetK:
			jump(acc&k != 0)
		case andK:
			acc &= k
		case retK:
			return k, nil
		}
	}
	return 0, errors.New("seccomp: eval: the program ran off its end")
}

// Check reports whether prog is a program of whole instructions, each one
// the assembler emits, whose jumps stay inside it and whose last
// instruction is a return.
func Check(prog []byte) error {
	if len(prog) == 0 || len(prog)%8 != 0 {
		return fmt.Errorf("seccomp: check: %d bytes is no whole number of instructions", len(prog))
	}
	n := len(prog) / 8
	for pc := range n {
		in := prog[pc*8:]
		code, jt, jf := binary.LittleEndian.Uint16(in), int(in[2]), int(in[3])
		switch code {
		case ldWAbs, andK, retK:
			if jt != 0 || jf != 0 {
				return fmt.Errorf("seccomp: check: instruction %d (%#x) has jump offsets", pc, code)
			}
		case jeqK, jgeK, jsetK:
			if pc+1+max(jt, jf) >= n {
				return fmt.Errorf("seccomp: check: instruction %d jumps past the end", pc)
			}
		default:
			return fmt.Errorf("seccomp: check: instruction %d: unknown code %#x", pc, code)
		}
	}
	if binary.LittleEndian.Uint16(prog[(n-1)*8:]) != retK {
		return errors.New("seccomp: check: the last instruction is no return")
	}
	return nil
}

// Listing prints prog one instruction a line, with jump targets as
// absolute instruction numbers: the form a golden file pins a filter in.
func Listing(prog []byte) string {
	var b strings.Builder
	for i := 0; i+8 <= len(prog); i += 8 {
		n := i / 8
		code := binary.LittleEndian.Uint16(prog[i:])
		jt, jf := int(prog[i+2]), int(prog[i+3])
		k := binary.LittleEndian.Uint32(prog[i+4:])
		switch code {
		case ldWAbs:
			fmt.Fprintf(&b, "%4d  ld   [%d]\n", n, k)
		case retK:
			fmt.Fprintf(&b, "%4d  ret  %#x\n", n, k)
		case andK:
			fmt.Fprintf(&b, "%4d  and  %#x\n", n, k)
		case jeqK, jgeK, jsetK:
			op := map[uint16]string{jeqK: "jeq ", jgeK: "jge ", jsetK: "jset"}[code]
			fmt.Fprintf(&b, "%4d  %s %#x  true %d  false %d\n", n, op, k, n+1+jt, n+1+jf)
		default:
			fmt.Fprintf(&b, "%4d  code %#x jt %d jf %d k %#x\n", n, code, jt, jf, k)
		}
	}
	return b.String()
}
