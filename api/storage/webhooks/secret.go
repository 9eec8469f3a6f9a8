package webhooks

import (
	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/seal"
	"github.com/eventapi/eventapi/platform/webhook"
)

// A signing secret is stored sealed with its endpoint's id as associated
// data, so that a sealed secret copied to another endpoint's row does not
// open. These two functions are the only places that rule is written.

// newSealedSecret makes a signing secret for endpoint id and returns it in
// the clear and sealed by s.
func newSealedSecret(s *seal.Sealer, id uuid.UUID) (secret string, sealed []byte, err error) {
	secret, err = webhook.NewSecret()
	if err != nil {
		return "", nil, err
	}
	sealed, err = s.Seal([]byte(secret), id[:])
	return secret, sealed, err
}

// OpenSecret opens the sealed signing secret of endpoint id.
func OpenSecret(s *seal.Sealer, id uuid.UUID, sealed []byte) (string, error) {
	plain, err := s.Open(sealed, id[:])
	return string(plain), err
}
