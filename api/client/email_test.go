package client_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/client"
)

// TestEmailIsSentAsWritten: an email goes out as the caller wrote it, and
// the server judges it: one it refuses comes back as its 422 naming the
// field, not as a local marshalling error or a silently rewritten address.
func TestEmailIsSentAsWritten(t *testing.T) {
	api, ctx := sdkFor(t, "Email")
	for _, bad := range []string{"Jane Doe <jane@example.com>", "not an email"} {
		_, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: "Jane", Email: &bad})
		if client.CodeOf(err) != "validation_error" {
			t.Errorf("email %q: err = %v, want the server's validation_error", bad, err)
		}
	}
	good := "jane@example.com"
	res, err := api.CreateClientWithResponse(ctx, nil, client.ClientCreate{Name: "Jane", Email: &good})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.JSON201.ClientRecord.Email; got == nil || *got != good {
		t.Errorf("stored email %v, want %q", got, good)
	}
}
