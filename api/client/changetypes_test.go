package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/client"
)

// TestChangeTypesFilterTheFeed: the typed change types, joined by
// client.ChangeTypes, are a type filter the server takes: a feed of quote
// types gets the quote's changes and not the client's.
func TestChangeTypesFilterTheFeed(t *testing.T) {
	if got := *client.ChangeTypes(client.ChangeTypeQuoteCreated, client.ChangeTypeQuoteApproved); got != "quote.created,quote.approved" {
		t.Fatalf("ChangeTypes = %q", got)
	}
	if got := client.ChangeTypes(); got != nil {
		t.Fatalf("ChangeTypes() = %q, want nil (no filter)", *got)
	}
	env := apitest.New(t)
	org := env.NewOrg("Typed feed")
	api, err := client.New(env.Listen(t)+"/api/v2", org.Key, client.HTTPClient(contractClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: "Not a quote"}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.CreateQuoteWithResponse(ctx, nil, client.QuoteCreate{Title: "Stage package"}); err != nil {
		t.Fatal(err)
	}
	// The feed shows a change once every transaction older than it has
	// ended, on the whole server (docs/changes.md): wait for the quote's,
	// which the client's precedes.
	var got []client.Change
	for deadline := time.Now().Add(30 * time.Second); len(got) == 0 && time.Now().Before(deadline); {
		res, err := api.ListChangesWithResponse(ctx, &client.ListChangesParams{
			Type: client.ChangeTypes(client.ChangeTypeQuoteCreated, client.ChangeTypeQuoteUpdated, client.ChangeTypeQuoteApproved)})
		if err != nil || res.JSON200 == nil {
			t.Fatalf("list changes: %v, %d %s", err, res.StatusCode(), res.Body)
		}
		if got = res.JSON200.Data; len(got) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(got) != 1 || got[0].Type != client.ChangeTypeQuoteCreated {
		t.Fatalf("changes %+v, want the quote's creation alone", got)
	}
}
