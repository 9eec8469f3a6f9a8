package idempotency

import (
	"context"
	"sync"
)

// background owns the goroutines a middleware starts beside its requests
// (the purge of expired rows, the orphans' releaser): they run under one
// context, which close cancels before it waits for them, so none outlives
// the database pool and edge store it uses.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// start runs f in a goroutine of its own under the shared context, and
// reports whether it did: once closed it runs nothing.
func (b *background) start(f func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		f(b.ctx)
	}()
	return true
}

// close cancels the shared context and waits for every goroutine started;
// a second call waits as well.
func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}
