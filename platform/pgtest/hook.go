package pgtest

import (
	"context"

	"github.com/uptrace/bun"
)

// BeforeQuery is a bun.QueryHook made of a function that runs before each
// statement bun sends, with the statement's event, and returns the context
// the statement runs with (a cancelled one fails it). A test adds it to a
// pool with AddQueryHook or WithQueryHook to act between two statements of
// the code under test.
type BeforeQuery func(ctx context.Context, e *bun.QueryEvent) context.Context

// BeforeQuery implements bun.QueryHook.
func (f BeforeQuery) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	return f(ctx, e)
}

// AfterQuery implements bun.QueryHook.
func (BeforeQuery) AfterQuery(context.Context, *bun.QueryEvent) {}
