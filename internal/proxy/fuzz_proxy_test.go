package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The proxy's parsers of what the sandbox sends, fuzzed: the request head
// and its framing, a chunked body, and SOCKS5's greeting, user name and
// password, and request. Each target holds the parser to a strict second
// reading written here from the RFC: the parser never panics, accepts
// nothing the strict reading rejects or reads otherwise (where two
// readers part, an upstream reads a second request), takes exactly the
// bytes of what it read and no more, and keeps within its bounds. Seeds
// are in testdata/fuzz/FuzzReadHead/, FuzzCopyChunked/ and FuzzSocks5/.

// consumed is how many bytes of data the reader r, over a bytes.Reader
// rd of data, has taken.
func consumed(data []byte, rd *bytes.Reader, br *bufio.Reader) int {
	return len(data) - rd.Len() - br.Buffered()
}

func FuzzReadHead(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := bytes.NewReader(data)
		br := bufio.NewReader(rd)
		h, err := readHead(br)
		if err != nil {
			return
		}
		size := len(h.method) + len(h.target) + len(h.proto)
		for _, l := range h.lines {
			size += len(l)
		}
		if size > maxHeaderBytes || len(h.lines) > maxHeaderLines {
			t.Fatalf("a head of %d bytes and %d lines accepted", size, len(h.lines))
		}
		s, n, why := strictHead(data)
		if why != "" {
			t.Fatalf("readHead accepts a head the strict reading rejects (%s): %q", why, data)
		}
		if got := consumed(data, rd, br); got != n {
			t.Fatalf("readHead took %d bytes, the head is %d: %q", got, n, data)
		}
		if h.method != s.method || h.target != s.target || h.proto != s.proto || !slices.Equal(h.lines, s.lines) {
			t.Fatalf("readHead reads %+v, the strict reading %+v", *h, s)
		}
		body, err := bodyLength(h)
		want, why := strictFraming(s)
		if err == nil && why != "" || err == nil && body != want {
			t.Fatalf("bodyLength = %d, %v; the strict framing %d (%s): %q", body, err, want, why, data)
		}
	})
}

// strictHead reads an HTTP/1.x request head as RFC 9112 does: a request
// line METHOD SP TARGET SP HTTP-VERSION, field lines NAME ":" OWS VALUE
// OWS, each line ended by CRLF or a lone LF, then an empty line. n is the
// head's length in data; why is why it is refused.
func strictHead(data []byte) (h httpHead, n int, why string) {
	var lines []string
	for {
		i := bytes.IndexByte(data[n:], '\n')
		if i < 0 {
			return h, 0, "no line end"
		}
		l := string(data[n : n+i])
		n += i + 1
		l = strings.TrimSuffix(l, "\r")
		if l == "" {
			break
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return h, 0, "no request line"
	}
	ctl := func(s string, tab bool) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 && !(tab && c == '\t') || c == 0x7f {
				return true
			}
		}
		return false
	}
	token := func(s string) bool {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
				return false
			}
		}
		return s != ""
	}
	m, rest, ok1 := strings.Cut(lines[0], " ")
	tgt, ver, ok2 := strings.Cut(rest, " ")
	switch {
	case !ok1 || !ok2 || !token(m):
		return h, 0, "request line"
	case tgt == "" || strings.ContainsAny(tgt, " ") || ctl(tgt, false):
		return h, 0, "request target"
	case ver != "HTTP/1.0" && ver != "HTTP/1.1":
		return h, 0, "HTTP version " + strconv.Quote(ver)
	}
	h = httpHead{method: m, target: tgt, proto: ver}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok || !token(name) || ctl(value, true) {
			return h, 0, "field line " + strconv.Quote(l)
		}
		h.lines = append(h.lines, l)
	}
	return h, n, ""
}

// strictFraming is the body a strict head declares (RFC 9112 section
// 6.3): Content-Length, one or more of the same 1*DIGIT; or
// Transfer-Encoding: chunked, once, in HTTP/1.1, without Content-Length
// (-1); or none (0).
func strictFraming(h httpHead) (int64, string) {
	var lengths []string
	chunked := 0
	for _, l := range h.lines {
		name, value, _ := strings.Cut(l, ":")
		value = strings.Trim(value, " \t")
		switch strings.ToLower(name) {
		case "content-length":
			lengths = append(lengths, value)
		case "transfer-encoding":
			if strings.ToLower(value) != "chunked" {
				return 0, "a coding but chunked"
			}
			chunked++
		}
	}
	switch {
	case chunked > 0 && (chunked > 1 || len(lengths) > 0 || h.proto != "HTTP/1.1"):
		return 0, "chunked twice, with a length, or in HTTP/1.0"
	case chunked == 1:
		return -1, ""
	case len(lengths) == 0:
		return 0, ""
	}
	for _, v := range lengths {
		if v == "" || strings.Trim(v, "0123456789") != "" || v != lengths[0] && strings.TrimLeft(v, "0") != strings.TrimLeft(lengths[0], "0") {
			return 0, "Content-Length " + strconv.Quote(v)
		}
	}
	n, err := strconv.ParseInt(lengths[0], 10, 64)
	if err != nil {
		return 0, "Content-Length out of range"
	}
	return n, ""
}

func FuzzCopyChunked(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := bytes.NewReader(data)
		br := bufio.NewReader(rd)
		var out bytes.Buffer
		if err := copyChunked(&out, br); err != nil {
			return
		}
		want, n, _, why := strictChunked(data)
		if why != "" {
			t.Fatalf("copyChunked takes a body the strict reading rejects (%s): %q", why, data)
		}
		if got := consumed(data, rd, br); got != n {
			t.Fatalf("copyChunked took %d bytes, the body is %d: %q", got, n, data)
		}
		fwd, m, extra, why := strictChunked(out.Bytes())
		if why != "" || m != out.Len() || !bytes.Equal(fwd, want) {
			t.Fatalf("copyChunked sends %q (%s, %d of %d bytes read), which is not the body %q", out.Bytes(), why, m, out.Len(), want)
		}
		if extra {
			t.Fatalf("copyChunked sends an extension or a trailer on: %q", out.Bytes())
		}
	})
}

// strictChunked reads a chunked body as RFC 9112 section 7.1 writes it:
// chunks of 1*HEXDIG size (an extension after ; without control
// characters), CRLF, the data and CRLF, then a last chunk of zeros and
// its trailer lines up to an empty line, every line ended by CRLF. It
// returns the data, the body's length in d, and whether it has an
// extension or a trailer.
func strictChunked(d []byte) (data []byte, n int, extra bool, why string) {
	line := func() (string, bool) {
		i := bytes.Index(d[n:], []byte("\r\n"))
		if i < 0 {
			return "", false
		}
		l := string(d[n : n+i])
		n += i + 2
		for j := 0; j < len(l); j++ {
			if c := l[j]; c < 0x20 && c != '\t' || c == 0x7f || c == '\n' {
				return "", false
			}
		}
		return l, len(l) <= maxChunkLine
	}
	for {
		l, ok := line()
		if !ok {
			return nil, 0, false, "a size line"
		}
		hex, _, ext := strings.Cut(l, ";")
		extra = extra || ext
		size, err := strconv.ParseUint(hex, 16, 63)
		if hex == "" || strings.Trim(hex, "0123456789abcdefABCDEF") != "" || err != nil {
			return nil, 0, false, "a chunk size " + strconv.Quote(hex)
		}
		if size == 0 {
			for trailers := 0; ; trailers++ {
				l, ok := line()
				if !ok || trailers > maxHeaderLines {
					return nil, 0, false, "a trailer line"
				}
				if l == "" {
					return data, n, extra, ""
				}
				extra = true
			}
		}
		if uint64(len(d)-n) < size+2 || string(d[n+int(size):n+int(size)+2]) != "\r\n" {
			return nil, 0, false, "chunk data without its CRLF"
		}
		data = append(data, d[n:n+int(size)]...)
		n += int(size) + 2
	}
}

func FuzzSocks5(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, userPass bool) {
		rd := bytes.NewReader(data)
		br := bufio.NewReader(rd)
		methods, err := readSocksGreeting(br)
		if err != nil {
			return
		}
		if len(data) < 2 || data[0] != 5 || len(methods) != int(data[1]) || !bytes.Equal(methods, data[2:2+len(methods)]) {
			t.Fatalf("greeting %q read as methods %q", data, methods)
		}
		n := 2 + len(methods)
		if got := consumed(data, rd, br); got != n {
			t.Fatalf("the greeting took %d bytes, it is %d", got, n)
		}
		if userPass {
			user, pass, err := readSocksUserPass(br)
			if err != nil {
				return
			}
			d := data[n:]
			if d[0] != 1 || !bytes.Equal(user, d[2:2+int(d[1])]) || !bytes.Equal(pass, d[3+int(d[1]):3+int(d[1])+int(d[2+int(d[1])])]) {
				t.Fatalf("sub-negotiation %q read as %q, %q", d, user, pass)
			}
			n += 3 + len(user) + len(pass)
			if got := consumed(data, rd, br); got != n {
				t.Fatalf("the sub-negotiation took to %d, it ends at %d", got, n)
			}
		}
		req, code, err := readSocksRequest(br)
		d := data[n:]
		if err != nil {
			if code == socksNoAddrType && (len(d) < 4 || d[3] == 1 || d[3] == 3 || d[3] == 4) {
				t.Fatalf("an address type it reads refused: %q", d)
			}
			return
		}
		want, size, why := strictSocksRequest(d)
		if why != "" {
			t.Fatalf("readSocksRequest takes a request the strict reading rejects (%s): %q", why, d)
		}
		if req.cmd != want.cmd || req.port != want.port || !sameSocksHost(req.host, want.host) {
			t.Fatalf("readSocksRequest reads %+v, the strict reading %+v", req, want)
		}
		if got := consumed(data, rd, br); got != n+size {
			t.Fatalf("the request took to %d, it ends at %d", got, n+size)
		}
	})
}

// strictSocksRequest reads a SOCKS5 request (RFC 1928 section 4).
func strictSocksRequest(d []byte) (socksRequest, int, string) {
	if len(d) < 4 || d[0] != 5 {
		return socksRequest{}, 0, "version"
	}
	var host string
	at := 4
	switch d[3] {
	case 1:
		if len(d) < at+4 {
			return socksRequest{}, 0, "short"
		}
		host = strconv.Itoa(int(d[4])) + "." + strconv.Itoa(int(d[5])) + "." + strconv.Itoa(int(d[6])) + "." + strconv.Itoa(int(d[7]))
		at += 4
	case 4:
		if len(d) < at+16 {
			return socksRequest{}, 0, "short"
		}
		host = netip.AddrFrom16([16]byte(d[4:20])).String()
		at += 16
	case 3:
		if len(d) < 5 || len(d) < 5+int(d[4]) {
			return socksRequest{}, 0, "short"
		}
		host = string(d[5 : 5+int(d[4])])
		at += 1 + int(d[4])
	default:
		return socksRequest{}, 0, "address type"
	}
	if len(d) < at+2 {
		return socksRequest{}, 0, "short"
	}
	return socksRequest{cmd: d[1], host: host, port: int(binary.BigEndian.Uint16(d[at:]))}, at + 2, ""
}

// sameSocksHost: the same name, or the same address however written.
func sameSocksHost(a, b string) bool {
	x, err1 := netip.ParseAddr(a)
	y, err2 := netip.ParseAddr(b)
	if err1 == nil && err2 == nil {
		return x == y
	}
	return a == b
}
