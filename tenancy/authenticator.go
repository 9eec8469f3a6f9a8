package tenancy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/sync/singleflight"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// CacheTTL bounds how long a key's lookup (positive or negative) is reused
// without knowing that nothing it holds has changed since. It is also the
// bound on how long a revoked key keeps working on another instance.
const CacheTTL = time.Second

// maxEntryAge bounds how long a lookup is reused while the authentication
// epoch stays where it was (auth_epoch, raised by every change to keys and
// to the organization settings a principal carries): then it is looked up
// again even so.
const maxEntryAge = 5 * time.Minute

// Bounds of the two caches. Valid keys and unknown keys are cached apart, so
// a flood of forged well-formed keys (the CRC32 checksum is public) can only
// evict other unknown keys, never a valid principal.
var (
	maxKnownEntries   = 100_000
	maxUnknownEntries = 20_000
)

// ErrInvalidCredentials is the 401 of a key that is missing, malformed or
// unknown.
var ErrInvalidCredentials = errs.New(errs.InvalidCredentials, "missing, malformed, expired or revoked API key")

// KeyRefusal is the details of the 401 of a key that exists but may no
// longer act: revoked, or expired at ExpiredAt. Only a caller holding the
// whole key (its hash matched) is told, so it tells nothing to anyone
// else; it tells an integration's operator what to do, where the generic
// 401 left them to guess between a typo and a rotation (docs/decisions.md,
// "Keys and authentication").
type KeyRefusal struct {
	Reason    string     `json:"reason"`
	ExpiredAt *time.Time `json:"expired_at,omitempty"`
}

// Reasons of a KeyRefusal.
const (
	RefusedRevoked = "revoked"
	RefusedExpired = "expired"
)

var errRevokedKey = &errs.Error{Code: errs.InvalidCredentials, Message: "API key revoked", Details: KeyRefusal{Reason: RefusedRevoked}}

func expiredKey(at time.Time) error {
	at = at.UTC()
	return &errs.Error{Code: errs.InvalidCredentials, Message: "API key expired",
		Details: KeyRefusal{Reason: RefusedExpired, ExpiredAt: &at}}
}

// AuthenticatorConfig configures an Authenticator.
type AuthenticatorConfig struct {
	// CacheTTL is how long a lookup (positive or negative) is reused. Zero
	// caches nothing: every call looks the key up, so a revocation or scope
	// change applies on the next call (the miss benchmarks of bench/auth).
	CacheTTL time.Duration
}

// Authenticator resolves bearer keys to principals. Lookups are cached per
// key hash, and concurrent misses for one key share one query. A lookup is
// reused for the configured TTL (CacheTTL in production) as it is; after
// that, for as long as the authentication epoch it was read with is still
// the current one, confirmed by one query per TTL for the whole process
// (epoch.go), and at most maxEntryAge. So a revocation or a scope change
// takes effect within the TTL, while a process serving many keys does not
// look each of them up again every TTL.
type Authenticator struct {
	db      bun.IDB
	ttl     time.Duration
	now     func() time.Time
	group   singleflight.Group
	mu      sync.RWMutex
	known   map[[32]byte]cacheEntry
	unknown map[[32]byte]cacheEntry
	epoch   epochClock
	usage   *usageRecorder
	// joined, when set (tests), is called by share with the caller's
	// context once the caller waits on the lookup in flight.
	joined func(context.Context)
}

type cacheEntry struct {
	p *Principal // nil: the key is unknown, revoked or expired
	// revoked: the key exists and was revoked (p is nil).
	revoked bool
	// key is the key's identity when it exists (nil: unknown), for the
	// record of a request it is refused for (RefusedKey).
	key *RefusedKey
	// fetched is when the lookup's query was sent, epoch what auth_epoch
	// held in its snapshot.
	fetched time.Time
	epoch   int64
	// keyExpires is the key's expires_at, checked on every use.
	keyExpires *time.Time
}

// NewAuthenticator returns an Authenticator over db that caches lookups for
// CacheTTL. Call Close to stop the background writer of last_used_at.
func NewAuthenticator(db bun.IDB, log *slog.Logger) *Authenticator {
	return NewAuthenticatorWith(db, log, AuthenticatorConfig{CacheTTL: CacheTTL})
}

// NewAuthenticatorWith returns an Authenticator over db configured by cfg.
// Call Close to stop the background writer of last_used_at.
func NewAuthenticatorWith(db bun.IDB, log *slog.Logger, cfg AuthenticatorConfig) *Authenticator {
	return &Authenticator{db: db, ttl: cfg.CacheTTL, now: time.Now, known: map[[32]byte]cacheEntry{},
		unknown: map[[32]byte]cacheEntry{}, usage: newUsageRecorder(db, log)}
}

// Close flushes pending last-used times and stops the writer.
func (a *Authenticator) Close() { a.usage.close() }

// Authenticate returns the principal for a raw key, or invalid_credentials.
// A malformed key is refused without touching the cache or the database.
func (a *Authenticator) Authenticate(ctx context.Context, raw string) (*Principal, error) {
	p, _, err := a.Identify(ctx, raw)
	return p, err
}

// Identify is Authenticate that also says, for a key refused because it was
// revoked or has expired (its hash matched a stored key), whose key it is:
// refused, nil otherwise.
func (a *Authenticator) Identify(ctx context.Context, raw string) (p *Principal, refused *RefusedKey, err error) {
	if _, err := apikey.Parse(raw); err != nil {
		return nil, nil, ErrInvalidCredentials
	}
	h := apikey.Hash(raw)
	now := a.now()
	e, ok := a.cached(h)
	if !ok || !a.usable(ctx, e, now) {
		var err error
		if e, err = a.sharedLookup(ctx, h, now); err != nil {
			return nil, nil, err
		}
	}
	switch {
	case e.revoked:
		return nil, e.key, errRevokedKey
	case e.keyExpires != nil && !now.Before(*e.keyExpires):
		return nil, e.key, expiredKey(*e.keyExpires)
	case e.p == nil:
		return nil, nil, ErrInvalidCredentials
	}
	return e.p, nil, nil
}

// sharedQueryTimeout bounds a query that concurrent callers share (a key's
// lookup, the epoch's confirmation): it runs on a context of its own, not
// the first caller's, so that caller's deadline or cancellation does not
// fail the others; each caller waits only as long as its own context
// allows.
const sharedQueryTimeout = 5 * time.Second

// share runs fn once for the concurrent callers of one name (singleflight)
// on a context that keeps ctx's values but not its cancellation, bounded by
// sharedQueryTimeout, and waits for its result as long as ctx allows.
func (a *Authenticator) share(ctx context.Context, name string, fn func(context.Context) (any, error)) (any, error) {
	ch := a.group.DoChan(name, func() (any, error) {
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sharedQueryTimeout)
		defer cancel()
		return fn(qctx)
	})
	if a.joined != nil {
		a.joined(ctx)
	}
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, database.Error(ctx.Err())
	}
}

// sharedLookup looks h up for a caller that arrived at arrived, sharing the
// query with concurrent callers. A shared lookup whose query was sent more
// than the TTL before the caller arrived is not taken: its snapshot may
// predate a revocation that the caller, by the TTL's bound, must see (the
// query was slow: a starved process, a busy database); the caller looks
// again, and that lookup starts after it arrived.
func (a *Authenticator) sharedLookup(ctx context.Context, h [32]byte, arrived time.Time) (cacheEntry, error) {
	for {
		v, err := a.share(ctx, string(h[:]), func(ctx context.Context) (any, error) {
			e, err := a.lookup(ctx, h[:])
			if err != nil {
				return nil, err
			}
			if a.ttl > 0 {
				a.store(h, e)
			}
			return e, nil
		})
		if err != nil {
			return cacheEntry{}, err
		}
		if e := v.(cacheEntry); !e.fetched.Before(arrived.Add(-a.ttl)) {
			return e, nil
		}
	}
}

// Used records that p's key made a successful request now: its
// last_used_at is "the most recent successful request" (a status below
// 400), so the caller reports it once the request's outcome is known. The
// write happens later, off the request path (usageRecorder).
func (a *Authenticator) Used(p *Principal) { a.usage.touch(p.KeyID, a.now()) }

// cached returns the cached lookup of h, if any; with no TTL nothing is
// cached.
func (a *Authenticator) cached(h [32]byte) (cacheEntry, bool) {
	if a.ttl <= 0 {
		return cacheEntry{}, false
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	e, ok := a.known[h]
	if !ok {
		e, ok = a.unknown[h]
	}
	return e, ok
}

// store caches a lookup in the map of its kind, keeping each map bounded.
func (a *Authenticator) store(h [32]byte, e cacheEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	target, other, max := a.known, a.unknown, maxKnownEntries
	if e.p == nil {
		target, other, max = a.unknown, a.known, maxUnknownEntries
	}
	delete(other, h) // a key that changed state lives in one map only
	if len(target) >= max {
		now := a.now()
		for k, old := range target {
			if !now.Before(old.fetched.Add(maxEntryAge)) {
				delete(target, k)
			}
		}
		if len(target) >= max {
			clear(target)
		}
	}
	target[h] = e
}

type keyRow struct {
	KeyID          *uuid.UUID `bun:"key_id"` // nil: no such key
	KeyPrefix      string     `bun:"key_prefix"`
	OrganizationID uuid.UUID  `bun:"organization_id"`
	OrgIsSandbox   bool       `bun:"org_is_sandbox"`
	Scopes         []string   `bun:"scopes,array"`
	Mode           string     `bun:"mode"`
	RevokedAt      *time.Time `bun:"revoked_at"`
	ExpiresAt      *time.Time `bun:"expires_at"`
	RateLimit      *int       `bun:"rate_limit"`
	StockGuard     string     `bun:"stock_guard_mode"`
	SandboxID      *uuid.UUID `bun:"sandbox_id"`
	SandboxRate    *int       `bun:"sandbox_rate_limit"`
	SandboxGuard   *string    `bun:"sandbox_stock_guard_mode"`
	Epoch          int64      `bun:"epoch"`
}

// lookup reads the key of hash, with the authentication epoch of the same
// snapshot, into a cache entry.
func (a *Authenticator) lookup(ctx context.Context, hash []byte) (cacheEntry, error) {
	e := cacheEntry{fetched: a.now()}
	var rows []keyRow
	err := a.db.NewRaw(`
		SELECT k.id AS key_id, k.prefix AS key_prefix, k.organization_id, o.sandbox_of IS NOT NULL AS org_is_sandbox,
		       k.scopes, k.mode, k.revoked_at, k.expires_at, o.rate_limit_per_window AS rate_limit, o.stock_guard_mode,
		       s.id AS sandbox_id, s.rate_limit_per_window AS sandbox_rate_limit,
		       s.stock_guard_mode AS sandbox_stock_guard_mode, x.epoch
		FROM auth_epoch x
		LEFT JOIN (api_keys k
		           JOIN organizations o ON o.id = k.organization_id
		           LEFT JOIN organizations s ON s.sandbox_of = o.id) ON k.hash = ?`, hash).Scan(ctx, &rows)
	if err != nil {
		return e, database.Error(err)
	}
	if len(rows) != 1 {
		return e, fmt.Errorf("tenancy: key lookup returned %d rows", len(rows))
	}
	r := rows[0]
	e.epoch, e.keyExpires = r.Epoch, r.ExpiresAt
	a.epoch.set(r.Epoch, e.fetched)
	if r.KeyID == nil {
		return e, nil
	}
	p := r.principal()
	e.key = &RefusedKey{OrganizationID: p.OrganizationID, KeyID: p.KeyID, KeyPrefix: p.KeyPrefix}
	e.revoked = r.RevokedAt != nil
	if !e.revoked && !Expired(r.ExpiresAt, e.fetched) {
		e.p = p
	}
	return e, nil
}

// principal is the principal of a live key's row.
func (r *keyRow) principal() *Principal {
	scopes := make([]Scope, len(r.Scopes))
	for i, s := range r.Scopes {
		scopes[i] = Scope(s)
	}
	mode := apikey.Mode(r.Mode)
	p := &Principal{
		KeyID: *r.KeyID, KeyPrefix: r.KeyPrefix, OrganizationID: r.OrganizationID, HomeOrganizationID: r.OrganizationID,
		Scopes: NewScopeSet(scopes...), Mode: mode, Sandbox: InSandbox(mode, r.OrgIsSandbox),
		StockGuardMode: StockGuardMode(r.StockGuard),
	}
	if r.RateLimit != nil {
		p.RateLimit = *r.RateLimit
	}
	// A test key of an organization that has a sandbox acts on the sandbox.
	if mode == apikey.Test && r.SandboxID != nil {
		p.OrganizationID = *r.SandboxID
		p.RateLimit = 0
		if r.SandboxRate != nil {
			p.RateLimit = *r.SandboxRate
		}
		if r.SandboxGuard != nil {
			p.StockGuardMode = StockGuardMode(*r.SandboxGuard)
		}
	}
	return p
}
