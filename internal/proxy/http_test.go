package proxy

import (
	"bufio"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"
)

// upstreamOnce accepts one connection on a fresh 127.0.0.1 listener and
// sends everything it read in a second (or until the client closes), and
// closes it without an answer.
func upstreamOnce(t *testing.T) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- ""
			return
		}
		defer c.Close()
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	return ln.Addr().String(), got
}

// unblock connects to up and hangs up: upstreamOnce's Accept returns,
// with nothing read, if the proxy never came.
func unblock(up string) {
	if d, err := net.Dial("tcp", up); err == nil {
		d.Close()
	}
}

// proxySays sends raw to a proxy that lists up as private, and returns the
// proxy's status line: "" once a forwarded request's upstream closed.
func proxySays(t *testing.T, up, raw string) string {
	t.Helper()
	c, err := net.Dial("tcp", loopProxy(t, Config{Private: []string{up}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestProxyForwardsOneRequest: plain forwarding sends the upstream the
// request and the body its head declares, and nothing the command sent
// after it: a second request there (another site in its Host, for a
// server that ignores the proxy's Connection: close) never leaves. With a
// length, chunked, and none.
func TestProxyForwardsOneRequest(t *testing.T) {
	second := "GET /b HTTP/1.1\r\nHost: internal.admin\r\n\r\n"
	for _, c := range []struct{ name, head, body, want string }{
		{"none", "", "", ""},
		{"length", "Content-Length: 5\r\n", "hello", "hello"},
		// In plain framing: no extension, no trailer.
		{"chunked", "Transfer-Encoding: chunked\r\n", "5;x=1\r\nhello\r\n0A\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n", "5\r\nhello\r\na\r\n0123456789\r\n0\r\n\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			up, got := upstreamOnce(t)
			proxySays(t, up, "POST http://"+up+"/a HTTP/1.1\r\n"+c.head+"\r\n"+c.body+second)
			fwd := <-got
			if !strings.HasPrefix(fwd, "POST /a HTTP/1.1\r\n") || !strings.HasSuffix(fwd, "\r\n\r\n"+c.want) {
				t.Errorf("upstream read %q, want the request and its body %q", fwd, c.want)
			}
			if strings.Contains(fwd, "internal.admin") {
				t.Errorf("upstream read the command's second request: %q", fwd)
			}
		})
	}
}

// TestProxyRefusesAmbiguousHeads: a head with a control character in a
// line (a bare CR ends a header line early for a lenient server: its
// "Connection: keep-alive" would undo the proxy's close) or with framing
// two readers could take apart is answered 400, and nothing reaches the
// upstream.
func TestProxyRefusesAmbiguousHeads(t *testing.T) {
	for _, c := range []struct{ name, head string }{
		{"bare-cr", "X-A: 1\rConnection: keep-alive\r\n"},
		{"nul", "X-A: 1\x00\r\n"},
		{"esc-in-name", "X\x1b: 1\r\n"},
		{"length-and-chunked", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"},
		{"two-lengths", "Content-Length: 5\r\nContent-Length: 6\r\n"},
		{"signed-length", "Content-Length: +5\r\n"},
		{"gzip-coding", "Transfer-Encoding: gzip, chunked\r\n"},
		{"space-before-colon", "Content-Length : 5\r\n"},
		{"long-s", "Tran\u017ffer-Encoding: chunked\r\n"},
		{"obs-fold", "X-A: 1\r\n 2\r\n"},
		{"nbsp-length", "Content-Length: \u00a05\r\n"},
		// An HTTP/1.0 upstream reads no chunked framing.
		{"chunked-in-1.0", "1.0 Transfer-Encoding: chunked\r\n"},
		// Nor one that reads these versions as 1.0 (FuzzReadHead).
		{"version-1.00", "HTTP/1.00 Transfer-Encoding: chunked\r\n"},
		{"version-1.1x", "HTTP/1.1x Transfer-Encoding: chunked\r\n"},
		{"minus-zero-length", "Content-Length: -0\r\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			up, got := upstreamOnce(t)
			proto := "HTTP/1.1"
			if head, ok := strings.CutPrefix(c.head, "1.0 "); ok {
				proto, c.head = "HTTP/1.0", head
			}
			if v, head, ok := strings.Cut(c.head, " "); ok && strings.HasPrefix(v, "HTTP/") {
				proto, c.head = v, head
			}
			status := proxySays(t, up, "POST http://"+up+"/a "+proto+"\r\n"+c.head+"\r\nhello")
			if !strings.HasPrefix(status, "HTTP/1.1 400 ") {
				t.Errorf("proxy answered %q, want 400", status)
			}
			// Nothing was dialled: the listener closes with nothing read.
			unblock(up)
			if fwd := <-got; fwd != "" {
				t.Errorf("upstream read %q", fwd)
			}
		})
	}
	t.Run("tab-in-value", func(t *testing.T) {
		up, got := upstreamOnce(t)
		proxySays(t, up, "GET http://"+up+"/a HTTP/1.1\r\nX-A: 1\t2\r\n\r\n")
		if fwd := <-got; !strings.Contains(fwd, "X-A: 1\t2\r\n") {
			t.Errorf("a tab in a header value is legal; upstream read %q", fwd)
		}
	})
}

// TestProxyHeadBounded: a request line without an end costs the proxy no
// more than maxHeaderBytes: it answers 400 and stops reading, where a
// whole-line read held every byte sent.
func TestProxyHeadBounded(t *testing.T) {
	c, err := net.Dial("tcp", loopProxy(t, Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunk := []byte(strings.Repeat("a", 1<<20))
	_, _ = c.Write([]byte("GET /"))
	sent := 0
	for ; sent < 64<<20; sent += len(chunk) {
		_ = c.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write(chunk); err != nil {
			break
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("a %d MiB request line cost the proxy %d MiB", sent>>20, grew>>20)
	}
	if !strings.HasPrefix(line, "HTTP/1.1 400 ") {
		t.Errorf("proxy answered %q, want 400", line)
	}
}

// TestProxyChunkedFraming: a chunked body whose framing a lenient upstream
// could read otherwise (a bare CR or a line without a colon among the
// trailers, a size with spaces or a sign, a bare LF after the data, a
// Kelvin sign in "chunked") goes no further than the proxy's reading of
// it: the upstream gets the head and the chunks before it, never the
// request hidden after it, and the connection ends.
func TestProxyChunkedFraming(t *testing.T) {
	second := "GET /smuggled HTTP/1.1\r\nHost: internal.admin\r\n\r\n"
	for _, c := range []struct{ name, head, body string }{
		{"trailer-bare-cr", "Transfer-Encoding: chunked\r\n", "1\r\na\r\n0\r\nX: a\r\r\n" + second},
		{"trailer-request", "Transfer-Encoding: chunked\r\n", "0\r\n" + second},
		{"size-space", "Transfer-Encoding: chunked\r\n", " 1\r\na\r\n0\r\n\r\n" + second},
		{"size-sign", "Transfer-Encoding: chunked\r\n", "+1\r\na\r\n0\r\n\r\n" + second},
		{"data-bare-lf", "Transfer-Encoding: chunked\r\n", "1\r\na\n0\r\n\r\n" + second},
		{"size-overflow", "Transfer-Encoding: chunked\r\n", "00000000000000000000001\r\na\r\n0\r\n\r\n" + second},
		{"kelvin-chunked", "Transfer-Encoding: chun\u212aed\r\n", "1\r\na\r\n0\r\n\r\n" + second},
	} {
		t.Run(c.name, func(t *testing.T) {
			up, got := upstreamOnce(t)
			proxySays(t, up, "POST http://"+up+"/a HTTP/1.1\r\n"+c.head+"\r\n"+c.body)
			unblock(up)
			if fwd := <-got; strings.Contains(fwd, "smuggled") || strings.Contains(fwd, "internal.admin") {
				t.Errorf("upstream read %q", fwd)
			}
		})
	}
}

// TestProxyManyChunks: a long chunked upload (20,000 chunks) goes through
// whole: the framing bound is per line, not per body.
func TestProxyManyChunks(t *testing.T) {
	up, got := upstreamOnce(t)
	var body strings.Builder
	for range 20000 {
		body.WriteString("3\r\nabc\r\n")
	}
	body.WriteString("0\r\n\r\n")
	proxySays(t, up, "POST http://"+up+"/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"+body.String())
	fwd := <-got
	if !strings.HasSuffix(fwd, "\r\n\r\n"+body.String()) {
		t.Errorf("upstream read %d bytes ending %q, want the whole body", len(fwd), fwd[max(0, len(fwd)-40):])
	}
}
