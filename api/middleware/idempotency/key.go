package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// Header is the request header carrying the key.
const Header = rest.HeaderIdempotencyKey

// MaxKeyLen is the longest accepted key.
const MaxKeyLen = 255

// ErrInvalidKey is the 422 for a key that is empty, too long or not printable ASCII.
var ErrInvalidKey = errs.InvalidField(Header, "must be 1 to "+strconv.Itoa(MaxKeyLen)+" printable ASCII characters (0x20 to 0x7E)")

// errTwoKeys is the 422 for a request carrying the header more than once:
// which key it meant is not knowable.
var errTwoKeys = errs.InvalidField(Header, "must be sent once")

// keyOf returns the request's Idempotency-Key and whether the header was sent
// at all (an empty header is sent, and invalid).
func keyOf(c *fiber.Ctx) (string, bool) {
	if v := c.Request().Header.Peek(Header); len(v) > 0 {
		return string(v), true
	}
	sent := false
	c.Request().Header.VisitAll(func(k, _ []byte) {
		sent = sent || strings.EqualFold(string(k), Header)
	})
	return "", sent
}

// ValidKey reports whether k is 1 to MaxKeyLen printable ASCII characters
// (space through tilde).
func ValidKey(k string) bool {
	if len(k) == 0 || len(k) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Fingerprint identifies a request: SHA-256 over the method, the path and
// the canonical body. A JSON body is canonical when re-encoded with sorted
// object keys and no insignificant whitespace (numbers keep their literal
// text); a body that is not JSON counts as its raw bytes. The path counts
// lower-cased: the routes a keyed request reaches match their fixed
// segments exactly (docs/decisions.md, "Paths are exact"), so its case can differ only
// in an id, and an id in upper case names the same record.
//
// A DELETE's body does not count: the service does not read it
// (docs/decisions.md, "Requests that take no body"), and a retry whose
// body an intermediary dropped is the same deletion.
func Fingerprint(method, path string, body []byte) []byte {
	if !bodyCounts(method) {
		body = nil
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(strings.ToLower(path)))
	h.Write([]byte{0})
	h.Write(Canonical(body))
	return h.Sum(nil)
}

// sameAsNoBody returns nil for a body that is the empty object (`{}`,
// however spaced), and body itself otherwise: on a route that reads an
// absent body as `{}` (Config.OptionalBody) the two are one request.
func sameAsNoBody(body []byte) []byte {
	if bytes.Equal(Canonical(body), []byte("{}")) {
		return nil
	}
	return body
}

// bodyCounts reports whether the body of a keyed request of method is part
// of its fingerprint: a POST's or PATCH's is, a DELETE's is not read. (GET,
// HEAD and the other methods are never keyed.)
func bodyCounts(method string) bool { return method != fiber.MethodDelete }

// testFingerprint marks the fingerprint of a test key's request: it
// follows the key's mode (docs/decisions.md, "A test key's request is
// another request than a live key's"). A test key of an organization
// without a sandbox writes into the organization itself (marked demo),
// sharing its Idempotency-Keys with the live keys: the same key and body
// sent by a live key is another request (409 mismatch), not a replay of the
// demo write.
func testFingerprint(fp []byte) []byte {
	h := sha256.New()
	h.Write(fp)
	h.Write([]byte("\x00test"))
	return h.Sum(nil)
}

// Canonical returns the canonical form of a JSON body, or body itself when
// the decoder would not read it faithfully (rest.DecodesFaithfully: the
// bodies rest.ParseObject refuses as malformed): such a body is only ever
// the same request as the same bytes.
func Canonical(body []byte) []byte {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if !rest.DecodesFaithfully(body) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return body
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return body
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}
