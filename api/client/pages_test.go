package client_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/client"
)

// noRequest is a RoundTripper, a caller's test double for example, that
// answers 200 with body and leaves the response's Request nil.
type noRequest struct{ body string }

func (n noRequest) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(n.body)), ContentLength: -1}, nil
}

// TestPageThatFailsToDecodeWithoutRequest: a page that does not decode ends
// All and Feed with an error, also when the response carries no Request
// (All and Feed read its URL for the error's text and panicked).
func TestPageThatFailsToDecodeWithoutRequest(t *testing.T) {
	api, err := client.New("http://eventapi.invalid/api/v2", "key",
		client.HTTPClient(&http.Client{Transport: noRequest{`{"data": [`}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for name, seq := range map[string]func(yield func(error) bool){
		"All": func(yield func(error) bool) {
			for _, err := range client.All[client.ClientRecord](ctx, api.Raw.ListClients, nil) {
				if !yield(err) {
					return
				}
			}
		},
		"Feed": func(yield func(error) bool) {
			for _, err := range api.NewFeed("", nil).Changes(ctx) {
				if !yield(err) {
					return
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			var last error
			for err := range seq {
				last = err
			}
			if last == nil || !strings.Contains(last.Error(), "list page") {
				t.Fatalf("err = %v, want the page's decoding error", last)
			}
		})
	}
}

// TestBindPagesAListWithAPathArgument: All takes a list method with a path
// argument (an endpoint's deliveries) through Bind, and pages it to the end
// on that path; until 2.11.3 such a method did not fit All.
func TestBindPagesAListWithAPathArgument(t *testing.T) {
	const endpoint = "0192f3a1-0000-7000-8000-0000000000e1"
	delivery := func(n int) string {
		return fmt.Sprintf(`{"id":"0192f3a1-0000-7000-8000-00000000000%d","endpoint_id":"%s","change_id":"0192f3a1-0000-7000-8000-0000000000c%d",`+
			`"type":"client.created","status":"succeeded","attempt_count":1,"next_attempt_at":null,`+
			`"created_at":"2026-12-01T00:00:00Z","updated_at":"2026-12-01T00:00:00Z","attempts":[]}`, n, endpoint, n)
	}
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.Path+"?"+r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("cursor") == "" {
			fmt.Fprintf(w, `{"data":[%s],"pagination":{"next_cursor":"p2","has_more":true}}`, delivery(1))
			return
		}
		fmt.Fprintf(w, `{"data":[%s],"pagination":{"next_cursor":null,"has_more":false}}`, delivery(2))
	}))
	defer srv.Close()
	api, err := client.New(srv.URL+"/api/v2", "key")
	if err != nil {
		t.Fatal(err)
	}
	id, err := uuid.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for d, err := range client.All[client.WebhookDelivery](context.Background(), client.Bind(api.Raw.ListWebhookDeliveries, id), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.Id.String()[len(d.Id.String())-1:])
	}
	want := "/api/v2/webhook_endpoints/" + endpoint + "/deliveries"
	if strings.Join(got, ",") != "1,2" || len(paths) != 2 || !strings.HasPrefix(paths[0], want) || paths[1] != want+"?cursor=p2" {
		t.Fatalf("deliveries %v from %v; want 1 and 2 from %s, the second page by its cursor", got, paths, want)
	}
}

// TestARequestEditorsUserAgentWins: the transport's User-Agent (the
// default, or the UserAgent option's) goes on a request that has none; one
// a request editor set is sent as it is (until 2.11.3 the transport
// replaced it).
func TestARequestEditorsUserAgentWins(t *testing.T) {
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent = append(sent, r.Header.Get("User-Agent"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[],"pagination":{"next_cursor":null,"has_more":false}}`)
	}))
	defer srv.Close()
	editor := func(_ context.Context, req *http.Request) error {
		req.Header.Set("User-Agent", "planner/3.1")
		return nil
	}
	for _, opts := range [][]client.Option{nil, {client.UserAgent("planner-sdk/1")}} {
		api, err := client.New(srv.URL+"/api/v2", "key", opts...)
		if err != nil {
			t.Fatal(err)
		}
		for _, editors := range [][]client.RequestEditorFn{nil, {editor}} {
			res, err := api.Raw.ListClients(context.Background(), nil, editors...)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
		}
	}
	if got := strings.Join(sent, ","); got != "eventapi-go-sdk,planner/3.1,planner-sdk/1,planner/3.1" {
		t.Fatalf("User-Agent sent: %s; want the default, the editor's, the option's, the editor's", got)
	}
}

// TestAllReportsWhereToResume: with OnCursor, All hands out each page's
// next_cursor once every record of the page has been yielded, and an All
// started from it goes on with the next page: a copy that stopped on an
// error, or was stopped mid-page, resumes without starting over (before,
// the cursor All reached was never exposed).
func TestAllReportsWhereToResume(t *testing.T) {
	pages := map[string]string{ // cursor → page
		"":   `{"data":[{"id":"1"},{"id":"2"}],"pagination":{"has_more":true,"next_cursor":"c1"}}`,
		"c1": `{"data":[{"id":"3"},{"id":"4"}],"pagination":{"has_more":true,"next_cursor":"c2"}}`,
		"c2": `{"data":[{"id":"5"}],"pagination":{"has_more":false,"next_cursor":null}}`,
	}
	failAt := "none"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.URL.Query().Get("cursor")
		w.Header().Set("Content-Type", "application/json")
		if c == failAt {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":"service_unavailable","message":"down","details":null,"request_id":"r"}}`)
			return
		}
		_, _ = io.WriteString(w, pages[c])
	}))
	defer srv.Close()
	api, err := client.New(srv.URL+"/api/v2", "key", client.NoRetries())
	if err != nil {
		t.Fatal(err)
	}
	type rec struct{ ID string }
	ctx := context.Background()
	// run lists from cursor (nil: the start) and records what it saw, the
	// cursors handed out as "@cursor", breaking after the record stop.
	run := func(cursor *string, stop string) (seen []string, saved string, err error) {
		for r, err := range client.All[rec](ctx, api.Raw.ListVehicles, &client.ListVehiclesParams{Cursor: cursor},
			client.OnCursor(func(c string) { seen, saved = append(seen, "@"+c), c })) {
			if err != nil {
				return seen, saved, err
			}
			seen = append(seen, r.ID)
			if r.ID == stop {
				break
			}
		}
		return seen, saved, nil
	}
	seen, _, err := run(nil, "")
	if got := strings.Join(seen, " "); err != nil || got != "1 2 @c1 3 4 @c2 5" {
		t.Fatalf("whole list: %q, %v; want each cursor after its page's records, none after the last", got, err)
	}
	// Stopped mid-page: the cursor saved is the one before that page, and
	// the resumed copy sees the page again, then the rest.
	seen, saved, err := run(nil, "3")
	if got := strings.Join(seen, " "); err != nil || got != "1 2 @c1 3" || saved != "c1" {
		t.Fatalf("stopped at 3: %q, saved %q, %v", got, saved, err)
	}
	seen, _, err = run(&saved, "")
	if got := strings.Join(seen, " "); err != nil || got != "3 4 @c2 5" {
		t.Fatalf("resumed from %q: %q, %v", saved, got, err)
	}
	// Stopped by an error on the third page: resumed from the second's cursor.
	failAt = "c2"
	seen, saved, err = run(nil, "")
	if got := strings.Join(seen, " "); client.CodeOf(err) != "service_unavailable" || got != "1 2 @c1 3 4 @c2" || saved != "c2" {
		t.Fatalf("failed on the last page: %q, saved %q, %v", got, saved, err)
	}
	failAt = "none"
	seen, _, err = run(&saved, "")
	if got := strings.Join(seen, " "); err != nil || got != "5" {
		t.Fatalf("resumed from %q: %q, %v", saved, got, err)
	}
}
