package testkit

import (
	"fmt"
	"net"
)

// ServeLine answers every connection ln accepts with line and a newline,
// then closes it, until ln is closed.
func ServeLine(ln net.Listener, line string) {
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			fmt.Fprintln(c, line)
			c.Close()
		}
	}()
}
