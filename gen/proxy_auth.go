package gen

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"gopkg.in/yaml.v3"
)

// ProxyAuth is one row of the proxy-auth section (rules/common.yaml): on
// its platform, network mode proxy's listener answers only clients that
// present User and the spawn's own random token.
type ProxyAuth struct {
	Pos      Pos
	ID       string
	Platform string
	User     string
	// Pending is how many connections may wait at once to present the
	// credential; AuthSeconds how long each may wait.
	Pending     int
	AuthSeconds int
	Why         string
}

var proxyAuthKeys = []string{"id", "platform", "user", "pending", "auth-timeout", "why"}

// proxyAuthMaxSeconds is the longest auth-timeout: the proxy's header timeout.
const proxyAuthMaxSeconds = 30

var proxyAuthWant = map[string]string{
	"id":           "a unique kebab-case id",
	"platform":     "linux, darwin or landlock",
	"user":         "the user name clients present with the token",
	"pending":      "a whole number of connections, 1-1024",
	"auth-timeout": "whole seconds, 1s-30s",
	"why":          "the reason a reviewer reads",
}

// proxyAuthUser is a user name that fits a URL's user part, a Basic
// credential (before its colon) and an RFC 1929 user name as it is.
var proxyAuthUser = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// proxyAuth reads the proxy-auth section: {id, platform, user, why} rows.
func (l *loader) proxyAuth(n *yaml.Node) []ProxyAuth {
	if !l.kind(n, yaml.SequenceNode, "", "proxy-auth") {
		return nil
	}
	var out []ProxyAuth
	for _, e := range n.Content {
		if !l.kind(e, yaml.MappingNode, "", "proxy-auth entry") {
			continue
		}
		en := ProxyAuth{Pos: l.pos(e)}
		if v := lookup(e, "id"); v != nil {
			en.ID, _ = l.str(v, "", "proxy-auth: id")
		}
		l.keys(e, en.ID, proxyAuthKeys, func(key string, k, v *yaml.Node) {
			switch key {
			case "platform":
				en.Platform, _ = l.str(v, en.ID, "platform")
			case "user":
				en.User, _ = l.str(v, en.ID, "user")
			case "pending":
				s, _ := l.str(v, en.ID, "pending")
				n, err := strconv.Atoi(s)
				if err != nil || n < 1 || n > 1024 || s != strconv.Itoa(n) {
					l.at(l.pos(v), en.ID, "pending %q (want %s)", s, proxyAuthWant["pending"])
				} else {
					en.Pending = n
				}
			case "auth-timeout":
				s, _ := l.str(v, en.ID, "auth-timeout")
				n, err := strconv.Atoi(strings.TrimSuffix(s, "s"))
				if err != nil || !strings.HasSuffix(s, "s") || n < 1 || n > proxyAuthMaxSeconds || s != strconv.Itoa(n)+"s" {
					l.at(l.pos(v), en.ID, "auth-timeout %q (want %s)", s, proxyAuthWant["auth-timeout"])
				} else {
					en.AuthSeconds = n
				}
			case "why":
				en.Why, _ = l.str(v, en.ID, "why")
			}
		})
		for _, key := range proxyAuthKeys[:5] { // a missing why is checkWhy's
			if lookup(e, key) == nil {
				l.at(en.Pos, en.ID, "proxy-auth: missing key %s (want %s)", key, proxyAuthWant[key])
			}
		}
		out = append(out, en)
	}
	return out
}

// checkProxyAuth checks the proxy-auth section: unique ids, a known
// platform with one row each, and a user name clients can send as it is.
func checkProxyAuth(c *errs, cm *Common, local, ids map[string]Pos) {
	seen := map[string]Pos{}
	for _, e := range cm.ProxyAuth {
		checkID(c, e.Pos, e.ID, local, ids)
		checkWhy(c, e.Pos, e.ID, e.Why)
		if e.Platform != "" && e.Platform != "linux" && e.Platform != "darwin" && e.Platform != "landlock" {
			c.at(e.Pos, e.ID, "platform %q (want linux, darwin or landlock, Linux's reduced backend)", e.Platform)
		} else if prev, dup := seen[e.Platform]; dup && e.Platform != "" {
			c.at(e.Pos, e.ID, "platform %s already has a proxy-auth row at %s (want one row per platform)", e.Platform, prev)
		}
		seen[e.Platform] = e.Pos
		if e.User != "" && !proxyAuthUser.MatchString(e.User) {
			c.at(e.Pos, e.ID, "user %q (want 1-32 lower-case letters, digits and hyphens, a letter first)", e.User)
		}
	}
}

// emitProxyAuth writes the section as proxyAuthRows, one per platform.
func emitProxyAuth(f *jen.File, c *Common) {
	f.Comment("proxyAuthRows are the platforms whose network mode proxy answers only clients")
	f.Comment("that present the user name and the spawn's token (the proxy-auth rows).")
	f.Var().Id("proxyAuthRows").Op("=").Index(jen.Op("...")).Id("proxyAuthRow").ValuesFunc(func(g *jen.Group) {
		for _, e := range c.ProxyAuth {
			g.Line().Comment(e.ID).Line().Values(jen.Dict{
				jen.Id("rule"):        jen.Lit(e.ID),
				jen.Id("goos"):        jen.Lit(e.Platform),
				jen.Id("user"):        jen.Lit(e.User),
				jen.Id("pending"):     jen.Lit(e.Pending),
				jen.Id("authTimeout"): jen.Lit(e.AuthSeconds).Op("*").Qual("time", "Second"),
			})
		}
		g.Line()
	})
}

// docProxyAuth renders the proxy-auth section of docs/POLICY.md.
func docProxyAuth(b *bytes.Buffer, c *Common) {
	if len(c.ProxyAuth) == 0 {
		return
	}
	b.WriteString("\n### Who may use the proxy\n\n")
	b.WriteString("On a platform with a row, network mode proxy answers only clients that\n")
	b.WriteString("present the row's user and a random token made for the spawn (HTTP\n")
	b.WriteString("`Proxy-Authorization: Basic`, SOCKS5 user name and password); the\n")
	b.WriteString("command's proxy variables carry both. Elsewhere it answers every client\n")
	b.WriteString("that reaches its listener. A connection takes a slot of\n")
	b.WriteString("limit-proxy-connections only once it has presented them; until then it\n")
	b.WriteString("is one of at most Pending, the oldest closed when another arrives, and\n")
	b.WriteString("is closed if it has not presented them within Auth timeout.\n\n")
	table(b, []string{"ID", "Platform", "User", "Pending", "Auth timeout", "Why"}, func(row func(...string)) {
		for _, e := range c.ProxyAuth {
			row(code(e.ID), e.Platform, code(e.User), strconv.Itoa(e.Pending), strconv.Itoa(e.AuthSeconds)+"s", prose(e.Why))
		}
	})
}

// proxyAuthDiff compares the proxy-auth sections: a removed row lets
// every client that reaches the listener use the proxy (widens), an
// added one narrows; another user name changes nothing of what reaches
// it, another platform is unclear; more pending connections or a longer
// auth-timeout lets unauthenticated clients hold more (widens), fewer or
// shorter narrows.
func proxyAuthDiff(line func(string, ...any), old, new []ProxyAuth) {
	changed := func(o, n ProxyAuth) reach {
		if o.Platform != n.Platform {
			return reach{unknown: true}
		}
		var r reach
		for _, d := range [][2]int{{o.Pending, n.Pending}, {o.AuthSeconds, n.AuthSeconds}} {
			r = r.or(reach{wider: d[1] > d[0], narrower: d[1] < d[0]})
		}
		return r
	}
	rowDiff(line, "proxy-auth", old, new, func(e ProxyAuth) string { return e.ID },
		func(e ProxyAuth) string {
			return fmt.Sprintf("%s: user %s, pending %d, auth-timeout %ds", e.Platform, e.User, e.Pending, e.AuthSeconds)
		},
		reach{wider: true}, reach{narrower: true}, changed)
}
