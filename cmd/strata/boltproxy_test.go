package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// boltProxy stands between strata and a Neo4j server, so that a test can make the server go
// away, or stall, at a chosen point of a run: when the client sends the count-th statement whose
// text contains trigger (the statements go over Bolt in clear, their text first). What happens
// then is up to the test: cut (the server is gone: every connection is closed and new ones are
// refused until up) or stall (the client's bytes wait until release).
type boltProxy struct {
	t      *testing.T
	ln     net.Listener
	target string

	mu      sync.Mutex
	trigger []byte
	count   int // fire on this occurrence of trigger
	seen    int
	fire    func() // called once, with mu not held, before the triggering bytes are forwarded
	down    bool
	gate    chan struct{} // non-nil: the client's bytes wait until it is closed
	conns   map[net.Conn]bool
}

// newBoltProxy listens on a free port of 127.0.0.1 and forwards to target (host:port).
func newBoltProxy(t *testing.T, target string) *boltProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &boltProxy{t: t, ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		if p.gate != nil {
			close(p.gate)
			p.gate = nil
		}
		p.closeAll()
		p.mu.Unlock()
	})
	go p.serve()
	return p
}

// uri is the Bolt URI of the proxy.
func (p *boltProxy) uri() string { return "bolt://" + p.ln.Addr().String() }

// on arms the proxy: fire runs when the client sends the count-th statement containing trigger.
func (p *boltProxy) on(trigger string, count int, fire func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trigger, p.count, p.seen, p.fire = []byte(trigger), count, 0, fire
}

// cut makes the server go away: open connections are closed and new ones refused.
func (p *boltProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	p.closeAll()
}

// up lets connections through again, as a restarted server would.
func (p *boltProxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// stall holds every client byte until release.
func (p *boltProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate == nil {
		p.gate = make(chan struct{})
	}
}

func (p *boltProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gate != nil {
		close(p.gate)
		p.gate = nil
	}
}

func (p *boltProxy) closeAll() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

func (p *boltProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed at the test's end
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			client.Close()
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			client.Close()
			continue
		}
		p.conns[client], p.conns[server] = true, true
		p.mu.Unlock()
		go p.forward(client, server)
		go func() {
			_, _ = io.Copy(client, server)
			client.Close()
		}()
	}
}

// forward copies the client's bytes to the server, watching them for the trigger.
func (p *boltProxy) forward(client, server net.Conn) {
	defer server.Close()
	buf := make([]byte, 64<<10)
	var tail []byte // the end of the previous read, for a trigger split across reads
	for {
		n, err := client.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			p.watch(append(tail, chunk...))
			tail = lastBytes(append(tail, chunk...), len(p.trigger)-1)
			if !p.pass() {
				return
			}
			if _, werr := server.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// watch counts the trigger in b and fires on the armed occurrence.
func (p *boltProxy) watch(b []byte) {
	p.mu.Lock()
	if len(p.trigger) == 0 || p.fire == nil {
		p.mu.Unlock()
		return
	}
	p.seen += bytes.Count(b, p.trigger)
	var fire func()
	if p.seen >= p.count {
		fire, p.fire = p.fire, nil
	}
	p.mu.Unlock()
	if fire != nil {
		fire()
	}
}

// pass waits while the proxy stalls; false when the server is gone.
func (p *boltProxy) pass() bool {
	p.mu.Lock()
	gate, down := p.gate, p.down
	p.mu.Unlock()
	if gate != nil {
		<-gate
		p.mu.Lock()
		down = p.down
		p.mu.Unlock()
	}
	return !down
}

func lastBytes(b []byte, n int) []byte {
	if n <= 0 || len(b) <= n {
		return append([]byte(nil), b...)
	}
	return append([]byte(nil), b[len(b)-n:]...)
}

// statementMarker is the first line of a statement of cypher/queries: the statement's text, as
// the client sends it, contains it and no other statement's does.
func statementMarker(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cypher", "queries", name+".cypher"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line == "" {
		t.Fatal(errors.New(name + ": empty first line"))
	}
	return line
}
