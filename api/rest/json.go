package rest

import gojson "github.com/goccy/go-json"

// Encode renders a response body. It is goccy/go-json, which writes what
// encoding/json writes, byte for byte (HTML-safe escapes, invalid UTF-8 as
// U+FFFD, float formats, time.Time, Marshalers, omitempty and omitzero), in
// less time and with fewer allocations (docs/architecture.md, "JSON").
// Every response of the test suite is encoded both ways and compared
// (apitest), so a difference fails the tests rather than reach a client.
func Encode(v any) ([]byte, error) { return gojson.Marshal(v) }
