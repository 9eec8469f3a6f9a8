package client_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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
