package server

import (
	"bytes"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/eventapi/eventapi/api/rest"
)

// Lingering bounds: after an error answer to a request whose body was not
// read, the connection is half-closed and the rest of the body discarded for
// at most lingerTime or lingerBytes, so the client reads the answer instead
// of a connection reset (closing a socket with unread input sends RST).
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 64 << 20
)

// Listener wraps ln so that every connection it accepts can linger on close
// after a refused request and can tell how long the request line of a
// request that overflowed the read buffer was (see refuse.go). Serve the app
// on it (Run does).
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, lineEnd: -1}, nil
}

// conn is a connection served by fasthttp, which reads it from one goroutine
// at a time, so the read bookkeeping needs no lock.
type conn struct {
	net.Conn
	// read counts the bytes read; start is the offset where the current
	// request began; lineEnd is the offset of the first '\n' at or after
	// start (the end of the request line), -1 until one is read.
	read, start, lineEnd int64
	// head holds the first headLen bytes of the current request: enough of
	// its request line to tell its surface when fasthttp has reset the
	// request before its error handler runs (v1).
	head    [16]byte
	headLen int
	linger  atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.lineEnd < 0 {
		from := int64(0)
		if c.start > c.read {
			from = c.start - c.read
		}
		if from < int64(n) {
			c.headLen += copy(c.head[c.headLen:], p[from:n])
			if i := bytes.IndexByte(p[from:n], '\n'); i >= 0 {
				c.lineEnd = c.read + from + int64(i)
			}
		}
	}
	c.read += int64(n)
	return n, err
}

// requestRead marks the bytes read so far as the current request's (called
// when the handler starts): the next request begins after them.
func (c *conn) requestRead() { c.start, c.lineEnd, c.headLen = c.read, -1, 0 }

// v1 reports whether the current request's target is on the v1 surface
// (/api/v1 or below, in any letter case as the router reads it), as far as
// its first bytes tell.
func (c *conn) v1() bool {
	line := c.head[:c.headLen]
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return false
	}
	path := line[sp+1:]
	if end := bytes.IndexAny(path, "? "); end >= 0 {
		path = path[:end]
	}
	return rest.IsV1Path(string(path))
}

// requestLineLen is the length of the current request's line so far (all
// the bytes read since it began when no line end was seen yet).
func (c *conn) requestLineLen() int64 {
	if c.lineEnd < 0 {
		return c.read - c.start
	}
	return c.lineEnd - c.start
}

// lingerOnClose asks Close to drain the client's input first.
func (c *conn) lingerOnClose() { c.linger.Store(true) }

// Close half-closes and drains when lingerOnClose was called, then closes.
func (c *conn) Close() error {
	if c.linger.Load() {
		if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			_ = c.Conn.SetReadDeadline(time.Now().Add(lingerTime))
			_, _ = io.CopyN(io.Discard, c.Conn, lingerBytes)
		}
	}
	return c.Conn.Close()
}
