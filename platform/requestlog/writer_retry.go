package requestlog

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// A flush is tried again while its failure may pass, and never stores a
// record twice: an attempt after a failed one first looks whether the batch
// landed.

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
// not tried again.
//
// When the writer is told to stop (Close), the schedule starts again within
// the time Close was given (its deadline, or one schedule from the stop:
// Writer.Close): a flush waiting to try again tries at once, a
// wait is cut to end database.LastTry before Close's deadline and none
// begins with less left, and an attempt still running when that deadline passes is cut
// short (base): the last records of a pod that stops while PostgreSQL is
// away for a moment (a pooler restarting in the same rolling update) are
// written when it comes back in time, and the goroutine uses the pool no
// longer than Close waits for it. Each attempt is its own root trace, never
// part of a request's.
func (w *Writer) write(chunks [][]Record) {
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	stopping := w.closed.Load()
	wait, tries := w.retryBackoff(), 0
	for attempt := 1; ; attempt++ {
		tries++
		err := w.tryOnce(chunks, n, attempt)
		if err == nil {
			w.written.Add(int64(n))
			writtenCounter.Add(context.Background(), int64(n))
			return
		}
		if !stopping && w.closed.Load() { // told to stop during the attempt
			stopping, wait, tries = true, w.retryBackoff(), 0
		}
		if stopping {
			wait = w.fitBeforeClose(wait)
		}
		if tries >= maxWriteAttempts || !transient(err) || wait <= 0 || w.base.Err() != nil {
			w.drop(ReasonWriteFailed, n)
			w.cfg.Log.Warn("request log: batch dropped", "records", n, "attempts", attempt, "error", err.Error())
			return
		}
		w.cfg.Log.Warn("request log: batch not written, trying again", "records", n, "attempt", attempt,
			"retry_in", wait.String(), "error", err.Error())
		if w.pause(wait, stopping) { // told to stop during the wait: try at once
			stopping, wait, tries = true, w.retryBackoff(), 0
			continue
		}
		wait *= 2
	}
}

// pause waits d, and reports whether the writer was told to stop meanwhile,
// which ends the wait. A writer already stopping waits the whole of d, or
// until the time Close gave it ends (base), after which write gives up.
func (w *Writer) pause(d time.Duration, stopping bool) (stopped bool) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	stop := w.stop
	if stopping {
		stop = nil
	}
	select {
	case <-timer.C:
		return false
	case <-w.base.Done():
		return false
	case <-stop:
		return true
	}
}

// fitBeforeClose returns a wait of d fitted before the bound Close set
// (closeBy, database.WaitBefore); d itself before Close.
func (w *Writer) fitBeforeClose(d time.Duration) time.Duration {
	by := w.closeBy.Load()
	if by == nil {
		return d
	}
	return database.WaitBefore(d, *by)
}

// tryOnce is one attempt of write, bounded by WriteTimeout and by base. A
// failed attempt's COPY may have been committed all the same (it timed
// out, or its connection was cut, after the statement reached PostgreSQL):
// a later attempt first looks whether the batch is stored (landed) and
// copies it only when it is not, so that no record is stored twice. The
// look and the copy share the attempt's one bound, and its one root
// trace, request_log.flush, which an attempt that fails in the look ends
// with an error too.
func (w *Writer) tryOnce(chunks [][]Record, n, attempt int) (err error) {
	ctx, cancel := context.WithTimeout(w.base, w.cfg.WriteTimeout)
	defer cancel()
	ctx, span := telemetry.Tracer().Start(ctx, "request_log.flush", trace.WithNewRoot(),
		trace.WithAttributes(attribute.Int("eventapi.request_log.records", n), attribute.Int("eventapi.request_log.attempt", attempt)))
	defer func() {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, "request log batch not written")
		}
		span.End()
	}()
	if attempt > 1 {
		stored, err := landed(ctx, w.cfg.DB, chunks)
		if err != nil {
			return err
		}
		span.SetAttributes(attribute.Bool("eventapi.request_log.already_stored", stored))
		if stored {
			return nil
		}
	}
	return copyChunks(ctx, w.cfg.DB, chunks, &w.buf)
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

// schedule is the longest one flush's tries take when every attempt runs
// to the write timeout: maxWriteAttempts attempts and the doubling waits
// between them (65 s at the defaults: 50 s of attempts, 15 s of waits). A
// Close whose context has no deadline gives the stopping writer that
// long, once, for all its flushes.
func (w *Writer) schedule() time.Duration {
	waits := time.Duration(1<<(maxWriteAttempts-1)-1) * w.retryBackoff()
	return maxWriteAttempts*w.cfg.WriteTimeout + waits
}

// retryBackoff is write's first wait before trying a flush again.
func (w *Writer) retryBackoff() time.Duration {
	if w.cfg.RetryBackoff > 0 {
		return w.cfg.RetryBackoff
	}
	return DefaultRetryBackoff
}
