package proxy

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"
)

// dnsQueryMsg builds a query for name and qtype with id 0x1234, RD set.
func dnsQueryMsg(name string, qtype uint16) []byte {
	b := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	if name != "" {
		for _, l := range bytes.Split([]byte(name), []byte(".")) {
			b = append(b, byte(len(l)))
			b = append(b, l...)
		}
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, qtype)
	return binary.BigEndian.AppendUint16(b, dnsClassIN)
}

// dnsAnswer reads a response: its rcode, and the A record's address if
// there is one.
func dnsAnswer(t *testing.T, b []byte) (rcode int, addr []byte) {
	t.Helper()
	if len(b) < dnsHeaderLen || b[2]&0x80 == 0 {
		t.Fatalf("not a response: %x", b)
	}
	rcode = int(b[3] & 0xf)
	if binary.BigEndian.Uint16(b[6:]) == 0 {
		return rcode, nil
	}
	if len(b) < 4 || !bytes.Equal(b[len(b)-6:len(b)-4], []byte{0, 4}) {
		t.Fatalf("answer without a 4-byte address: %x", b)
	}
	return rcode, b[len(b)-4:]
}

// TestDNSStubAnswers: each name gets an address of its own in
// 127.77.0.0/16, the same one again, AAAA and other types no records, and
// what is not a query of one plain name no address.
func TestDNSStubAnswers(t *testing.T) {
	s := NewDNSStub(nil)
	code, a1 := dnsAnswer(t, s.answer(dnsQueryMsg("Registry.NPMJS.org", dnsTypeA)))
	_, a2 := dnsAnswer(t, s.answer(dnsQueryMsg("example.org", dnsTypeA)))
	_, again := dnsAnswer(t, s.answer(dnsQueryMsg("registry.npmjs.org", dnsTypeA)))
	if code != dnsRcodeOK || len(a1) != 4 || a1[0] != 127 || a1[1] != 77 || bytes.Equal(a1, a2) || !bytes.Equal(a1, again) {
		t.Errorf("addresses %v %v %v (rcode %d), want distinct 127.77.x.y per name, stable", a1, a2, again, code)
	}
	if n, ok := s.name([4]byte(a1)); !ok || n != "registry.npmjs.org" {
		t.Errorf("%v maps back to %q %v", a1, n, ok)
	}
	for _, qt := range []uint16{dnsTypeAAAA, 15, 65} {
		if code, a := dnsAnswer(t, s.answer(dnsQueryMsg("example.org", qt))); code != dnsRcodeOK || a != nil {
			t.Errorf("type %d: rcode %d, %v; want no records", qt, code, a)
		}
	}
	bad := [][]byte{
		dnsQueryMsg("a b.org", dnsTypeA),                             // not a host name
		dnsQueryMsg("", dnsTypeA),                                    // the root
		append(dnsQueryMsg("x.org", 1)[:12], 0xc0, 0x0c, 0, 1, 0, 1), // a pointer
	}
	for _, m := range bad {
		if code, a := dnsAnswer(t, s.answer(m)); code == dnsRcodeOK || a != nil {
			t.Errorf("%x: rcode %d, %v; want an error", m, code, a)
		}
	}
	if out := s.answer([]byte{1, 2, 3}); out != nil {
		t.Errorf("a short message: %x, want no answer", out)
	}
	resp := s.answer(dnsQueryMsg("example.org", dnsTypeA))
	if out := s.answer(resp); out != nil {
		t.Errorf("a response as a query: %x, want no answer", out)
	}
}

// TestDNSStubExhausted: past the names 127.77.0.0/16 holds, SERVFAIL.
func TestDNSStubExhausted(t *testing.T) {
	s := NewDNSStub(nil)
	for i := range dnsStubNames {
		s.byName[strconv.Itoa(i)] = [4]byte{}
	}
	if code, a := dnsAnswer(t, s.answer(dnsQueryMsg("one-more.org", dnsTypeA))); code != dnsRcodeServFail || a != nil {
		t.Errorf("rcode %d, %v; want SERVFAIL", code, a)
	}
}

// FuzzDNSQuery: the parser never panics, and what it accepts it echoes:
// the answer's question parses back to the same name and type.
func FuzzDNSQuery(f *testing.F) {
	f.Add(dnsQueryMsg("registry.npmjs.org", dnsTypeA))
	f.Add(dnsQueryMsg("example.org", dnsTypeAAAA))
	f.Add(dnsQueryMsg("", dnsTypeA))
	f.Add(append(dnsQueryMsg("x.org", 1)[:12], 0xc0, 0x0c, 0, 1, 0, 1))
	f.Add(append(dnsQueryMsg("a.b", dnsTypeA), 0, 0, 41, 0x10, 0, 0, 0, 0, 0, 0, 0)) // with EDNS's OPT
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := NewDNSStub(nil)
		out := s.answer(b)
		q, err := parseDNSQuery(b)
		if err != nil {
			return
		}
		if len(q.name) > dnsMaxName {
			t.Fatalf("name of %d bytes", len(q.name))
		}
		if out == nil {
			t.Fatal("a query without an answer")
		}
		// The answer's question is the query's, read back as a query.
		back := slicesClone(out)
		back[2] &^= 0x80
		binary.BigEndian.PutUint16(back[6:], 0)
		r, err := parseDNSQuery(back)
		if err != nil || r.name != q.name || r.qtype != q.qtype || r.id != q.id {
			t.Fatalf("answer's question %+v, %v; want %+v", r, err, q)
		}
	})
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }
