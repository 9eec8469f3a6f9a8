package requestlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
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
	once    sync.Once
	dropped atomic.Int64
	written atomic.Int64
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
// goroutine. When ctx ends first it returns ctx's error; the records still
// buffered are then lost (counted as dropped once the goroutine gets to them).
// Call it during shutdown after the HTTP server has drained and before the
// database pool is closed.
func (w *Writer) Close(ctx context.Context) error {
	w.once.Do(func() {
		w.closed.Store(true)
		close(w.stop)
	})
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Writer) run() {
	defer close(w.done)
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

// chunkSize is the most records of a chunk: the unit in which the buffer
// grows and is reused, smaller than a flush so that a quiet writer holds
// little memory.
const chunkSize = 1000

// maxFreeChunks bounds the emptied chunks kept for reuse: 5,000 records'
// worth, a quarter of a default flush. The rest of a flush's chunks are
// made anew (a megabyte every few seconds at catbench's detail load, little
// beside the requests' own allocations), so that a quiet writer gives a
// busy period's memory back within a few flushes.
const maxFreeChunks = 5

// newChunk returns an empty chunk, reused when one is free (w.mu held).
func (w *Writer) newChunk() []Record {
	if n := len(w.free); n > 0 {
		c := w.free[n-1]
		w.free = w.free[:n-1]
		return c
	}
	return make([]Record, 0, min(chunkSize, w.cfg.Batch, w.cfg.Buffer))
}

// drain writes every record buffered now in one statement; final makes
// later Adds drop their record as closed.
func (w *Writer) drain(final bool) {
	w.mu.Lock()
	chunks := w.pending
	w.pending, w.count = nil, 0
	w.ended = final
	w.mu.Unlock()
	if len(chunks) > 0 {
		w.write(chunks)
	} else {
		w.buf.b, w.buf.order = w.buf.b[:0], w.buf.order[:0]
	}
	w.buf.trim()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.keep = keepChunks(w.keep, len(chunks))
	w.free = recycle(w.free, chunks, w.keep)
}

// keepChunks is how many emptied chunks the free list holds after a flush
// that used used of them, when the flush before kept last: what this one
// used, or half of last, whichever is more (at least one, at most
// maxFreeChunks). A steady rate keeps what its busy flushes use, and a
// quiet period gives a busy period's chunks to the garbage collector within
// a few flushes. Kept for good, they held a backlog's memory, which the
// collector's heap goal, twice the live heap, doubled in the pod's RSS
// (bench/README.md, "Where the targets stand").
func keepChunks(last, used int) int {
	return min(max(used, last/2, 1), maxFreeChunks)
}

// recycle returns the free list after a flush that emptied used, holding
// at most keep chunks.
func recycle(free, used [][]Record, keep int) [][]Record {
	for _, c := range used {
		if len(free) >= keep {
			break
		}
		clear(c)
		free = append(free, c[:0])
	}
	if len(free) > keep {
		clear(free[keep:])
		free = free[:keep]
	}
	return free
}

// write copies the records of chunks in one statement, and tries again
// while the failure may pass (a connection cut, a pooler restarting, a
// statement timed out): up to maxWriteAttempts in all, waiting
// retryBackoff, then twice as long each time: 15 s of waits, and at most
// about 65 s in all when every attempt runs to the write timeout, while
// nothing else is written and the buffer fills. Records
// are dropped when the buffer is full, not because PostgreSQL was away for
// a moment (docs/observability.md, "How it is written"); meanwhile requests keep
// adding to the buffer, and a record that finds it full is dropped as
// always. A failure that would come back (a record the table refuses) is
// not tried again, and once the writer is told to stop it tries once more
// at once and then gives up. Each attempt is its own root trace, never
// part of a request's.
func (w *Writer) write(chunks [][]Record) {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	stopping := false
	wait := w.retryBackoff()
	for attempt := 1; ; attempt++ {
		err := w.tryOnce(chunks, n, attempt)
		if err == nil {
			w.written.Add(int64(n))
			writtenCounter.Add(context.Background(), int64(n))
			return
		}
		if attempt >= maxWriteAttempts || stopping || !transient(err) {
			w.drop(ReasonWriteFailed, n)
			w.cfg.Log.Warn("request log: batch dropped", "records", n, "attempts", attempt, "error", err.Error())
			return
		}
		w.cfg.Log.Warn("request log: batch not written, trying again", "records", n, "attempt", attempt,
			"retry_in", wait.String(), "error", err.Error())
		timer := time.NewTimer(wait)
		select {
		case <-timer.C:
		case <-w.stop:
			stopping = true
		}
		timer.Stop()
		wait *= 2
	}
}

// tryOnce is one attempt of write. A failed attempt's COPY may have been
// committed all the same (it timed out, or its connection was cut, after
// the statement reached PostgreSQL): a later attempt first looks whether
// the batch is stored (landed) and copies it only when it is not, so that
// no record is stored twice. The look and the copy share the attempt's
// one WriteTimeout.
func (w *Writer) tryOnce(chunks [][]Record, n, attempt int) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.WriteTimeout)
	defer cancel()
	if attempt > 1 {
		stored, err := landed(ctx, w.cfg.DB, chunks)
		if err != nil || stored {
			return err
		}
	}
	return w.copyOnce(ctx, chunks, n, attempt)
}

// landed reports whether the batch of chunks is stored. A COPY stores all
// its rows or none, so one record of it tells: found through the segments'
// index, since a record of instant t is in a segment whose last_at is in
// [t, t + MaxSpan]. A record with an organization is looked for first (the
// index's leading column); false when no record has an id.
func landed(ctx context.Context, db bun.IDB, chunks [][]Record) (bool, error) {
	r := probe(chunks)
	if r == nil {
		return false, nil
	}
	org := "organization_id IS NULL"
	args := []any{r.CreatedAt, r.CreatedAt.Add(MaxSpan), r.ID}
	if r.OrganizationID != nil {
		org = "organization_id = ?"
		args = append([]any{*r.OrganizationID}, args...)
	}
	var found bool
	err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM request_log_segments
		WHERE `+org+` AND last_at BETWEEN ? AND ? AND ? = ANY(ids))`, args...).Scan(ctx, &found)
	return found, err
}

// probe returns the record of chunks that landed looks for: the first with
// an organization and an id, else the first with an id, else nil.
func probe(chunks [][]Record) *Record {
	var first *Record
	for _, c := range chunks {
		for i := range c {
			switch r := &c[i]; {
			case r.ID == uuid.Nil:
			case r.OrganizationID != nil:
				return r
			case first == nil:
				first = r
			}
		}
	}
	return first
}

// transient reports whether a failed flush may succeed when tried again:
// its attempt timed out, or it failed as the API answers 503 for (a lost
// or refused connection, a statement cancelled, a database short of
// resources or refusing writes for now; database.Error).
func transient(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var e *errs.Error
	return errors.As(database.Error(err), &e) && e.Code == errs.ServiceUnavailable
}

// maxWriteAttempts is how many times write tries one flush.
const maxWriteAttempts = 5

// retryBackoff is write's first wait before trying a flush again.
func (w *Writer) retryBackoff() time.Duration {
	if w.cfg.RetryBackoff > 0 {
		return w.cfg.RetryBackoff
	}
	return DefaultRetryBackoff
}

// copyOnce is the copy of one attempt of write, within ctx (the attempt's
// write timeout).
func (w *Writer) copyOnce(ctx context.Context, chunks [][]Record, n, attempt int) error {
	ctx, span := telemetry.Tracer().Start(ctx, "request_log.flush", trace.WithNewRoot(),
		trace.WithAttributes(attribute.Int("eventapi.request_log.records", n), attribute.Int("eventapi.request_log.attempt", attempt)))
	defer span.End()
	err := copyChunks(ctx, w.cfg.DB, chunks, &w.buf)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "request log batch not written")
	}
	return err
}

// Copy writes records with one COPY into request_log_segments, grouped into
// segments (PostgreSQL routes each to its day's partition), in the binary
// format encoded by appendCopy. It holds one pool connection for the
// statement only, so it is safe behind a transaction-mode pooler.
func Copy(ctx context.Context, db *bun.DB, records []Record) error {
	return copyChunks(ctx, db, [][]Record{records}, new(copyBuffer))
}

// copyChunks is Copy of the records of several chunks, as one statement,
// encoded in buf.
func copyChunks(ctx context.Context, db *bun.DB, chunks [][]Record, buf *copyBuffer) error {
	ctx, span := telemetry.Tracer().Start(ctx, "COPY request_log_segments", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(semconv.DBSystemPostgreSQL, semconv.DBOperationName("COPY"),
			semconv.DBCollectionName("request_log_segments")))
	defer span.End()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	buf.b = appendCopy(buf.b[:0], chunks, &buf.order)
	clear(buf.order)
	err = conn.Raw(func(dc any) error {
		pc := database.PgxConn(dc)
		if pc == nil {
			return fmt.Errorf("request log: driver connection is %T, not pgx", dc)
		}
		_, err := pc.PgConn().CopyFrom(ctx, bytes.NewReader(buf.b), copySQL)
		return err
	})
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "copy failed")
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("request log: copy timed out: %w", err)
		}
	}
	return err
}

// copyBuffer is a flush's scratch space: the encoded stream (5,000 records
// encode to about 600 KB) and the records' sort order. The writer keeps
// its own from flush to flush; a sync.Pool would lose it to the garbage
// collector between flushes and grow it again each time.
type copyBuffer struct {
	b     []byte
	order []*Record
	// peak and peakOrder are the recent flushes' largest use of b and
	// order, halved at each flush.
	peak, peakOrder int
}

// keptCopyBytes is the space a copyBuffer keeps however little the
// flushes use.
const keptCopyBytes = 64 << 10

// trim lets the garbage collector take the buffer's space once the recent
// flushes use less than a quarter of it, so that a writer back to a quiet
// rate does not hold a busy period's buffer (after two or three quiet
// flushes), while a steady rate, small flushes between large ones
// included, reuses it.
func (b *copyBuffer) trim() {
	b.peak = max(len(b.b), b.peak/2)
	b.peakOrder = max(len(b.order), b.peakOrder/2)
	if cap(b.b) > keptCopyBytes && cap(b.b) > 4*b.peak {
		b.b = nil
	}
	if cap(b.order) > keptCopyBytes/8 && cap(b.order) > 4*b.peakOrder {
		b.order = nil
	}
}
