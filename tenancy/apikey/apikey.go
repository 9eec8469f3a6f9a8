// Package apikey defines the API key formats: generation, parsing with
// checksum verification, hashing and the displayable prefix. It has no I/O,
// so a malformed key is refused before anything touches the database.
//
// Forms:
//
//	svc_live_<body><check>   live key
//	svc_test_<body><check>   sandbox (test) key
//	sk_live_<64 hex>         legacy key (no checksum)
//
// body is 30 base62 characters (about 178 random bits); check is the CRC32
// (IEEE) of everything before it, written as 6 base62 characters.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"math/big"
)

// Mode is the kind of key.
type Mode string

// The key modes.
const (
	Live   Mode = "live"
	Test   Mode = "test"
	Legacy Mode = "legacy"
)

// Valid reports whether m is a known mode.
func (m Mode) Valid() bool { return m == Live || m == Test || m == Legacy }

const (
	livePrefix   = "svc_live_"
	testPrefix   = "svc_test_"
	legacyPrefix = "sk_live_"
	bodyLen      = 30
	checkLen     = 6
	legacyHexLen = 64
	// PrefixLen is how many leading characters are shown as the key's prefix.
	PrefixLen = 12
	alphabet  = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// ErrMalformed is returned for any key that does not have a valid form.
var ErrMalformed = errors.New("malformed API key")

// Generate returns a new random key of the given mode.
func Generate(mode Mode) (string, error) {
	switch mode {
	case Live, Test:
		prefix := livePrefix
		if mode == Test {
			prefix = testPrefix
		}
		body := make([]byte, bodyLen)
		max := big.NewInt(int64(len(alphabet)))
		for i := range body {
			n, err := rand.Int(rand.Reader, max)
			if err != nil {
				return "", err
			}
			body[i] = alphabet[n.Int64()]
		}
		s := prefix + string(body)
		return s + checksum(s), nil
	case Legacy:
		var b [legacyHexLen / 2]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		const hex = "0123456789abcdef"
		out := make([]byte, 0, len(legacyPrefix)+legacyHexLen)
		out = append(out, legacyPrefix...)
		for _, c := range b {
			out = append(out, hex[c>>4], hex[c&0xf])
		}
		return string(out), nil
	}
	return "", errors.New("unknown key mode")
}

// Parse checks the form (and checksum) of raw and returns its mode.
func Parse(raw string) (Mode, error) {
	switch {
	case len(raw) == len(livePrefix)+bodyLen+checkLen && raw[:len(livePrefix)] == livePrefix:
		return orMalformed(Live, checkBody(raw))
	case len(raw) == len(testPrefix)+bodyLen+checkLen && raw[:len(testPrefix)] == testPrefix:
		return orMalformed(Test, checkBody(raw))
	case len(raw) == len(legacyPrefix)+legacyHexLen && raw[:len(legacyPrefix)] == legacyPrefix:
		for i := len(legacyPrefix); i < len(raw); i++ {
			if !isHex(raw[i]) {
				return "", ErrMalformed
			}
		}
		return Legacy, nil
	}
	return "", ErrMalformed
}

func orMalformed(m Mode, err error) (Mode, error) {
	if err != nil {
		return "", err
	}
	return m, nil
}

func checkBody(raw string) error {
	const start = len(livePrefix) // same length for both prefixes
	for i := start; i < len(raw); i++ {
		if !isBase62(raw[i]) {
			return ErrMalformed
		}
	}
	split := len(raw) - checkLen
	if checksum(raw[:split]) != raw[split:] {
		return ErrMalformed
	}
	return nil
}

// checksum returns the CRC32 of s as 6 base62 characters (62^6 > 2^32).
func checksum(s string) string {
	v := crc32.ChecksumIEEE([]byte(s))
	var out [checkLen]byte
	for i := checkLen - 1; i >= 0; i-- {
		out[i] = alphabet[v%62]
		v /= 62
	}
	return string(out[:])
}

func isBase62(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Hash is the SHA-256 of the full key; only the hash is stored.
func Hash(raw string) [32]byte { return sha256.Sum256([]byte(raw)) }

// Prefix returns the displayable first characters of a key.
func Prefix(raw string) string {
	if len(raw) <= PrefixLen {
		return raw
	}
	return raw[:PrefixLen]
}
