package proxy

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
	maxChunkLine   = 4 << 10 // a chunked body's size line or trailer line
)

// httpHead is a request's first line and its header lines, as sent.
type httpHead struct {
	method, target, proto string
	lines                 []string // "Name: value", without line ends
}

// get returns the value of the first header called name.
func (h *httpHead) get(name string) (string, bool) {
	for _, l := range h.lines {
		k, v, _ := strings.Cut(l, ":")
		if equalFoldASCII(k, name) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// readHead reads a request's head. No line is held beyond what is left of
// maxHeaderBytes (a line without an end stops there). The method must be a
// token, and the version HTTP/1.0 or HTTP/1.1, as they are forwarded: an upstream that reads
// HTTP/1.00 or HTTP/1.1x as 1.0 reads a chunked body as the next request.
// A control character (other than a tab in a header value) or DEL in any
// line is refused, and so is a header name that is not a token (RFC 9110:
// no space before the colon, ASCII only): a bare CR would end a header
// line early for a lenient upstream, and a name the proxy and the upstream
// read apart ("Content-Length :") would frame the body apart.
func readHead(br *bufio.Reader) (*httpHead, error) {
	left := maxHeaderBytes
	line := func() (string, error) {
		b, err := readLine(br, left, "request header too large")
		left -= len(b)
		if err != nil {
			return "", err
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
	first, err := line()
	if err != nil {
		return nil, err
	}
	parts := strings.Split(first, " ")
	if len(parts) != 3 || parts[2] != "HTTP/1.0" && parts[2] != "HTTP/1.1" || !isToken(parts[0]) || parts[1] == "" || strings.ContainsFunc(first, isCTL) {
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
		if k, v, ok := strings.Cut(l, ":"); !ok || !isToken(k) || strings.ContainsFunc(v, func(r rune) bool { return r != '\t' && isCTL(r) }) {
			return nil, fmt.Errorf("malformed header line %s", strconv.QuoteToASCII(l))
		}
		h.lines = append(h.lines, l)
	}
}

// readLine reads up to and including the next LF, holding no more than
// limit bytes of it: a longer line is the error tooLong, with what was
// read of it.
func readLine(r *bufio.Reader, limit int, tooLong string) ([]byte, error) {
	var b []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(b)+len(frag) > limit {
			return b, errors.New(tooLong)
		}
		b = append(b, frag...)
		if err != bufio.ErrBufferFull {
			return b, err
		}
	}
}

// isCTL reports an ASCII control character or DEL.
func isCTL(r rune) bool { return r < 0x20 || r == 0x7f }

// isToken reports a non-empty RFC 9110 token: ASCII letters, digits and
// !#$%&'*+-.^_`|~, as a header's name must be.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// equalFoldASCII is strings.EqualFold for ASCII letters only: no other
// rune folds to one (the Kelvin sign to k, the long s to s).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

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

func (p *Proxy) http(c net.Conn, br *bufio.Reader) {
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
	up, err := p.Connect(context.Background(), host, port)
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
		switch strings.ToLower(k) { // a token: ASCII
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
		var err error
		if body < 0 {
			err = copyChunked(up, br)
		} else if body > 0 {
			_, err = io.CopyN(up, br, body)
		}
		if err != nil {
			// The upstream would wait for the rest, and this connection
			// for its answer.
			up.Close()
			c.Close()
		}
	}()
	_, _ = copyConn(c, up)
}

// bodyLength is the length of the body h declares: Content-Length (digits
// only, not -0 or +5), or -1 for Transfer-Encoding: chunked, or 0 for
// none. A head whose framing two readers could take apart (both headers,
// differing lengths, another coding) is an error: what one server reads
// as a body another reads as a second request.
func bodyLength(h *httpHead) (int64, error) {
	length, chunked := int64(0), false
	seenLength := false
	for _, l := range h.lines {
		k, v, _ := strings.Cut(l, ":")
		v = strings.Trim(v, " \t") // not Unicode's spaces: an upstream would not trim them
		switch {
		case equalFoldASCII(k, "Transfer-Encoding"):
			if !equalFoldASCII(v, "chunked") || chunked || h.proto == "HTTP/1.0" {
				return 0, fmt.Errorf("Transfer-Encoding %s: only one chunked, in HTTP/1.1, is forwarded", strconv.QuoteToASCII(v))
			}
			chunked = true
		case equalFoldASCII(k, "Content-Length"):
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || strings.Trim(v, "0123456789") != "" || seenLength && n != length {
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

// copyChunked reads one chunked body from r and sends w the same chunks in
// plain framing: each size in hex, its data, the last chunk, and no
// extension or trailer (read and dropped); nothing after the body is read.
// A size line or trailer line over maxChunkLine, a control character in
// either, a size that is not hex digits, or data not followed by CRLF is
// an error: what the proxy cannot read the same way as any upstream does
// not go on.
func copyChunked(w io.Writer, r *bufio.Reader) error {
	line := func() (string, error) {
		b, err := readLine(r, maxChunkLine, "chunk framing line too long")
		if err != nil {
			return "", err
		}
		l, ok := strings.CutSuffix(string(b), "\r\n")
		if !ok || strings.ContainsFunc(l, func(r rune) bool { return r != '\t' && isCTL(r) }) {
			return "", fmt.Errorf("chunk framing line %s", strconv.QuoteToASCII(string(b)))
		}
		return l, nil
	}
	for {
		l, err := line()
		if err != nil {
			return err
		}
		hex, _, _ := strings.Cut(l, ";") // extensions are dropped
		if hex == "" || len(hex) > 15 || strings.Trim(hex, "0123456789abcdefABCDEF") != "" {
			return fmt.Errorf("chunk size %s", strconv.QuoteToASCII(l))
		}
		size, _ := strconv.ParseInt(hex, 16, 64)
		if size == 0 {
			for trailers := 0; ; trailers++ { // to the empty line
				if l, err := line(); err != nil || l == "" {
					if err == nil {
						_, err = io.WriteString(w, "0\r\n\r\n")
					}
					return err
				}
				if trailers == maxHeaderLines {
					return errors.New("too many trailer lines")
				}
			}
		}
		if _, err := io.WriteString(w, strconv.FormatInt(size, 16)+"\r\n"); err != nil {
			return err
		}
		if _, err := io.CopyN(w, r, size); err != nil {
			return err
		}
		if l, err := line(); err != nil || l != "" {
			return fmt.Errorf("chunk data without its CRLF: %v", err)
		}
		if _, err := io.WriteString(w, "\r\n"); err != nil {
			return err
		}
	}
}

func proxyHTTPFailure(c net.Conn, err error) {
	var r *Refusal
	if errors.As(err, &r) {
		httpError(c, 403, r.Msg)
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
