package proxy

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// Network mode proxy's credentials (the proxy-auth rows, Config.Cred). Where a row
// names the platform, a spawn's proxy answers only a client that presents
// the row's user and a token made for that spawn: HTTP (forwarding and
// CONNECT) by Proxy-Authorization: Basic, SOCKS5 by RFC 1929 user name
// and password. The command's proxy variables carry both; nothing else
// does: not the argv, the profile, a file or a message.

// Cred is what one spawn's proxy asks of every client.
type Cred struct {
	rule, user, token string
	pending           int
	authTimeout       time.Duration
	reported          sync.Once // Config.Refused hears of the first refusal
}

// NewCred makes rule's credential for user with a fresh 128-bit token, in
// hex so that it goes into a URL's user part as it is. The proxy holds at
// most pending connections that have not presented it yet, each for at
// most authTimeout (pending.go).
func NewCred(rule, user string, pending int, authTimeout time.Duration) (*Cred, error) {
	b := make([]byte, 16)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		return nil, fmt.Errorf("sandbox: network mode proxy: make the proxy's token (rule %s): %w", rule, err)
	}
	return &Cred{rule: rule, user: user, token: hex.EncodeToString(b), pending: pending, authTimeout: authTimeout}, nil
}

// User and Token are the credential; Pending and AuthTimeout bound the
// connections yet to present it.
func (c *Cred) User() string               { return c.user }
func (c *Cred) Token() string              { return c.token }
func (c *Cred) Pending() int               { return c.pending }
func (c *Cred) AuthTimeout() time.Duration { return c.authTimeout }

// Userinfo is the credential as a URL's "user:token@".
func (c *Cred) Userinfo() string { return c.user + ":" + c.token + "@" }

// match compares a presented user and password with the credential in
// time that does not depend on where they differ.
func (c *Cred) match(user, pass []byte) bool {
	u := subtle.ConstantTimeCompare(user, []byte(c.user))
	p := subtle.ConstantTimeCompare(pass, []byte(c.token))
	return u&p == 1
}

// basicOK reports whether a Proxy-Authorization value is Basic with the
// credential.
func (c *Cred) basicOK(v string) bool {
	scheme, b64, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return false
	}
	user, pass, ok := strings.Cut(string(raw), ":")
	return ok && c.match([]byte(user), []byte(pass))
}

// httpAuthorized answers a request without the credential with a 407
// that asks for Basic, and reports whether the request may go on.
func (p *Proxy) httpAuthorized(c net.Conn, h *httpHead) bool {
	if p.cfg.Cred == nil {
		return true
	}
	if v, ok := h.get("Proxy-Authorization"); ok && p.cfg.Cred.basicOK(v) {
		return p.authenticated(c)
	}
	msg := p.authRefused()
	body := msg + "\n"
	_ = c.SetWriteDeadline(time.Now().Add(proxyHeaderTimeout))
	fmt.Fprintf(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"sandtable\"\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	return false
}

// authRefused is the refusal's message, which Config.Refused hears once:
// a client that asks without credentials first (git, anything through
// libcurl's "any" method) is refused once before it sends them.
func (p *Proxy) authRefused() string {
	msg := "sandbox: network proxy refused a client without this run's credentials (rule " + p.cfg.Cred.rule +
		"); the command's proxy variables carry them, and a tool that reads only the host and port (the JVM's proxy properties) cannot use the proxy"
	p.cfg.Cred.reported.Do(func() {
		if p.cfg.Refused != nil {
			p.cfg.Refused(msg)
		}
	})
	return msg
}

// SOCKS5 methods and the RFC 1929 sub-negotiation.
const (
	socksNoAuth      = 0
	socksUserPass    = 2
	socksNoMethod    = 0xff
	socksUserPassVer = 1
)

// readSocksUserPass reads the RFC 1929 sub-negotiation, and nothing past
// it: version 1, then the user name and the password, each after its
// length.
func readSocksUserPass(br *bufio.Reader) (user, pass []byte, err error) {
	ver, err := br.ReadByte()
	if err != nil {
		return nil, nil, err
	}
	if ver != socksUserPassVer {
		return nil, nil, errors.New("socks: not user name and password version 1")
	}
	field := func() ([]byte, error) {
		n, err := br.ReadByte()
		if err != nil {
			return nil, err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return b, err
	}
	if user, err = field(); err != nil {
		return nil, nil, err
	}
	if pass, err = field(); err != nil {
		return nil, nil, err
	}
	return user, pass, nil
}

// socksMethod chooses the greeting's method and, when the proxy asks for
// the credential, reads and checks it (RFC 1929); false ends the
// connection.
func (p *Proxy) socksMethod(c net.Conn, br *bufio.Reader, methods []byte) bool {
	if p.cfg.Cred == nil {
		if !strings.ContainsRune(string(methods), socksNoAuth) {
			_, _ = c.Write([]byte{5, socksNoMethod})
			return false
		}
		_, err := c.Write([]byte{5, socksNoAuth})
		return err == nil
	}
	if !strings.ContainsRune(string(methods), socksUserPass) {
		p.authRefused()
		_, _ = c.Write([]byte{5, socksNoMethod})
		return false
	}
	if _, err := c.Write([]byte{5, socksUserPass}); err != nil {
		return false
	}
	user, pass, err := readSocksUserPass(br)
	if err != nil {
		return false
	}
	if !p.cfg.Cred.match(user, pass) {
		p.authRefused()
		_, _ = c.Write([]byte{socksUserPassVer, 1})
		return false
	}
	if !p.authenticated(c) {
		return false // admit answered, as HTTP: a SOCKS client reads a failed status
	}
	_, err = c.Write([]byte{socksUserPassVer, 0})
	return err == nil
}
