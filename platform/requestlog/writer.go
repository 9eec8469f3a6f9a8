package requestlog

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Defaults of WriterConfig. A flush every 4 s rather than every second
// makes segments four times as wide at a given rate (an organization's
// records of 4 s share one row), which cut the log's cost on catbench's
// detail by about two thirds (docs/observability.md, "What it costs"). A
// flush also starts once 8,000 records wait (half the buffer), which
// bounds what waits in memory at full load: 20,000 waiting records took a
// pod's peak RSS to 72 MiB on catbench's detail, 8,000 to 59, at the same
// throughput (docs/observability.md, "How it is written").
const (
	DefaultBuffer       = 16_000
	DefaultBatch        = DefaultBuffer / 2
	DefaultInterval     = 4 * time.Second
	DefaultWriteTimeout = 10 * time.Second
	DefaultRetryBackoff = time.Second
)

// Drop reasons, the reason attribute of eventapi.request_log.dropped.
const (
	ReasonBufferFull  = "buffer_full"
	ReasonWriteFailed = "write_failed"
	ReasonClosed      = "closed"
)

// WriterConfig configures a Writer.
type WriterConfig struct {
	// DB is the pool the records are copied through (one connection at a time).
	DB *bun.DB
	// Buffer is how many records may wait in memory (default 16,000); a
	// record that finds it full is dropped and counted.
	Buffer int
	// Batch is how many buffered records wake the goroutine before the
	// interval ends (default half the buffer); each wake copies everything buffered
	// in one statement, so that a flush holds as many of an organization's
	// records as it can: they share a segment (segment.go).
	Batch int
	// Interval is the longest a record waits before its batch is written
	// (default 4s).
	Interval time.Duration
	// WriteTimeout bounds one attempt of a flush (default 10s): the look
	// for an earlier attempt's rows and the COPY together; a
	// flush that fails or times out is tried again (Writer.write), and its
	// records are dropped and counted when it never succeeds.
	WriteTimeout time.Duration
	// RetryBackoff is the first wait before a failed flush is tried again
	// (default 1s), doubled for each later attempt.
	RetryBackoff time.Duration
	Log          *slog.Logger
}

var (
	droppedCounter metric.Int64Counter
	writtenCounter metric.Int64Counter
)

func init() {
	m := otel.Meter("github.com/eventapi/eventapi/platform/requestlog")
	droppedCounter, _ = m.Int64Counter("eventapi.request_log.dropped",
		metric.WithDescription("Request-log records dropped: buffer full, batch write failed, or logged after shutdown."),
		metric.WithUnit("{record}"))
	writtenCounter, _ = m.Int64Counter("eventapi.request_log.written",
		metric.WithDescription("Request-log records written to PostgreSQL."),
		metric.WithUnit("{record}"))
}

// Writer buffers records and copies them to request_log_segments from one
// goroutine, everything buffered in one statement. Add never blocks and,
// unlike a channel send, does not wake the goroutine for each record:
// records gather under a mutex in chunks (chunkSize), and the goroutine
// runs when a batch (WriterConfig.Batch) is waiting, at each interval, on
// Flush and on Close. A chunk is made once and reused: a backlog adds
// chunks instead of growing one long slice, and copying it, while requests
// wait for the mutex.
type Writer struct {
	cfg     WriterConfig
	mu      sync.Mutex
	pending [][]Record // chunks of at most chunkSize records; guarded by mu
	count   int        // the records in pending, at most cfg.Buffer; guarded by mu
	free    [][]Record // emptied chunks kept for reuse, at most keep; guarded by mu
	keep    int        // how many emptied chunks free may hold (keepChunks); guarded by mu
	ended   bool       // the final drain has run; guarded by mu
	buf     copyBuffer // the flushes' scratch space, kept by the goroutine
	wake    chan struct{}
	flushes chan chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closed  atomic.Bool
	// closeBy is the earliest bound of the Close calls (nil before the
	// first): their contexts' deadlines, or one retry schedule from a
	// call whose context has none. Once stopping, a failed flush is tried
	// again only while it lasts.
	closeBy atomic.Pointer[time.Time]
	// base is every attempt's context: cancelled when a Close call's
	// bound ends, so that an attempt in flight then ends too, and when
	// the goroutine stops.
	base       context.Context
	cancelBase context.CancelFunc
	once       sync.Once
	dropped    atomic.Int64
	written    atomic.Int64
}

// NewWriter starts a Writer. Call Close to flush and stop it.
func NewWriter(cfg WriterConfig) *Writer {
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	if cfg.Batch <= 0 {
		cfg.Batch = max(1, cfg.Buffer/2)
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	w := &Writer{cfg: cfg, wake: make(chan struct{}, 1), flushes: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{})}
	w.base, w.cancelBase = context.WithCancel(context.Background())
	// Every series is on /metrics from the start, at 0, not from the first
	// drop: a rate() or an alert over a series that does not exist yet sees
	// nothing.
	for _, reason := range []string{ReasonBufferFull, ReasonWriteFailed, ReasonClosed} {
		w.drop(reason, 0)
	}
	writtenCounter.Add(context.Background(), 0)
	go w.run()
	return w
}

// Add queues r, or drops and counts it when the buffer is full or the
// writer is closed. It never blocks.
func (w *Writer) Add(r Record) {
	if w.closed.Load() {
		w.drop(ReasonClosed, 1)
		return
	}
	w.mu.Lock()
	switch {
	case w.ended:
		w.mu.Unlock()
		w.drop(ReasonClosed, 1)
		return
	case w.count >= w.cfg.Buffer:
		w.mu.Unlock()
		w.drop(ReasonBufferFull, 1)
		return
	}
	n := len(w.pending)
	if n == 0 || len(w.pending[n-1]) == cap(w.pending[n-1]) {
		w.pending = append(w.pending, w.newChunk())
		n++
	}
	w.pending[n-1] = append(w.pending[n-1], r)
	w.count++
	full := w.count == w.cfg.Batch
	w.mu.Unlock()
	if full {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
}

// Dropped returns how many records this writer dropped.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Written returns how many records this writer wrote.
func (w *Writer) Written() int64 { return w.written.Load() }

func (w *Writer) drop(reason string, n int) {
	w.dropped.Add(int64(n))
	droppedCounter.Add(context.Background(), int64(n), metric.WithAttributes(attribute.String("reason", reason)))
}

// Flush writes everything buffered before the call, or gives up when ctx
// ends (the records stay buffered).
func (w *Writer) Flush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case w.flushes <- ack:
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting records, writes what is buffered and stops the
// goroutine. A flush that fails meanwhile is tried again as long as ctx's
// deadline leaves time for it (Writer.write); with no deadline, for as
// long as one retry schedule may take (schedule): every flush of the
// stop shares that one bound, rather than each running a schedule of its
// own. When that bound ends first it returns ctx's error
// (DeadlineExceeded for a ctx without a deadline), and the attempt in flight is cut
// short: the records still buffered are lost (counted as dropped once the
// goroutine gets to them), and the goroutine uses the pool no more. Call
// it during shutdown after the HTTP server has drained and before the
// database pool is closed.
//
// Every call is bound by its own ctx in the same way, a later one too: the
// earliest bound of all the calls is the writer's, since each caller may
// go on to close the pool once its own ends. A call after the goroutine has
// stopped returns nil at once.
func (w *Writer) Close(ctx context.Context) error {
	select {
	case <-w.done:
		return nil
	default:
	}
	by, ok := ctx.Deadline()
	if !ok {
		by = time.Now().Add(w.schedule())
	}
	w.closeBefore(by)
	bound, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	w.once.Do(func() {
		w.closed.Store(true)
		close(w.stop)
	})
	select {
	case <-w.done:
		return nil
	case <-bound.Done():
		w.cancelBase()
		select {
		case <-w.done: // it stopped as the bound ended
			return nil
		default:
			return bound.Err()
		}
	}
}

// closeBefore lowers the time a stopping writer's flushes must end by
// (closeBy) to by, unless an earlier Close set an earlier one.
func (w *Writer) closeBefore(by time.Time) {
	for {
		old := w.closeBy.Load()
		if old != nil && !by.Before(*old) {
			return
		}
		if w.closeBy.CompareAndSwap(old, &by) {
			return
		}
	}
}

func (w *Writer) run() {
	defer close(w.done)
	defer w.cancelBase()
	t := time.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-w.wake:
			w.drain(false)
		case <-t.C:
			w.drain(false)
		case ack := <-w.flushes:
			w.drain(false)
			close(ack)
		case <-w.stop:
			w.drain(true)
			return
		}
	}
}
