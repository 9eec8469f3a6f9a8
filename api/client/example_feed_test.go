package client_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
)

// follow is the restart loop of docs/sdk.md, "Restarting the feed": a
// Feed ends at its first error; the loop starts a new one from the saved
// cursor after a transient error, starts again from the head after 410
// cursor_expired, and stops on any other error, which the same request
// would get again.
func follow(ctx context.Context, api *client.API, cursor string, params *client.ListChangesParams,
	save func(string), handle func(client.Change) error) error {
	for {
		feed := api.NewFeed(cursor, params)
		feed.OnCursor = func(c string) { cursor = c; save(c) }
		var failed error
		for ch, err := range feed.Changes(ctx) {
			if err != nil {
				failed = err
				break
			}
			if err := handle(ch); err != nil {
				return err // the cursor stays before ch: it comes again
			}
		}
		if e, ok := errors.AsType[*client.APIError](failed); ok && e.Status == http.StatusGone {
			head, err := api.FeedHead(ctx, params)
			if err != nil {
				return err
			}
			// The head first, the copy after: a change made during the
			// copy comes through the feed.
			log.Printf("the feed's cursor expired: copy the records again; the feed goes on from the head taken before the copy")
			cursor = head
			continue
		}
		wait, ok := client.Retryable(failed)
		if !ok {
			return failed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// ExampleRetryable follows the change feed for good, through rate limits,
// pods draining and lost answers.
func ExampleRetryable() {
	ctx := context.Background()
	api, err := client.New("http://localhost:8080/api/v2", "svc_live_…")
	if err != nil {
		log.Fatal(err)
	}
	saved := "" // the cursor your store kept, "" for the feed's start
	err = follow(ctx, api, saved, nil, func(c string) { saved = c /* persist it */ }, func(ch client.Change) error {
		log.Printf("%s %s", ch.Type, ch.ObjectId)
		return nil
	})
	log.Fatal(err)
}

// TestFollowRestartsOnlyWhereItMay runs follow against the real app: a
// 503 on a poll (a pod draining; injected, the transport's own retries
// off so that the feed ends on it) is waited out and the feed goes on from
// the saved cursor, yielding each change once; a cursor that is not one
// is returned at once, never retried.
func TestFollowRestartsOnlyWhereItMay(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Feed follower")
	var polls, injected atomic.Int32
	next := contractClient(t).Transport
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if strings.HasSuffix(r.URL.Path, "/changes") && polls.Add(1) == 2 {
			injected.Add(1)
			return &http.Response{StatusCode: 503, Request: r, Body: io.NopCloser(strings.NewReader(
				`{"error":{"code":"service_unavailable","message":"draining","details":null,"request_id":"r"}}`)),
				Header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}}}, nil
		}
		return next.RoundTrip(r)
	})}
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(hc), client.NoRetries())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	create := func(name string) string {
		t.Helper()
		res, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: name})
		if err != nil || res.JSON201 == nil {
			t.Fatalf("creating %s: %v", name, err)
		}
		return res.JSON201.ClientRecord.Id.String()
	}
	first := create("First")
	var second string
	seen := map[string]int{}
	done := errors.New("both seen")
	err = follow(ctx, api, "", nil, func(string) {}, func(ch client.Change) error {
		id := ch.ObjectId.String()
		seen[id]++
		if id == first && second == "" {
			second = create("Second")
		}
		if id == second {
			return done
		}
		return nil
	})
	if !errors.Is(err, done) || injected.Load() != 1 || seen[first] != 1 || seen[second] != 1 || len(seen) != 2 {
		t.Fatalf("follow: %v; %d 503s injected, seen %v; want both clients once across the 503", err, injected.Load(), seen)
	}
	bad := follow(ctx, api, "not-a-cursor", nil, func(string) {}, func(client.Change) error { return nil })
	if client.CodeOf(bad) != "validation_error" {
		t.Fatalf("follow from a bad cursor: %v, want its 422 at once", bad)
	}
}
