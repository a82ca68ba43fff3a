// Command rttproxy forwards TCP connections to a server with a delay added in each direction,
// so that a local Neo4j answers as a remote one would: what a fresh query process pays per
// round trip it waits for shows in its wall time.
//
//	go run ./bench/neo4jquery/rttproxy -listen 127.0.0.1:7787 -to 127.0.0.1:7717 -rtt 20ms
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:7787", "address to accept connections on")
	to := flag.String("to", "127.0.0.1:7687", "server to forward them to")
	rtt := flag.Duration("rtt", 20*time.Millisecond, "round-trip time to add (half each way)")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go forward(c, *to, *rtt/2)
	}
}

// forward pipes c to a new connection to addr and back, each direction delayed by d.
func forward(c net.Conn, addr string, d time.Duration) {
	s, err := net.Dial("tcp", addr)
	if err != nil {
		log.Print(err)
		_ = c.Close()
		return
	}
	go delayed(s, c, d)
	delayed(c, s, d)
}

// delayed copies what src sends to dst, each read held for d after it arrived; reads stay in
// order, and a read does not wait behind the delay of the one before it.
func delayed(dst, src net.Conn, d time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	queue := make(chan chunk, 1024)
	go func() {
		defer func() { _ = dst.Close() }()
		for ch := range queue {
			time.Sleep(time.Until(ch.at.Add(d)))
			if _, err := dst.Write(ch.data); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			queue <- chunk{time.Now(), append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			if err != io.EOF {
				_ = src.Close()
			}
			close(queue)
			return
		}
	}
}
