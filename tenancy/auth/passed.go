package auth

import (
	"context"
	"slices"
	"sync"

	"github.com/eventapi/eventapi/tenancy"
)

// Passed collects the scope checks a request passed, each as the set of
// scopes any one of which passes it: the route's guards, a reservation
// write's check for the read scope its warnings need, and so on. The
// idempotency middleware stores, for each, the scope the key passed it
// with, and replays the answer only to a key holding them all
// (docs/decisions.md, "A replay goes only to a key that passes the
// execution's scope checks"): such a key would have got the same answer by
// executing the request itself.
type Passed struct {
	mu    sync.Mutex
	sets  []tenancy.ScopeSet
	bound bool
}

type passedKey struct{}

// WithPassed returns ctx with a new Passed that every check made under it
// (Require, Check) adds to.
func WithPassed(ctx context.Context) (context.Context, *Passed) {
	p := &Passed{}
	return context.WithValue(ctx, passedKey{}, p), p
}

// Sets returns the checks passed, each once, in the order first passed.
func (p *Passed) Sets() []tenancy.ScopeSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.sets)
}

// ForThisKeyOnly marks the answer of ctx's request as one for the key that
// made it alone: it holds a secret the server made for this request (a
// webhook signing secret), which another key passing the same checks would
// not get by executing the request; it gets a new one of its own.
func ForThisKeyOnly(ctx context.Context) {
	if p, ok := ctx.Value(passedKey{}).(*Passed); ok {
		p.mu.Lock()
		p.bound = true
		p.mu.Unlock()
	}
}

// ForThisKey reports whether ForThisKeyOnly was called.
func (p *Passed) ForThisKey() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bound
}

// passed records that ctx's principal passed the check of need.
func passed(ctx context.Context, need tenancy.ScopeSet) {
	p, ok := ctx.Value(passedKey{}).(*Passed)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.sets, need) {
		p.sets = append(p.sets, need)
	}
}
