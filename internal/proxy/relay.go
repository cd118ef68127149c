package proxy

import (
	"io"
	"net"
	"sync"
)

// relayBufSize is the buffer a relay copies through while bytes flow. A
// copy through user space measured faster than splice(2), which io.Copy
// uses between two TCP connections: the spliced pages stay referenced
// until the client reads them, so the server's kernel cannot reuse its
// send pages and the client and server, not the proxy, paid twice the CPU
// (docs/performance.md). 1 MiB measured faster than 64 and 256 KiB.
const relayBufSize = 1 << 20

var relayBufs = sync.Pool{New: func() any { b := make([]byte, relayBufSize); return &b }}

// copyConn copies from src to dst until src ends or either fails, and
// returns the bytes written. It holds a buffer from relayBufs only while
// src has bytes to read, so an idle connection holds none.
func copyConn(dst io.Writer, src net.Conn) (int64, error) {
	var written int64
	for {
		if err := waitReadable(src); err != nil {
			return written, err
		}
		bp := relayBufs.Get().(*[]byte)
		buf := *bp
		for {
			n, err := src.Read(buf)
			if n > 0 {
				m, werr := dst.Write(buf[:n])
				written += int64(m)
				if werr == nil && m != n {
					werr = io.ErrShortWrite
				}
				if werr != nil {
					relayBufs.Put(bp)
					return written, werr
				}
			}
			if err != nil {
				relayBufs.Put(bp)
				if err == io.EOF {
					return written, nil
				}
				return written, err
			}
			// A full buffer: more is likely queued. Otherwise src
			// is drained; give the buffer back before waiting.
			if n < len(buf) {
				break
			}
		}
		relayBufs.Put(bp)
	}
}
