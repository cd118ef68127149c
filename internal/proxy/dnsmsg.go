package proxy

import (
	"encoding/binary"
	"errors"
	"strings"
)

// The DNS stub's messages (RFC 1035): a query with one question in, a
// response with at most one A record out. Nothing else is parsed.

const (
	dnsTypeA    = 1
	dnsTypeAAAA = 28
	dnsClassIN  = 1

	dnsRcodeOK       = 0
	dnsRcodeFormErr  = 1
	dnsRcodeServFail = 2
	dnsRcodeNotImp   = 4
	dnsRcodeRefused  = 5

	dnsHeaderLen = 12
	dnsMaxName   = 255
)

var errDNSQuery = errors.New("dns: malformed query")

// dnsQuery is what the stub reads of a query: its header's id and flags,
// and its one question, kept as the raw bytes to echo back.
type dnsQuery struct {
	id       uint16
	flags    uint16
	name     string // lower case, dot-separated, without the final dot
	qtype    uint16
	qclass   uint16
	question []byte // QNAME QTYPE QCLASS as received
}

func (q *dnsQuery) opcode() int { return int(q.flags>>11) & 0xf }

// parseDNSQuery reads a query. Compression pointers are refused in the
// question (a query has nothing to point back to), as are labels that
// are not letters, digits, '-' or '_', and names longer than 255 bytes.
func parseDNSQuery(b []byte) (dnsQuery, error) {
	var q dnsQuery
	if len(b) < dnsHeaderLen {
		return q, errDNSQuery
	}
	q.id = binary.BigEndian.Uint16(b[0:])
	q.flags = binary.BigEndian.Uint16(b[2:])
	if q.flags&0x8000 != 0 { // a response
		return q, errDNSQuery
	}
	if binary.BigEndian.Uint16(b[4:]) != 1 || binary.BigEndian.Uint16(b[6:]) != 0 || binary.BigEndian.Uint16(b[8:]) != 0 {
		return q, errDNSQuery // one question, no answers or authority
	}
	i := dnsHeaderLen
	var name strings.Builder
	for {
		if i >= len(b) {
			return q, errDNSQuery
		}
		n := int(b[i])
		i++
		if n == 0 {
			break
		}
		if n > 63 || i+n > len(b) || name.Len()+n+1 > dnsMaxName {
			return q, errDNSQuery // a pointer (0xc0) or extended label, or past the end
		}
		if name.Len() > 0 {
			name.WriteByte('.')
		}
		for _, c := range b[i : i+n] {
			switch {
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			default:
				return q, errDNSQuery
			}
			name.WriteByte(c)
		}
		i += n
	}
	if i+4 > len(b) {
		return q, errDNSQuery
	}
	q.qtype = binary.BigEndian.Uint16(b[i:])
	q.qclass = binary.BigEndian.Uint16(b[i+2:])
	q.question = b[dnsHeaderLen : i+4]
	q.name = name.String()
	return q, nil
}

// dnsResponse answers q with rcode, and with one A record when a is
// non-nil; the question is echoed, the recursion-desired bit kept.
func dnsResponse(q dnsQuery, rcode int, a []byte, ttl uint32) []byte {
	out := make([]byte, dnsHeaderLen, dnsHeaderLen+len(q.question)+16)
	binary.BigEndian.PutUint16(out[0:], q.id)
	flags := uint16(0x8000) | q.flags&0x7800 | q.flags&0x0100 | 0x0080 | uint16(rcode&0xf) // QR, opcode, RD, RA
	binary.BigEndian.PutUint16(out[2:], flags)
	if q.question != nil {
		binary.BigEndian.PutUint16(out[4:], 1)
		out = append(out, q.question...)
	}
	if a != nil && q.question != nil {
		binary.BigEndian.PutUint16(out[6:], 1)
		out = append(out, 0xc0, dnsHeaderLen) // the question's name
		out = binary.BigEndian.AppendUint16(out, dnsTypeA)
		out = binary.BigEndian.AppendUint16(out, dnsClassIN)
		out = binary.BigEndian.AppendUint32(out, ttl)
		out = binary.BigEndian.AppendUint16(out, uint16(len(a)))
		out = append(out, a...)
	}
	return out
}
