package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkProxyDownload downloads 100 MB from a server on 127.0.0.1,
// directly and through mode proxy's server (HTTP forwarding, and a CONNECT
// tunnel), to compare their throughput (MB/s); the target is at least 80%
// of direct.
func BenchmarkProxyDownload(b *testing.B) {
	const size = 100 << 20
	chunk := []byte(strings.Repeat("x", 256<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "104857600")
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	proxy := loopProxy(b, Network{Mode: NetworkProxy, Private: []string{host}})

	get := func(b *testing.B, tr *http.Transport, u string) {
		c := &http.Client{Transport: tr}
		b.SetBytes(size)
		for b.Loop() {
			resp, err := c.Get(u)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || n != size {
				b.Fatalf("%d bytes: %v", n, err)
			}
		}
		tr.CloseIdleConnections()
	}
	b.Run("direct", func(b *testing.B) {
		get(b, &http.Transport{DisableCompression: true}, srv.URL+"/")
	})
	b.Run("proxy-forward", func(b *testing.B) {
		get(b, &http.Transport{DisableCompression: true, Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: proxy})}, srv.URL+"/")
	})
	b.Run("proxy-connect", func(b *testing.B) {
		// A CONNECT tunnel, as https takes, with plain HTTP inside it so
		// that the comparison is of the relays, not of TLS.
		b.SetBytes(size)
		for b.Loop() {
			c, err := net.Dial("tcp", proxy)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("CONNECT: %v %v", resp, err)
			}
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host)
			resp, err = http.ReadResponse(br, nil)
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, resp.Body)
			c.Close()
			if err != nil || n != size {
				b.Fatalf("%d bytes: %v", n, err)
			}
		}
	})
}
