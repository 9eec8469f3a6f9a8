package requestlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// Records reach request_log_segments by one COPY per flush, in PostgreSQL's
// binary format (appendCopy), encoded in a buffer the Writer keeps.

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
