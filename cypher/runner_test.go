package cypher

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// cutProxy forwards connections to a server and can cut every one of them at once, as a server
// restart or a network fault does.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, to string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(func() { _ = ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); _ = s.Close() }()
			go func() { _, _ = io.Copy(c, s); _ = c.Close() }()
		}
	}()
	return p
}

// cut closes every connection made so far.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
}

// TestReadRetriedAfterLostConnection: a read runs as an auto-commit statement, which the driver
// does not retry; the store tries it again on a new connection when the one it had was lost,
// and with no time left to retry it reports the loss as Disconnected.
func TestReadRetriedAfterLostConnection(t *testing.T) {
	_, cfg := emptyServer(t)
	u, err := url.Parse(cfg.URI)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	cfg.URI = u.String()
	s := openTestStore(t, cfg)
	mustApply(t, s, graph.Batch{Meta: map[string]string{"k": "v"}})

	before := statementCalls(s, qReadMeta)
	proxy.cut() // every pooled connection is dead now
	if v, ok, err := s.Meta(t.Context(), "k"); err != nil || !ok || v != "v" {
		t.Fatalf("Meta after the connections were cut = %q, %v, %v; want v", v, ok, err)
	}
	if n := statementCalls(s, qReadMeta) - before; n < 2 {
		t.Errorf("read_meta sent %d times, want a second try after the lost connection", n)
	}

	cfg.RetryTime = time.Nanosecond
	once := openTestStore(t, cfg)
	proxy.cut()
	_, _, err = once.Meta(t.Context(), "k")
	if _, lost := Disconnected(err); !lost {
		t.Errorf("Meta with no time to retry after a cut = %v; want a lost connection", err)
	}
}
