package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
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
func newListener(ln net.Listener, read, write time.Duration) *listener {
	return &listener{Listener: ln, answerWithin: read + write, open: map[*conn]struct{}{}}
}

type listener struct {
	net.Listener
	// answerWithin is the app's fiber.Config ReadTimeout plus its
	// WriteTimeout: the time a request may take to arrive, and then its
	// answer to be written.
	answerWithin time.Duration
	// open holds the connections accepted and not yet closed; once the
	// listener is closed, unusedUntil (Unix nanoseconds, 0 before) is when
	// those that have sent nothing end (Close).
	mu          sync.Mutex
	open        map[*conn]struct{}
	unusedUntil atomic.Int64
}

// unusedGrace is how long a connection that has sent nothing when the
// listener closes (the shutdown) has left to send its first byte.
const unusedGrace = time.Second

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	wrapped := &conn{Conn: c, lineEnd: -1, lastSpace: -1, fresh: true, answerWithin: l.answerWithin, from: l}
	l.mu.Lock()
	l.open[wrapped] = struct{}{}
	l.mu.Unlock()
	if until := l.unusedUntil.Load(); until != 0 { // accepted as the listener closed
		_ = c.SetReadDeadline(time.Unix(0, until))
	}
	return wrapped, nil
}

// Close closes the listener, which fasthttp does first when it shuts down,
// and gives every open connection that has not sent a byte yet unusedGrace
// to send one; the read that then times out with nothing read closes it
// quietly (refuse.go). fasthttp's shutdown closes the connections idle
// between requests but waits for a new one that has sent nothing (a load
// balancer's or a browser's connection opened ahead of need) until its
// read timeout, 30 s: a pod with one such connection took the whole
// EVENTAPI_SHUTDOWN_TIMEOUT to stop, and said in-flight requests were
// cancelled. A request whose first bytes arrive within the grace is served
// as any other.
func (l *listener) Close() error {
	err := l.Listener.Close()
	l.unusedUntil.CompareAndSwap(0, time.Now().Add(unusedGrace).UnixNano())
	l.mu.Lock()
	defer l.mu.Unlock()
	until := time.Unix(0, l.unusedUntil.Load())
	for c := range l.open {
		if !c.used.Load() {
			_ = c.Conn.SetReadDeadline(until)
		}
	}
	return err
}

// SetReadDeadline sets the connection's read deadline to t, or, once its
// listener is closed and while it has sent nothing, to the end of the
// grace Close gave it if that is earlier (t zero: no deadline of its own):
// fasthttp sets a deadline of its own when it starts to read a request,
// which may come after Close.
func (c *conn) SetReadDeadline(t time.Time) error {
	if c.from != nil && !c.used.Load() {
		if until := c.from.unusedUntil.Load(); until != 0 && (t.IsZero() || t.UnixNano() > until) {
			t = time.Unix(0, until)
		}
	}
	return c.Conn.SetReadDeadline(t)
}

// conn is a connection served by fasthttp, which reads it from one goroutine
// at a time, so the read bookkeeping needs no lock.
type conn struct {
	net.Conn
	// read counts the bytes read; start is the offset where the current
	// request began; lineEnd is the offset of the first '\n' at or after
	// start (the end of the request line), -1 until one is read; lastSpace
	// is the offset of the last space read before lineEnd (the one before
	// the version, when the line is whole), -1 until one is read.
	read, start, lineEnd, lastSpace int64
	// head holds the first headLen bytes of the current request: its
	// request line, or the start of a long one, for when fasthttp has reset
	// the request before its error handler runs (requestLine).
	head    [headBytes]byte
	headLen int
	// fresh is set until the first bytes of the next request are read;
	// arrived is when they were.
	fresh        bool
	arrived      time.Time
	answerWithin time.Duration
	linger       atomic.Bool
	// used is set by the first byte read: the connection carried a request.
	used atomic.Bool
	// from is the listener that accepted it, which tracks it until Close.
	from *listener
	// scan follows the current request's head (headScan).
	scan headScan
}

// headScan follows the lines of a request's head as they arrive, to find a
// header line without a colon: fasthttp looks for the colon in the bytes
// after the line and, when the line is the last one, waits for more until
// the read timeout, 30 s later, and answers 408; RFC 9112 §5 has no such
// line, so it is refused at once (errLineWithoutColon).
//
// The scan starts at the first byte read after the previous request's
// handler started. With pipelining, fasthttp may already hold the start of
// the next request by then, and the scan would begin inside it (its head
// or its body): a head is judged only when its first line ends as a
// request line does (" HTTP/1.1" or " HTTP/1.0"), else the scan stops
// without a verdict.
type headScan struct {
	ended   bool // the blank line that ends the head was read, or the scan stopped
	bad     bool // a header line before it had no colon
	inHead  bool // the request line was read whole: header lines follow
	lineLen int  // the length of the line being read, without its '\n'
	first   byte // that line's first byte
	colon   bool // that line has a colon so far
	// tail holds the last bytes of the first line, for its version.
	tail    [len(" HTTP/1.1\r")]byte
	tailLen int
}

// errLineWithoutColon ends the read of a request whose head has a header
// line without a colon: the error handler answers it with 400.
var errLineWithoutColon = errors.New("a header line has no colon")

// add scans b, the next bytes of the head (and perhaps what follows it).
func (h *headScan) add(b []byte) {
	for len(b) > 0 && !h.ended {
		line, rest, complete := bytes.Cut(b, []byte{'\n'})
		if len(line) > 0 {
			if h.lineLen == 0 {
				h.first = line[0]
			}
			h.lineLen += len(line)
			h.colon = h.colon || bytes.IndexByte(line, ':') >= 0
			if !h.inHead {
				h.keepTail(line)
			}
		}
		if !complete {
			return
		}
		b = rest
		blank := h.lineLen == 0 || (h.lineLen == 1 && h.first == '\r')
		switch {
		case blank && !h.inHead:
			// An empty line before the request line is ignored (RFC 9112 §2.2).
		case !h.inHead:
			h.inHead = true
			h.ended = !h.requestLine() // not a request's start: no verdict
		case blank:
			h.ended = true
		case !h.colon && h.first != ' ' && h.first != '\t':
			// A line starting with a space or a tab continues the one
			// before (obs-fold), which framingProblem refuses.
			h.bad = true
		}
		h.lineLen, h.colon, h.tailLen = 0, false, 0
	}
}

// keepTail keeps the last bytes of the first line read so far.
func (h *headScan) keepTail(line []byte) {
	if len(line) >= len(h.tail) {
		h.tailLen = copy(h.tail[:], line[len(line)-len(h.tail):])
		return
	}
	if keep := len(h.tail) - len(line); h.tailLen > keep {
		copy(h.tail[:], h.tail[h.tailLen-keep:h.tailLen])
		h.tailLen = keep
	}
	h.tailLen += copy(h.tail[h.tailLen:], line)
}

// requestLine reports whether the first line, now read whole, ends as a
// request line does.
func (h *headScan) requestLine() bool {
	end := bytes.TrimSuffix(h.tail[:h.tailLen], []byte{'\r'})
	return bytes.HasSuffix(end, []byte(" HTTP/1.1")) || bytes.HasSuffix(end, []byte(" HTTP/1.0"))
}

func (c *conn) Read(p []byte) (int, error) {
	if c.scan.ended && c.scan.bad {
		// fasthttp asks for more of a head that has ended: it is waiting
		// for the colon of a line without one.
		return 0, errLineWithoutColon
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.read == 0 {
		c.used.Store(true)
	}
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
		c.fresh, c.arrived = false, time.Now()
		_ = c.Conn.SetWriteDeadline(c.arrived.Add(c.answerWithin))
	}
	if n > 0 && c.lineEnd < 0 {
		from := int64(0)
		if c.start > c.read {
			from = c.start - c.read
		}
		if from < int64(n) {
			c.headLen += copy(c.head[c.headLen:], p[from:n])
			line := p[from:n]
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				c.lineEnd = c.read + from + int64(i)
				line = line[:i]
			}
			if i := bytes.LastIndexByte(line, ' '); i >= 0 {
				c.lastSpace = c.read + from + int64(i)
			}
		}
	}
	if n > 0 && !c.scan.ended {
		c.scan.add(p[:n])
	}
	c.read += int64(n)
	return n, err
}

// headBytes bounds what a connection keeps of each request line: a method
// and a path of the lengths the API serves, and the start of a longer one.
const headBytes = 256

// requestRead marks the bytes read so far as the current request's (called
// when the handler starts): the next request begins after them.
func (c *conn) requestRead() {
	c.start, c.lineEnd, c.lastSpace, c.headLen, c.fresh = c.read, -1, -1, 0, true
	c.scan = headScan{}
}

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

// arrival is when the current request's first bytes were read, or zero
// when none was read since the previous request's handler started (a
// pipelined request fasthttp already held arrived with an earlier read,
// at a time not kept).
func (c *conn) arrival() time.Time {
	if c.fresh {
		return time.Time{}
	}
	return c.arrived
}

// nothingRead reports whether no byte of the current request was read.
func (c *conn) nothingRead() bool { return c.read == c.start }

// requestTargetLen is the length of the current request's target as
// refuse measures it (fasthttp's RequestURI): the bytes between the
// method's space and the version's. While the line's end is not read yet,
// everything after the method counts (the version comes last).
func (c *conn) requestTargetLen() int64 {
	method, _ := c.requestLine()
	begin, end := c.start+int64(len(method))+1, c.read
	if c.lineEnd >= 0 {
		end = c.lineEnd
		if c.lastSpace >= begin {
			end = c.lastSpace
		}
	}
	return max(0, end-begin)
}

// lingerOnClose asks Close to drain the client's input first.
func (c *conn) lingerOnClose() { c.linger.Store(true) }

// Close half-closes and drains when lingerOnClose was called, then closes.
func (c *conn) Close() error {
	if c.from != nil {
		c.from.mu.Lock()
		delete(c.from.open, c)
		c.from.mu.Unlock()
	}
	if c.linger.Load() {
		if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
			_ = c.Conn.SetReadDeadline(time.Now().Add(lingerTime))
			_, _ = io.CopyN(io.Discard, c.Conn, lingerBytes)
		}
	}
	return c.Conn.Close()
}
