// Package auth benchmarks the authentication path (tenancy.Authenticator)
// against the real PostgreSQL: a malformed key refused before any I/O, a
// known key served from the in-process cache, a cache miss that looks the key
// up, and their parallel variants. Its tests check the correctness side that
// the timings rely on: the cached and malformed paths issue no query, and a
// revoked key is refused within tenancy.CacheTTL (on the next call with no
// cache).
//
// Run: go test -run '^$' -bench . -benchmem ./bench/auth/
package auth

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// QueryCounter is a bun query hook that counts the queries a database handle
// runs, split into key lookups (SELECT) and every other statement (the
// background last_used_at writer issues UPDATEs off the request path).
type QueryCounter struct {
	selects atomic.Int64
	others  atomic.Int64
}

var _ bun.QueryHook = (*QueryCounter)(nil)

// BeforeQuery implements bun.QueryHook.
func (q *QueryCounter) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

// AfterQuery implements bun.QueryHook.
func (q *QueryCounter) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if strings.EqualFold(ev.Operation(), "SELECT") {
		q.selects.Add(1)
		return
	}
	q.others.Add(1)
}

// Selects is the number of SELECT statements run so far.
func (q *QueryCounter) Selects() int64 { return q.selects.Load() }

// Total is the number of statements of any kind run so far.
func (q *QueryCounter) Total() int64 { return q.selects.Load() + q.others.Load() }
