package server

import (
	"bytes"
	"io"
	"net"
	"sync/atomic"
	"time"
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
func Listener(ln net.Listener) net.Listener { return newListener(ln, readTimeout, writeTimeout) }

// newListener wraps ln for an app whose fiber.Config has the read and
// write timeouts given.
func newListener(ln net.Listener, read, write time.Duration) listener {
	return listener{ln, read + write}
}

type listener struct {
	net.Listener
	// answerWithin is the app's fiber.Config ReadTimeout plus its
	// WriteTimeout: the time a request may take to arrive, and then its
	// answer to be written.
	answerWithin time.Duration
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, lineEnd: -1, fresh: true, answerWithin: l.answerWithin}, nil
}

// conn is a connection served by fasthttp, which reads it from one goroutine
// at a time, so the read bookkeeping needs no lock.
type conn struct {
	net.Conn
	// read counts the bytes read; start is the offset where the current
	// request began; lineEnd is the offset of the first '\n' at or after
	// start (the end of the request line), -1 until one is read.
	read, start, lineEnd int64
	// head holds the first headLen bytes of the current request: its
	// request line, or the start of a long one, for when fasthttp has reset
	// the request before its error handler runs (requestLine).
	head    [headBytes]byte
	headLen int
	// fresh is set until the first bytes of the next request are read.
	fresh        bool
	answerWithin time.Duration
	linger       atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.fresh {
		// fasthttp writes "100 Continue", and the answer to a request it
		// could not read, under the write deadline it set for the previous
		// response on the connection, which has passed when the client
		// kept the connection idle for longer than writeTimeout: the write
		// fails and the client gets no answer at all. A request's first
		// bytes start a fresh deadline; fasthttp sets its own again before
		// it writes the response. The deadline leaves the request its read
		// timeout to arrive before the answer's write timeout starts: one
		// of the write timeout alone would pass just as a request that
		// stalled reaches its read deadline, and the 408 fasthttp then
		// writes would race it and often not go out.
		c.fresh = false
		_ = c.Conn.SetWriteDeadline(time.Now().Add(c.answerWithin))
	}
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

// headBytes bounds what a connection keeps of each request line: a method
// and a path of the lengths the API serves, and the start of a longer one.
const headBytes = 256

// requestRead marks the bytes read so far as the current request's (called
// when the handler starts): the next request begins after them.
func (c *conn) requestRead() { c.start, c.lineEnd, c.headLen, c.fresh = c.read, -1, 0, true }

// requestLine returns the current request's method and target as its first
// bytes give them (a target cut at headBytes when the line is longer), or
// empty strings when not even the method was read whole.
func (c *conn) requestLine() (method, target string) {
	line := c.head[:c.headLen]
	if end := bytes.IndexAny(line, "\r\n"); end >= 0 {
		line = line[:end]
	}
	m, after, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(m) == 0 {
		return "", ""
	}
	t, _, _ := bytes.Cut(after, []byte{' '})
	return string(m), string(t)
}

// nothingRead reports whether no byte of the current request was read.
func (c *conn) nothingRead() bool { return c.read == c.start }

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
