package isolation_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestEveryGuardIsDocumented: every authenticated v2 route refuses a key
// holding every scope but its documented required ones (x-required-scopes)
// with 403 insufficient_scope naming exactly those, before any lookup or
// validation. The guards and the document state the same sets: the server
// also checks a keyed write against the documented ones before it looks its
// Idempotency-Key up (openapi.Scopes), so a guard that drifted from the
// document would refuse one request and admit its keyed retry, or the
// reverse. TestWriteNeedsRead holds the read scopes of a write
// (x-also-required-scopes) to the document likewise.
func TestEveryGuardIsDocumented(t *testing.T) {
	s := newSuite(t)
	documented := scopesOf(t)
	var checked int
	for _, key := range v2Routes(s.Env) {
		method, path := splitKey(key)
		t.Run(key, func(t *testing.T) {
			doc, ok := documented[key]
			if !ok {
				t.Fatalf("the document has no operation %s", key)
			}
			checked++
			if len(doc.Required) == 0 {
				return // any key (GET /health): nothing to refuse
			}
			res := s.A.WithKey(apikey.Live, allBut(doc.Required)...).Do(method, fill(path, uuid.NewString()), map[string]any{})
			got, _ := res.ErrorDetails()["required"].([]any)
			if res.Status != http.StatusForbidden || res.ErrorCode() != "insufficient_scope" || !sameNames(got, doc.Required) {
				t.Errorf("every scope but %v: %d %s, want 403 insufficient_scope requiring them", doc.Required, res.Status, res.Body)
			}
		})
	}
	if checked < 45 {
		t.Errorf("only %d routes checked", checked)
	}
}
