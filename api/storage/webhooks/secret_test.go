package webhooks

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/seal"
)

// TestSealedSecretOpensForItsEndpointOnly: a secret sealed for one
// endpoint opens for that endpoint, and a sealed secret copied to another
// endpoint's row does not.
func TestSealedSecretOpensForItsEndpointOnly(t *testing.T) {
	s, err := seal.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	id, other := uuid.New(), uuid.New()
	secret, sealed, err := newSealedSecret(s, id)
	if err != nil || secret == "" || bytes.Contains(sealed, []byte(secret)) {
		t.Fatalf("newSealedSecret: %q, %v (sealed holds the secret in the clear: %v)", secret, err, bytes.Contains(sealed, []byte(secret)))
	}
	if got, err := OpenSecret(s, id, sealed); err != nil || got != secret {
		t.Fatalf("OpenSecret for its endpoint: %q, %v; want %q", got, err, secret)
	}
	if got, err := OpenSecret(s, other, sealed); err == nil {
		t.Fatalf("OpenSecret for another endpoint opened it: %q", got)
	}
}
