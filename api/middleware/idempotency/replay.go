package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	keys "github.com/eventapi/eventapi/api/storage/idempotency"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// replayRow replays a completed database row and copies it to the edge
// store (remember; marker is this request's own when it claimed the key).
func (m *Middleware) replayRow(c *fiber.Ctx, p *tenancy.Principal, name string, r *keys.Row, fp, marker []byte) error {
	rec := rowRecord(r)
	m.remember(c.UserContext(), name, rec, r.TTL(m.Retention), marker)
	if err := allowed(p, rec); err != nil {
		return err
	}
	if !bytes.Equal(rec.Fingerprint, fp) {
		return errMismatch
	}
	return m.replay(c, p, name, rec)
}

// replay sends the response stored under name to p's key when replayable. The
// body is the stored one, except that a replayed error names the replaying
// request in error.request_id, which must equal this response's
// X-Request-Id.
func (m *Middleware) replay(c *fiber.Ctx, p *tenancy.Principal, name string, rec record) error {
	if err := replayable(p, rec); err != nil {
		return err
	}
	body, err := m.body(rec, name)
	if err != nil {
		return err
	}
	c.Status(rec.Status)
	// A response that has no body (204) went out without a Content-Type
	// (fasthttp sends its default only with a body), though the record
	// holds that default.
	if rec.ContentType != "" && rec.Status != fiber.StatusNoContent {
		c.Set(fiber.HeaderContentType, rec.ContentType)
	}
	c.Set(HeaderReplayed, "true")
	if rec.forOneKey() {
		// It shows a secret, as the answer it replays did (rest.HoldsSecret).
		c.Set(fiber.HeaderCacheControl, rest.CacheControlNoStore)
	}
	if rec.Status >= 400 {
		body = withRequestID(body, rest.EnsureRequestID(c))
	}
	return c.Send(body)
}

// body opens the stored body of rec, sealed under name.
func (m *Middleware) body(rec record, name string) ([]byte, error) {
	if !rec.Sealed {
		return rec.Body, nil
	}
	body, err := m.Sealer.Open(rec.Body, []byte(name))
	if err != nil {
		return nil, errs.Wrap(fmt.Errorf("idempotency: stored response does not open: %w", err), "internal error")
	}
	return body, nil
}

// withRequestID replaces the request id of a v2 error envelope. request_id is
// the last member of the error object, so its last occurrence is the
// envelope's own.
func withRequestID(body []byte, id string) []byte {
	marker := []byte(`"request_id":"`)
	i := bytes.LastIndex(body, marker)
	if i < 0 {
		return body
	}
	start := i + len(marker)
	end := bytes.IndexByte(body[start:], '"')
	if end < 0 {
		return body
	}
	out := make([]byte, 0, len(body)-end+len(id))
	out = append(out, body[:start]...)
	out = append(out, id...)
	return append(out, body[start+end:]...)
}

// The edge store's copy of a completed record is a cache of the database
// row, which answers every replay the copy does not (handle, execute): it
// is kept CachedFor at most, and only when it is at most MaxCachedRecord
// long, so that what one organization writes bounds its share of Redis
// (docs/edge.md, "Redis memory"). Kept for the record's whole 24 hours and
// whatever its size, one organization's keyed writes within its rate limit
// filled a Redis: every organization's keyed writes were then refused with
// 503 and the rate limiter failed open until the records expired.
const (
	CachedFor       = 5 * time.Minute
	MaxCachedRecord = 8 << 10
)

// remember writes the final record to the edge store, for CachedFor or the
// ttl left when shorter; a record longer than MaxCachedRecord is not
// written, and the request's marker, when it still holds the key, is taken
// back instead (a retry then replays the database row; one that met the
// marker would consult the row too, only later freed). A failure is
// logged only: the database row answers retries.
func (m *Middleware) remember(ctx context.Context, name string, rec record, ttl time.Duration, marker []byte) {
	encoded := rec.encode()
	if len(encoded) > MaxCachedRecord {
		if marker != nil {
			m.release(ctx, name, marker)
		}
		return
	}
	if err := m.Store.Set(context.WithoutCancel(ctx), name, encoded, min(ttl, CachedFor)); err != nil {
		m.upkeep.Record(ctx, err)
	}
}
