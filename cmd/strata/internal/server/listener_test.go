package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// serveConfig runs Serve with cfg on a loopback port until the test ends, and returns its
// address.
func serveConfig(t *testing.T, cfg Config) string {
	t.Helper()
	srv, err := New(zerolog.Nop(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// keepAlive is a client connection that sends requests one after the other and keeps the
// connection open between them, as a browser or an HTTP client pool does.
type keepAlive struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, addr string) *keepAlive {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &keepAlive{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// send writes GET /healthz.
func (k *keepAlive) send() {
	k.t.Helper()
	if _, err := io.WriteString(k.conn, "GET /healthz HTTP/1.1\r\nHost: strata\r\n\r\n"); err != nil {
		k.t.Fatal(err)
	}
}

// receive reads one response within wait, and returns its status, or the error.
func (k *keepAlive) receive(wait time.Duration) (int, error) {
	k.conn.SetReadDeadline(time.Now().Add(wait))
	resp, err := http.ReadResponse(k.r, nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// closed tells whether the server closed the connection within wait.
func (k *keepAlive) closed(wait time.Duration) bool {
	k.conn.SetReadDeadline(time.Now().Add(wait))
	_, err := k.r.ReadByte()
	return errors.Is(err, io.EOF)
}

// TestIdleTimeout: a keep-alive connection that sends no next request is closed by the server
// after the idle timeout.
func TestIdleTimeout(t *testing.T) {
	addr := serveConfig(t, Config{Store: opened, IdleTimeout: 50 * time.Millisecond})
	k := dial(t, addr)
	k.send()
	if status, err := k.receive(10 * time.Second); status != http.StatusOK {
		t.Fatalf("healthz: %d %v", status, err)
	}
	if !k.closed(10 * time.Second) {
		t.Error("the idle connection is still open 10 s after its request, with a 50 ms idle timeout")
	}
}

// TestConnCapClosesIdle: with every connection slot held by an idle keep-alive connection, a
// new client is still answered: the idle ones are closed to make room (the idle timeout, ten
// minutes here, has nothing to do with it).
func TestConnCapClosesIdle(t *testing.T) {
	addr := serveConfig(t, Config{Store: opened, IdleTimeout: MaxIdleTimeout, MaxConns: 2})
	var idle []*keepAlive
	for range 2 {
		k := dial(t, addr)
		k.send()
		if status, err := k.receive(10 * time.Second); status != http.StatusOK {
			t.Fatalf("healthz: %d %v", status, err)
		}
		idle = append(idle, k)
	}
	k := dial(t, addr)
	k.send()
	if status, err := k.receive(10 * time.Second); status != http.StatusOK {
		t.Fatalf("healthz on a third connection with two idle ones open and a cap of 2: %d %v", status, err)
	}
	// The server closes the connections idle at that moment: both, or the one that had turned
	// idle when the other had not yet (its response sent, its state not yet idle), which is
	// not always the first.
	closed := make(chan bool, len(idle))
	for _, k := range idle {
		go func() { closed <- k.closed(10 * time.Second) }()
	}
	if !<-closed && !<-closed {
		t.Error("both idle connections are still open, yet a third was answered past a cap of 2")
	}
}

// TestConnCapWaits: past the cap, a new connection waits while every slot is busy with a
// request, and is answered once one of them is done.
func TestConnCapWaits(t *testing.T) {
	release := make(chan struct{})
	addr := serveConfig(t, Config{MaxConns: 1, IdleTimeout: MaxIdleTimeout, Store: func(ctx context.Context) (*Store, error) {
		<-release // the first request opens the store: it holds the only slot until released
		return opened(ctx)
	}})
	busy := dial(t, addr)
	busy.send()
	waiting := dial(t, addr) // the kernel completes the handshake; the server does not accept it
	waiting.send()
	if status, err := waiting.receive(300 * time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a second connection past a cap of 1 was answered (%d, %v) while the first request runs", status, err)
	}
	close(release)
	if status, err := busy.receive(10 * time.Second); status != http.StatusOK {
		t.Fatalf("first request: %d %v", status, err)
	}
	if status, err := waiting.receive(10 * time.Second); status != http.StatusOK {
		t.Fatalf("the waiting connection, once the first went idle: %d %v", status, err)
	}
	if !busy.closed(10 * time.Second) {
		t.Error("the first connection, idle, is still open while another waited for its slot")
	}
}
