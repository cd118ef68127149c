package gen

import "bytes"

// terminalNote says, under a seccomp section that refuses ioctls, what the
// filter leaves open on a terminal and who puts it back.
func terminalNote(b *bytes.Buffer, es []SeccompEntry) {
	for _, e := range es {
		if e.Ioctl == "" {
			continue
		}
		b.WriteString("\nThe terminal's settings (`tcsetattr`, the `TCSETS` requests) stay open:\n")
		b.WriteString("editors, pagers and password prompts need them. `sandtable run` saves the\n")
		b.WriteString("settings, line discipline and exclusive mode of each standard descriptor\n")
		b.WriteString("that is a terminal before the command starts, and puts back what changed\n")
		b.WriteString("once it has ended, whether it exited or was killed.\n")
		return
	}
}
