// Package seal encrypts small secrets kept at rest with AES-256-GCM: webhook
// signing secrets (docs/webhooks.md, "Secrets") and the responses that
// Idempotency-Key records keep for replay (docs/decisions.md, "Edge layer
// (rate limits, Idempotency-Key)"). The key is a service secret in the database, so every pod
// shares it without configuration.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// KeySize is the length of a Sealer's key in bytes.
const KeySize = 32

// Sealer seals and opens values under one key. A sealed value is the 12-byte
// nonce followed by the ciphertext and tag; the additional data binds it to
// its owner (an endpoint, an idempotency key), so a sealed value copied onto
// another owner's row does not open.
type Sealer struct{ aead cipher.AEAD }

// New returns a Sealer with a KeySize-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, errors.New("seal: the key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain, bound to ad.
func (s *Sealer) Seal(plain, ad []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plain, ad), nil
}

// Open decrypts a value Seal returned for the same ad.
func (s *Sealer) Open(sealed, ad []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, errors.New("seal: sealed value too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], ad)
}
