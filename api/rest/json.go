package rest

import (
	"bytes"
	"encoding/json"

	gojson "github.com/goccy/go-json"
)

// Encode renders a response body. It is goccy/go-json, which writes what
// encoding/json writes, byte for byte (HTML-safe escapes, invalid UTF-8 as
// U+FFFD, float formats, time.Time, Marshalers, omitempty and omitzero), in
// less time and with fewer allocations (docs/architecture.md, "JSON").
// Every response of the test suite is encoded both ways and compared
// (Compared), so a difference fails the tests rather than reach a client.
func Encode(v any) ([]byte, error) { return gojson.Marshal(v) }

// Compared returns an encoder that renders v with Encode and with
// encoding/json, hands any difference to differ, and returns
// encoding/json's bytes.
func Compared(differ func(v any, fast, std []byte)) func(any) ([]byte, error) {
	return func(v any) ([]byte, error) {
		std, err := json.Marshal(v)
		fast, ferr := Encode(v)
		if (err == nil) != (ferr == nil) || !bytes.Equal(std, fast) {
			differ(v, fast, std)
		}
		return std, err
	}
}
