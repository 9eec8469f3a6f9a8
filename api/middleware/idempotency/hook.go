package idempotency

import (
	"sync/atomic"

	"github.com/google/uuid"
)

var afterCommit atomic.Pointer[func(org uuid.UUID, key string)]

// SetAfterCommitHook installs f to run after a keyed request's transaction
// has committed and before its response is written to the edge store. It is
// for tests only: a hook that panics simulates a process that dies in that
// gap. It returns a function that removes the hook.
func SetAfterCommitHook(f func(org uuid.UUID, key string)) (remove func()) {
	afterCommit.Store(&f)
	return func() { afterCommit.CompareAndSwap(&f, nil) }
}

func runAfterCommit(org uuid.UUID, key string) {
	if f := afterCommit.Load(); f != nil {
		(*f)(org, key)
	}
}
