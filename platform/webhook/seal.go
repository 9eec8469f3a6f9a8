package webhook

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// Sealer encrypts signing secrets at rest with AES-256-GCM. A sealed value
// is the 12-byte nonce followed by the ciphertext and tag; the additional
// data binds it to its endpoint, so a sealed secret copied onto another
// endpoint's row does not open.
type Sealer struct{ aead cipher.AEAD }

// NewSealer returns a Sealer with a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, errors.New("webhook: the secret key must be 32 bytes")
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

// Seal encrypts plain, bound to ad (the endpoint's id).
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
		return nil, errors.New("webhook: sealed secret too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], ad)
}
