// Package idempotency makes v2 writes (POST, PATCH, DELETE) safe to retry
// with an Idempotency-Key header. A request without the header costs nothing
// here: no edge store call and no database work.
//
// For a keyed request, one edge-store round trip (an atomic claim) either
// finds the key's record or leaves an in-progress marker:
//
//   - a stored response with the same fingerprint is replayed (same status
//     and body, plus Idempotent-Replayed: true);
//   - a different fingerprint is 409 idempotency_key_mismatch;
//   - a marker is 409 idempotency_key_in_use with Retry-After while the
//     attempt that left it still runs; the committed response is replayed
//     when the owner died after COMMIT, and the request executes when the
//     owner died before it (no transaction holds the key's row:
//     keys.OwnerRunning; docs/edge.md, "A dead attempt's key").
//
// A fresh key runs its handler inside a PostgreSQL transaction that also
// inserts the key's idempotency_keys row and stores the response on it before
// COMMIT; only then is the response written to the edge store (the second
// round trip). The stored body is sealed (platform/seal) in both places: it
// may hold a new webhook endpoint's secret. 2xx and 4xx responses are kept
// for Retention, but for a 403 (the key was refused, not the request: another
// key may run it) and a 405 (nothing executed), whose key is released like a
// 5xx's, and an answer body over MaxKeptAnswer, of which only the fact that
// it executed is kept; a 5xx rolls the transaction back and releases the
// key, so a retry executes again. When the
// edge store is unavailable a keyed request is refused with 503 and never
// executed.
//
// The row's statements are api/storage/idempotency's (imported as keys):
// this package begins the request's transaction, hands it to keys.Open,
// then to the handler's stores (rest.WithTx) and to keys.Complete, and
// commits it; it builds no query itself (api/layering).
package idempotency

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/eventapi/eventapi/api/rest"
	keys "github.com/eventapi/eventapi/api/storage/idempotency"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/edge"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
	"github.com/eventapi/eventapi/tenancy/auth"
)

// HeaderReplayed marks a replayed response.
const HeaderReplayed = rest.HeaderIdempotentReplayed

// Defaults of Config.
const (
	DefaultRetention  = 24 * time.Hour
	DefaultLockTTL    = 30 * time.Second
	DefaultPurgeEvery = 10 * time.Minute
)

// lockMargin is how much longer than the request's own timeout an
// in-progress marker lives (LockTTLFor): the commit and the answer's write
// come after the handler's work.
const lockMargin = 10 * time.Second

// LockTTLFor is the LockTTL for requests bounded by requestTimeout (0:
// unbounded): DefaultLockTTL, or the timeout and a margin when that is
// longer. A marker that expired while its request still ran would let a
// retry claim the key and wait, holding a connection and a transaction, on
// the running request's row, and another retry do the same every LockTTL. An
// unbounded request keeps DefaultLockTTL: no TTL is long enough for it,
// and a process that dies must not block its key for long.
func LockTTLFor(requestTimeout time.Duration) time.Duration {
	if requestTimeout > 0 && requestTimeout+lockMargin > DefaultLockTTL {
		return requestTimeout + lockMargin
	}
	return DefaultLockTTL
}

// Config configures the middleware.
type Config struct {
	Store edge.Store
	DB    *bun.DB
	Log   *slog.Logger
	// Sealer seals the stored responses; required. Every instance must use
	// the same key (server.ResponseSealer reads it from the database).
	Sealer *seal.Sealer
	// ErrorHandler renders a handler's error so its final status and body
	// can be stored (default rest.ErrorHandler).
	ErrorHandler fiber.ErrorHandler
	// Retention is how long a key's response is replayed (default 24h).
	Retention time.Duration
	// LockTTL bounds the in-progress marker, so a process that dies before
	// COMMIT blocks its key for at most this long (default 30s; LockTTLFor
	// fits it to the request timeout).
	LockTTL time.Duration
	// PurgeEvery is the least time between two purges of expired rows, run
	// in the background after a fresh key's insert (default 10m).
	PurgeEvery time.Duration
	// Serves reports whether a route of the method serves the path
	// (route.Resolver.Serves). A keyed request no route serves (404 no such
	// route, or 405) executes nothing, so it neither claims nor stores its
	// key: a client that corrects the path retries with the same key.
	// Nil: every request is taken as served.
	Serves func(method, path string) bool
	// OptionalBody reports whether the route of a request reads an absent
	// body as the empty object `{}` (webhooks.OptionalBody): there the two
	// are one request in the fingerprint (sameAsNoBody). Nil: no route does.
	OptionalBody func(method, path string) bool
	// BeforeTx, when set, says what a freshly claimed key must wait for
	// before its transaction opens: nil, nothing. The server takes a keyed
	// large write's bulkhead slot so: after the claim and a look at the
	// key's row (a retry whose record the edge store no longer holds), so
	// a replay, a mismatch or a key in use never waits for one, and before
	// the transaction, so no waiter holds a pool connection
	// (docs/architecture.md, "Memory"). A request that waits for nothing
	// skips that look: its transaction finds the row as well (keys.Open).
	BeforeTx func(c *fiber.Ctx) Wait
	// Authorize runs the scope checks of the request's route (the server's
	// are the documented ones, openapi.Scopes) before its key is claimed or
	// compared with a stored request; an error is answered, and nothing is
	// claimed. The route's own guards run only when the request executes,
	// after that comparison: without this, a key lacking the route's scope
	// that sent another key's Idempotency-Key learned from the answer, 409
	// idempotency_key_mismatch or 403, whether its guess of the stored
	// request's body was right (docs/edge.md, "Idempotency-Key"). Nil:
	// none.
	Authorize func(c *fiber.Ctx) error
}

// A Wait takes what a request must hold before its transaction opens, and
// may set the request's context; the release it returns runs once the
// request is answered. A request it refuses (its error is answered)
// executes nothing and releases its key.
type Wait func() (release func(), err error)

var unavailableCounter metric.Int64Counter

func init() {
	unavailableCounter, _ = otel.Meter("github.com/eventapi/eventapi/api/middleware/idempotency").Int64Counter(
		"eventapi.idempotency.unavailable",
		metric.WithDescription("Keyed writes refused with 503 because the edge store was unavailable."),
		metric.WithUnit("{request}"))
}

// Middleware is the Idempotency-Key middleware (Handle), with the
// goroutines it runs beside the requests (the purge of expired rows, the
// orphans' releaser), which Close ends.
type Middleware struct {
	Config
	// outage logs the keyed writes refused because the edge store did not
	// answer: its count is what eventapi_idempotency_unavailable_total
	// counts. upkeep logs the store's other failures, which refuse
	// nothing: a final record not stored (the database answers the
	// replays) and markers not released (their keys answer 409 until the
	// orphans' releaser or the TTL frees them).
	outage, upkeep *telemetry.OutageLog
	orphans        *orphans
	nextPurge      atomic.Int64
	background     *background
}

// NewMiddleware returns the middleware. Its Handle must run after
// authentication: keys are scoped to the principal's (effective)
// organization.
func NewMiddleware(cfg Config) *Middleware {
	if cfg.Sealer == nil {
		panic("idempotency: Config.Sealer is required")
	}
	unavailableCounter.Add(context.Background(), 0) // on /metrics from the start, at 0
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.ErrorHandler == nil {
		cfg.ErrorHandler = rest.ErrorHandler(cfg.Log)
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.LockTTL <= 0 {
		cfg.LockTTL = DefaultLockTTL
	}
	if cfg.PurgeEvery <= 0 {
		cfg.PurgeEvery = DefaultPurgeEvery
	}
	m := &Middleware{Config: cfg, background: newBackground(),
		outage: telemetry.NewOutageLog(cfg.Log, "idempotency: edge store unavailable, refusing keyed writes", telemetry.OutageLogEvery),
		upkeep: telemetry.NewOutageLog(cfg.Log, "idempotency: edge store unavailable, records not stored or markers not released", telemetry.OutageLogEvery)}
	m.orphans = &orphans{store: cfg.Store, ttl: cfg.LockTTL, every: orphanEvery, log: m.upkeep.Record, start: m.background.start}
	return m
}

// Close ends the middleware's background goroutines and waits for them: a
// purge in flight is cancelled, and markers still waiting for the orphans'
// releaser are left to their TTL. Call it before the database pool and
// the edge store close; a request still running through Handle then starts
// nothing more. Closing again waits for nothing.
func (m *Middleware) Close() { m.background.close() }

// keyedMethod reports whether the middleware keys requests of method: the
// v2 writes, POST, PATCH and DELETE (docs/openapi.md). PUT is not one: no
// route takes it.
func keyedMethod(method string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPatch, fiber.MethodDelete:
		return true
	}
	return false
}

// Handles reports whether the middleware takes c over: a write of a keyed
// method, with an Idempotency-Key header (empty or not), on a path a route
// of the method serves (Config.Serves). Only such a request reaches
// Config.BeforeTx (when its key is freshly claimed), so this is the one
// test of whether it may: the server's write slot lets a request through
// without a slot, for BeforeTx to take, only when this is true. Handle
// asks the same.
func (m *Middleware) Handles(c *fiber.Ctx) bool {
	if !keyedMethod(c.Method()) {
		return false
	}
	if _, sent := keyOf(c); !sent {
		return false
	}
	return m.Serves == nil || m.Serves(c.Method(), c.Path())
}

var (
	errMismatch = errs.New(errs.IdempotencyKeyMismatch,
		"this Idempotency-Key was used with a different request (method, path, body, or live versus test key)")
	errInUse = &errs.Error{Code: errs.IdempotencyKeyInUse,
		Message: "a request with this Idempotency-Key is still executing; retry later", RetryAfter: 1}
	errUnavailable = &errs.Error{Code: errs.ServiceUnavailable,
		Message: "Idempotency-Key records are unavailable; the request was not executed"}
)

// Handle is the middleware: a request it does not take over (Handles) goes
// on untouched.
func (m *Middleware) Handle(c *fiber.Ctx) error {
	if !m.Handles(c) {
		return c.Next()
	}
	key, _ := keyOf(c)
	if !ValidKey(key) {
		return ErrInvalidKey
	}
	if len(c.Request().Header.PeekAll(Header)) > 1 {
		return errTwoKeys
	}
	ctx := c.UserContext()
	p, ok := tenancy.FromContext(ctx)
	if !ok {
		return tenancy.ErrInvalidCredentials
	}
	if m.Authorize != nil {
		if err := m.Authorize(c); err != nil {
			return err
		}
	}
	org := tenancy.OrganizationID{UUID: p.OrganizationID}
	body := c.Body()
	if m.OptionalBody != nil && m.OptionalBody(c.Method(), c.Path()) {
		body = sameAsNoBody(body)
	}
	fp := Fingerprint(c.Method(), c.Path(), body)
	if p.Mode == apikey.Test {
		fp = testFingerprint(fp)
	}
	name := StoreKey(org.UUID, key)

	marker := record{State: stateRunning, Fingerprint: fp, Owner: uuid.NewString()}.encode()
	prev, claimed, err := m.Store.Claim(ctx, name, marker, m.LockTTL)
	if err != nil {
		// The claim may still run when Redis answers again: take its
		// marker back then, so the retry this 503 asks for executes.
		m.orphans.add(name, marker)
		m.unavailable(ctx, err)
		return errUnavailable
	}
	if claimed {
		return m.execute(c, claim{p: p, org: org, key: key, fp: fp, name: name, marker: marker})
	}
	rec, ok := decodeRecord(prev)
	if !ok {
		return errs.Wrap(errors.New("undecodable idempotency record in the edge store"), "internal error")
	}
	if rec.State == stateDone {
		if err := allowed(p, rec); err != nil {
			return err
		}
	}
	if !bytes.Equal(rec.Fingerprint, fp) {
		return errMismatch
	}
	if rec.State == stateDone {
		return m.replay(c, p, name, rec)
	}
	// In progress, or its owner committed and died before recording the
	// response in the edge store: the database decides.
	r, err := keys.Find(ctx, m.DB, org, key, m.Retention)
	if err != nil {
		return err
	}
	if r != nil {
		if !r.Done() {
			return errInUse
		}
		return m.replayRow(c, p, name, r, fp, nil)
	}
	// No committed row: the earlier attempt still runs, or it died before
	// its COMMIT. Its transaction, while open, holds the key's row: a
	// probe of that row, before any write slot is waited for, tells the
	// two apart (docs/edge.md, "A dead attempt's key").
	running, err := keys.OwnerRunning(ctx, m.DB, org, key, fp, m.Retention)
	if err != nil {
		return err
	}
	if running {
		return errInUse
	}
	return m.execute(c, claim{p: p, org: org, key: key, fp: fp, name: name, marker: prev, takeover: true})
}

// claim is a keyed request's hold on its key.
type claim struct {
	p      *tenancy.Principal
	org    tenancy.OrganizationID
	key    string
	fp     []byte
	name   string // the key's name in the edge store (StoreKey)
	marker []byte // the in-progress marker this request releases or settles
	// takeover: marker is an earlier attempt's, whose transaction held no
	// row of the key (keys.OwnerRunning). This request executes, and never
	// releases that marker: the attempt may be alive and not yet at its
	// INSERT, and a dead one's marker is taken over again by the next
	// retry (docs/edge.md, "A dead attempt's key").
	takeover bool
}

// execute runs the handler for a claimed key inside a transaction that
// records the response with the write, and releases the key's marker
// unless the key is settled or the marker is an earlier attempt's.
func (m *Middleware) execute(c *fiber.Ctx, cl claim) (err error) {
	// Deferred, so that a handler's panic (a 500 once the recoverer above
	// has it) releases the key too, as every 5xx does: a retry executes
	// again instead of meeting 409 idempotency_key_in_use until the
	// marker's TTL.
	settled := false
	defer func() {
		if !settled && !cl.takeover {
			m.release(c.UserContext(), cl.name, cl.marker)
		}
	}()
	settled, err = m.executeClaimed(c, cl)
	if errors.Is(err, keys.ErrOwnerRunning) {
		// Another retry took the key over between this one's probe and
		// its transaction, or the attempt reached its INSERT.
		return errInUse
	}
	return err
}

// executeClaimed is execute without the release: settled reports whether
// the key now has its record (stored, or replayed from its row).
func (m *Middleware) executeClaimed(c *fiber.Ctx, cl claim) (settled bool, err error) {
	p, org, key, fp, name, marker := cl.p, cl.org, cl.key, cl.fp, cl.name, cl.marker
	if wait := m.beforeTx(c); wait != nil {
		// The edge store keeps a completed record briefly and only when
		// it is small (CachedFor, MaxCachedRecord), so a claim may be a
		// retry of a write that completed: its row is looked up before
		// the wait, so that a replay or a mismatch never waits. A row
		// committed after this look is found by keys.Open, as before.
		prior, err := keys.Find(c.UserContext(), m.DB, org, key, m.Retention)
		if err != nil {
			return false, err
		}
		if prior != nil {
			return m.answerPrior(c, p, name, prior, fp, marker)
		}
		done, err := wait()
		if err != nil {
			return false, err
		}
		defer done()
	}
	ctx := c.UserContext()
	tx, err := m.DB.BeginTx(ctx, nil)
	if err != nil {
		return false, database.Error(err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	opener := keys.Open
	if cl.takeover {
		// Bounded: a second retry that passed its probe with this one
		// waited for this one's whole run, holding a slot and a connection.
		opener = keys.OpenWithin
	}
	prior, err := opener(ctx, tx, org, key, fp, m.Retention)
	if err != nil {
		return false, err
	}
	if prior != nil {
		_ = tx.Rollback()
		return m.answerPrior(c, p, name, prior, fp, marker)
	}
	m.maybePurge()
	rec, keep, err := m.runHandler(c, p, tx, fp, name)
	if err != nil || !keep {
		return false, err
	}
	if err := keys.Complete(ctx, tx, org, key, rec.answer()); err != nil {
		c.Response().ResetBody()
		return false, err
	}
	if err := tx.Commit(); err != nil {
		// The outcome is unknown; a retry finds the row if it committed.
		c.Response().ResetBody()
		return false, database.Error(err)
	}
	committed = true
	m.remember(ctx, name, rec, m.Retention, marker)
	return true, nil
}

// beforeTx is what the request must wait for before its transaction
// (Config.BeforeTx), or nil.
func (m *Middleware) beforeTx(c *fiber.Ctx) Wait {
	if m.BeforeTx == nil {
		return nil
	}
	return m.BeforeTx(c)
}

// answerPrior answers a claim whose key already has a row: 409 while it
// is in progress, else its replay.
func (m *Middleware) answerPrior(c *fiber.Ctx, p *tenancy.Principal, name string, prior *keys.Row, fp, marker []byte) (settled bool, err error) {
	if !prior.Done() {
		return false, errInUse
	}
	return true, m.replayRow(c, p, name, prior, fp, marker)
}

// runHandler runs the handler in tx and returns the record of its answer
// to keep, sealed for the key's name, or keep false when the answer is not kept (a 5xx, 403 or 405:
// tx is rolled back and the key released, so a retry executes again).
func (m *Middleware) runHandler(c *fiber.Ctx, p *tenancy.Principal, tx bun.Tx, fp []byte, name string) (rec record, keep bool, err error) {
	ctx := c.UserContext()
	// The handler runs under a savepoint: a 4xx is stored without whatever
	// the failed request wrote, and a statement error inside the handler
	// (a constraint violation answered 409 or 422) leaves the transaction
	// usable for recording the answer.
	if err := keys.Savepoint(ctx, tx); err != nil {
		return record{}, false, err
	}
	hctx, checks := auth.WithPassed(rest.WithTx(ctx, tx))
	c.SetUserContext(hctx)
	herr := c.Next()
	c.SetUserContext(ctx)
	// The handler's error is answered here, so that its status decides
	// below what the key records (a render that failed is a 500).
	if pass, _ := rest.RenderError(c, m.ErrorHandler, herr); pass != nil {
		return record{}, false, pass
	}
	res := c.Response()
	status := res.StatusCode()
	if status >= 500 || status == fiber.StatusForbidden || status == fiber.StatusMethodNotAllowed {
		// A 403 refuses the key, not the request, so a key with the scope
		// may retry; a 405 executed nothing, and answering it again keeps
		// its Allow header, which a stored record would not replay.
		return record{}, false, nil
	}
	if status >= 400 {
		if err := keys.RollbackToSavepoint(ctx, tx); err != nil {
			res.ResetBody()
			return record{}, false, err
		}
	}
	kept, scopes := keptBody(res.Body(), checksOf(checks, p))
	sealed, err := m.Sealer.Seal(kept, []byte(name))
	if err != nil {
		res.ResetBody()
		return record{}, false, err
	}
	return record{State: stateDone, Fingerprint: fp, Status: status, ContentType: string(res.Header.ContentType()),
		Body: sealed, Sealed: true, Scopes: scopes}, true, nil
}

// release deletes this request's in-progress marker so that a retry may
// execute; a marker that expired and was claimed by another request since
// is left to its owner. A delete that fails is handed to the orphans'
// releaser, as a failed claim's marker is: a request that executed nothing
// (rolled back, or refused) would otherwise keep its key's retries at 409
// idempotency_key_in_use until the marker expired.
func (m *Middleware) release(ctx context.Context, name string, marker []byte) {
	if err := m.Store.DeleteIf(context.WithoutCancel(ctx), name, marker); err != nil {
		m.upkeep.Record(ctx, err)
		m.orphans.add(name, marker)
	}
}

func (m *Middleware) unavailable(ctx context.Context, err error) {
	if unavailableCounter != nil {
		unavailableCounter.Add(ctx, 1)
	}
	m.outage.Record(ctx, err)
}
