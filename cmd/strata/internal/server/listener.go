package server

import (
	"net"
	"sync"
	"sync/atomic"
)

// limitListener accepts at most max connections open at once. When every slot is taken it calls
// full (which closes idle connections) and waits for a connection to close: the clients beyond
// the cap wait in the kernel's queue rather than take file descriptors the process needs. While
// it waits, Waiting is true, so that a connection turning idle can be closed too.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	full      func()
	done      chan struct{}
	closeOnce sync.Once
	waiting   atomic.Bool // Accept waits for a slot
}

func newLimitListener(ln net.Listener, max int, full func()) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), full: full, done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		l.waiting.Store(true)
		l.full()
		select {
		case l.slots <- struct{}{}:
			l.waiting.Store(false)
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.slots })}, nil
}

// Waiting tells whether Accept waits for a connection to close.
func (l *limitListener) Waiting() bool { return l.waiting.Load() }

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back when it is closed, once however often Close is called.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}
