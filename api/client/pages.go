package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
)

// ListFunc is a generated list method of *Client, for example
// (*Client).ListEvents: it takes the operation's parameters and returns the
// raw answer.
type ListFunc[P any] func(ctx context.Context, params *P, reqEditors ...RequestEditorFn) (*http.Response, error)

// All yields every record of a cursor-paginated list, fetching page after
// page by passing each page's pagination.next_cursor back as cursor. T is
// the record type, list a method of API.Raw and params its parameters (nil
// for none); a cursor in params is where iteration starts. Iteration stops
// at the first error, which is yielded with a zero T (after the records of
// the page it came with, if any).
//
// To resume a long copy that stopped on an error, pass OnCursor: it is
// called with each page's next_cursor once every record of the page has
// been yielded (the loop body returned for the last one), and an All
// whose params carry that cursor goes on with the next page. A copy
// stopped mid-page resumes at that page's start, so handle records by
// their id.
//
// A T of this package must be the type of the list's records (Vehicle for
// ListVehicles, Event for ListEvents and ListJobs, WebhookDelivery for an
// endpoint's deliveries, and so on; a pointer to it also does): another,
// such as Vehicle over ListEquipment, is an error before the first request
// is sent, not records of zero values. A T of another package
// (json.RawMessage, a map, a struct of the caller's) is decoded as it is.
//
//	for ev, err := range client.All[client.Event](ctx, api.Raw.ListEvents, &client.ListEventsParams{}) { … }
func All[T, P any](ctx context.Context, list ListFunc[P], params *P, opts ...ListOption) iter.Seq2[T, error] {
	var o listOptions
	for _, opt := range opts {
		opt(&o)
	}
	return func(yield func(T, error) bool) {
		var cursor *string
		for {
			page, next, err := fetchPage[T](ctx, list, params, cursor)
			for _, rec := range page {
				if !yield(rec, nil) {
					return
				}
			}
			if err != nil {
				// After the records of a page that came (one that says
				// more follow without a cursor to them).
				var zero T
				yield(zero, err)
				return
			}
			if next == nil {
				return
			}
			if o.onCursor != nil {
				o.onCursor(*next)
			}
			cursor = next
		}
	}
}

// ListOption adjusts All.
type ListOption func(*listOptions)

type listOptions struct{ onCursor func(cursor string) }

// OnCursor has All call f with each page's next_cursor after every record
// of the page has been yielded, on the iterating goroutine, as
// Feed.OnCursor does: save it there, and a copy that stopped on an error
// resumes with that cursor in the list's params. The last page has no
// next_cursor, so f is not called for it: the list is whole when All ends
// without an error.
//
//	params := &client.ListVehiclesParams{Cursor: saved} // nil the first time
//	for v, err := range client.All[client.Vehicle](ctx, api.Raw.ListVehicles, params,
//		client.OnCursor(func(c string) { save(c) })) { … }
func OnCursor(f func(cursor string)) ListOption {
	return func(o *listOptions) { o.onCursor = f }
}

// Bind makes a list method that also takes a path argument (the endpoint's
// id of (*Client).ListWebhookDeliveries) a ListFunc of that argument, for
// All:
//
//	for d, err := range client.All[client.WebhookDelivery](ctx, client.Bind(api.Raw.ListWebhookDeliveries, endpointID), nil) { … }
func Bind[A, P any](list func(ctx context.Context, arg A, params *P, reqEditors ...RequestEditorFn) (*http.Response, error), arg A) ListFunc[P] {
	return func(ctx context.Context, params *P, reqEditors ...RequestEditorFn) (*http.Response, error) {
		return list(ctx, arg, params, reqEditors...)
	}
}

func fetchPage[T, P any](ctx context.Context, list ListFunc[P], params *P, cursor *string) ([]T, *string, error) {
	data, p, err := decodePage[T](ctx, list, params, cursor)
	switch {
	case err != nil || !p.HasMore:
		return data, nil, err
	case p.NextCursor == nil:
		// More follow but there is no way to them: an error, not a list
		// that looks whole.
		return data, nil, errNoNextCursor
	}
	return data, p.NextCursor, nil
}

// errNoNextCursor is All's error for a page that says more follow and
// gives no cursor to them.
var errNoNextCursor = errors.New("eventapi: a page has has_more set and no next_cursor")

// decodePage fetches one page of list at cursor (nil: the params' own).
func decodePage[T, P any](ctx context.Context, list ListFunc[P], params *P, cursor *string) ([]T, Pagination, error) {
	var editors []RequestEditorFn
	if check := checkRecordType[T](); check != nil {
		editors = append(editors, check)
	}
	if cursor != nil {
		c := *cursor
		editors = append(editors, func(_ context.Context, req *http.Request) error {
			q := req.URL.Query()
			q.Set("cursor", c)
			req.URL.RawQuery = q.Encode()
			return nil
		})
	}
	res, err := list(ctx, params, editors...)
	if err != nil {
		return nil, Pagination{}, err
	}
	defer drain(res)
	var page struct {
		Data       []T        `json:"data"`
		Pagination Pagination `json:"pagination"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		// A RoundTripper of the caller's may answer without Request.
		if res.Request == nil || res.Request.URL == nil {
			return nil, Pagination{}, fmt.Errorf("eventapi: list page: %w", err)
		}
		return nil, Pagination{}, fmt.Errorf("eventapi: list page of %s: %w", res.Request.URL.Path, err)
	}
	return page.Data, page.Pagination, nil
}
