package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// The proxy's HTTP side, by hand: net/http would add a millisecond to the
// start of every program that imports this package, the network helper
// included.

const (
	maxHeaderBytes = 64 << 10
	maxHeaderLines = 200
)

// httpHead is a request's first line and its header lines, as sent.
type httpHead struct {
	method, target, proto string
	lines                 []string // "Name: value", without line ends
}

// get returns the value of the first header called name.
func (h *httpHead) get(name string) (string, bool) {
	for _, l := range h.lines {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// readHead reads a request's head. No line is held beyond what is left of
// maxHeaderBytes (a line without an end stops there), and a control
// character (other than a tab in a header line) or DEL in any line is
// refused: a bare CR would end a header line early for a lenient upstream
// that the proxy forwarded it to.
func readHead(br *bufio.Reader) (*httpHead, error) {
	n := 0
	line := func() (string, error) {
		var b []byte
		for {
			frag, err := br.ReadSlice('\n')
			n += len(frag)
			if n > maxHeaderBytes {
				return "", errors.New("request header too large")
			}
			b = append(b, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return "", err
			}
			return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
		}
	}
	first, err := line()
	if err != nil {
		return nil, err
	}
	parts := strings.Split(first, " ")
	if len(parts) != 3 || !strings.HasPrefix(parts[2], "HTTP/1.") || parts[0] == "" || parts[1] == "" || strings.ContainsFunc(first, isCTL) {
		return nil, fmt.Errorf("malformed request line %s", strconv.QuoteToASCII(first))
	}
	h := &httpHead{method: parts[0], target: parts[1], proto: parts[2]}
	for {
		l, err := line()
		if err != nil {
			return nil, err
		}
		if l == "" {
			return h, nil
		}
		if len(h.lines) == maxHeaderLines {
			return nil, errors.New("too many header lines")
		}
		if l[0] == ' ' || l[0] == '\t' || !strings.Contains(l, ":") || strings.ContainsFunc(l, func(r rune) bool { return r != '\t' && isCTL(r) }) {
			return nil, fmt.Errorf("malformed header line %s", strconv.QuoteToASCII(l))
		}
		h.lines = append(h.lines, l)
	}
}

// isCTL reports an ASCII control character or DEL.
func isCTL(r rune) bool { return r < 0x20 || r == 0x7f }

// sameDest reports whether a Host header names host:port: the same name,
// and the same port or none.
func sameDest(hostHeader, host string, port int) bool {
	hh, hp, err := net.SplitHostPort(hostHeader)
	if err != nil {
		hh, hp = hostHeader, ""
	}
	norm := func(s string) string { return strings.ToLower(strings.TrimSuffix(strings.Trim(s, "[]"), ".")) }
	return norm(hh) == norm(host) && (hp == "" || hp == strconv.Itoa(port))
}

func (p *proxy) http(c net.Conn, br *bufio.Reader) {
	h, err := readHead(br)
	if err != nil {
		httpError(c, 400, "sandbox: network proxy: "+err.Error())
		return
	}
	if !p.httpAuthorized(c, h) {
		return
	}
	_ = c.SetReadDeadline(timeZero)
	var host string
	var port int
	forward := h.method != "CONNECT"
	var u *url.URL
	if !forward {
		if host, port, err = splitHostPort(h.target, 0); err != nil {
			httpError(c, 400, "sandbox: network proxy: CONNECT "+h.target+": "+err.Error())
			return
		}
	} else {
		u, err = url.Parse(h.target)
		if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil {
			httpError(c, 400, "sandbox: network proxy: "+h.method+" "+h.target+": want an absolute http:// URL, or CONNECT for anything else")
			return
		}
		if host, port, err = splitHostPort(u.Host, 80); err != nil {
			httpError(c, 400, "sandbox: network proxy: "+u.Host+": "+err.Error())
			return
		}
	}
	// The Host header must name the destination checked: a server behind
	// an allowed address must not be asked for another site.
	if hh, ok := h.get("Host"); ok && !sameDest(hh, host, port) {
		httpError(c, 400, "sandbox: network proxy: Host header "+strconv.Quote(hh)+" does not name the destination "+net.JoinHostPort(host, strconv.Itoa(port)))
		return
	}
	var body int64 // the request body's length; -1: chunked
	if forward {
		if body, err = bodyLength(h); err != nil {
			httpError(c, 400, "sandbox: network proxy: "+err.Error())
			return
		}
	}
	up, err := p.connect(context.Background(), host, port)
	if err != nil {
		proxyHTTPFailure(c, err)
		return
	}
	defer up.Close()
	if !forward {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		relay(c, up, br)
		return
	}
	// One request per connection: the request goes on in origin form,
	// with the destination as its Host, then the body its head declares
	// and nothing after it, and the upstream closes after its response,
	// which ends this connection too.
	var b strings.Builder
	b.WriteString(h.method + " " + u.RequestURI() + " " + h.proto + "\r\nHost: " + u.Host + "\r\n")
	for _, l := range h.lines {
		k, _, _ := strings.Cut(l, ":")
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "host", "connection", "proxy-connection", "proxy-authorization", "keep-alive":
			continue
		}
		b.WriteString(l + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	if _, err := io.WriteString(up, b.String()); err != nil {
		httpError(c, 502, "sandbox: network proxy: "+err.Error())
		return
	}
	go func() {
		if body < 0 {
			_ = copyChunked(up, br)
		} else if body > 0 {
			_, _ = io.CopyN(up, br, body)
		}
	}()
	_, _ = copyConn(c, up)
}

// bodyLength is the length of the body h declares: Content-Length, or -1
// for Transfer-Encoding: chunked, or 0 for none. A head whose framing two
// readers could take apart (both headers, differing lengths, another
// coding) is an error: what one server reads as a body another reads as
// a second request.
func bodyLength(h *httpHead) (int64, error) {
	length, chunked := int64(0), false
	seenLength := false
	for _, l := range h.lines {
		k, v, _ := strings.Cut(l, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case strings.EqualFold(k, "Transfer-Encoding"):
			if !strings.EqualFold(v, "chunked") || chunked {
				return 0, fmt.Errorf("Transfer-Encoding %s: only one chunked is forwarded", strconv.QuoteToASCII(v))
			}
			chunked = true
		case strings.EqualFold(k, "Content-Length"):
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || v[0] == '+' || seenLength && n != length {
				return 0, fmt.Errorf("Content-Length %s", strconv.QuoteToASCII(v))
			}
			length, seenLength = n, true
		}
	}
	if chunked && seenLength {
		return 0, errors.New("both Content-Length and Transfer-Encoding")
	}
	if chunked {
		return -1, nil
	}
	return length, nil
}

// copyChunked copies one chunked body from r to w as it is: its chunks,
// the last one and the trailer section, and nothing after them.
func copyChunked(w io.Writer, r *bufio.Reader) error {
	left := maxHeaderBytes // for the size lines and the trailers
	line := func() (string, error) {
		var b []byte
		for {
			frag, err := r.ReadSlice('\n')
			if left -= len(frag); left < 0 {
				return "", errors.New("chunk framing too large")
			}
			b = append(b, frag...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return "", err
			}
			if _, err := w.Write(b); err != nil {
				return "", err
			}
			return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
		}
	}
	for {
		l, err := line()
		if err != nil {
			return err
		}
		hex, _, _ := strings.Cut(l, ";")
		hex = strings.TrimSpace(hex)
		size, err := strconv.ParseInt(hex, 16, 64)
		if err != nil || strings.ContainsAny(hex[:1], "+-") {
			return fmt.Errorf("chunk size %s", strconv.QuoteToASCII(l))
		}
		if size == 0 {
			for { // the trailer section, to its empty line
				if l, err := line(); err != nil || l == "" {
					return err
				}
			}
		}
		if _, err := io.CopyN(w, r, size); err != nil {
			return err
		}
		if l, err := line(); err != nil || l != "" {
			return fmt.Errorf("chunk without its line end: %v", err)
		}
	}
}

func proxyHTTPFailure(c net.Conn, err error) {
	var r *refusal
	if errors.As(err, &r) {
		httpError(c, 403, r.msg)
		return
	}
	httpError(c, 502, "sandbox: network proxy: "+err.Error())
}

var statusText = map[int]string{400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway", 503: "Service Unavailable"}

func httpError(c net.Conn, code int, msg string) {
	body := msg + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, statusText[code], len(body), body)
}

// splitHostPort reads HOST:PORT, PORT defaulting to def when def is not 0.
func splitHostPort(s string, def int) (string, int, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if def == 0 || strings.Count(s, ":") == 1 {
			return "", 0, err
		}
		host, port = s, strconv.Itoa(def)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("port %q is not 1-65535", port)
	}
	return host, n, nil
}
