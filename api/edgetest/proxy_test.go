package edgetest

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
)

// holdingProxy is a TCP proxy between an eventapi process and Redis that
// forwards every command except the first one containing hold: that one is
// never forwarded, and its connection stalls, so the process waits for a
// reply that never comes, as long as its Redis timeout allows. Held is
// closed when the command arrives. Nothing in the process knows about it.
type holdingProxy struct {
	Addr string
	Held chan struct{}

	target string
	hold   []byte
	ln     net.Listener
	once   sync.Once
	mu     sync.Mutex
	conns  []net.Conn
}

func startHoldingProxy(t *testing.T, target string, hold []byte) *holdingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{Addr: ln.Addr().String(), Held: make(chan struct{}), target: target, hold: hold, ln: ln}
	go p.accept()
	t.Cleanup(p.close)
	return p
}

func (p *holdingProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		upstream, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, upstream)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(client, upstream) }()
		go p.forward(client, upstream)
	}
}

// forward copies client → upstream until the held command shows up. The
// last len(hold)-1 bytes of each read are kept, so a command split across
// two reads is recognised too.
func (p *holdingProxy) forward(client, upstream net.Conn) {
	buf := make([]byte, 64<<10)
	var tail []byte
	for {
		n, err := client.Read(buf)
		if n > 0 {
			seen := append(tail, buf[:n]...)
			if p.take(seen) {
				return // the command and everything after it stay unsent
			}
			if _, werr := upstream.Write(buf[:n]); werr != nil {
				return
			}
			if keep := len(p.hold) - 1; len(seen) > keep {
				tail = append([]byte(nil), seen[len(seen)-keep:]...)
			} else {
				tail = seen
			}
		}
		if err != nil {
			return
		}
	}
}

// take reports whether b holds the command to hold, the first time only.
func (p *holdingProxy) take(b []byte) bool {
	if !bytes.Contains(b, p.hold) {
		return false
	}
	taken := false
	p.once.Do(func() { taken = true; close(p.Held) })
	return taken
}

func (p *holdingProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
}
