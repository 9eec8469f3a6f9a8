package server

import (
	"bytes"
	"iter"
	"strings"

	"github.com/valyala/fasthttp"
)

// headerLines yields each line of a raw header block (fasthttp's
// RawHeaders), without its line end.
func headerLines(raw []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(raw) > 0 {
			line := raw
			if i := bytes.IndexByte(raw, '\n'); i >= 0 {
				line, raw = raw[:i], raw[i+1:]
			} else {
				raw = nil
			}
			if !yield(bytes.TrimRight(line, "\r")) {
				return
			}
		}
	}
}

// bodyHeaders reads every Content-Type and Content-Encoding line of a raw
// header block: how many Content-Type lines it has, and whether any coding
// any Content-Encoding line names is other than identity. fasthttp keeps
// the last line of each, and Fiber inflates a body by the last coding, so
// a check of one line alone would let "identity" then "gzip" through.
func bodyHeaders(raw []byte) (types int, encoded bool) {
	for line := range headerLines(raw) {
		colon := bytes.IndexByte(line, ':')
		if colon != len("Content-Type") && colon != len("Content-Encoding") {
			continue
		}
		name, value := line[:colon], line[colon+1:]
		switch {
		case bytes.EqualFold(name, []byte("Content-Type")):
			types++
		case bytes.EqualFold(name, []byte("Content-Encoding")):
			for coding := range bytes.SplitSeq(value, []byte(",")) {
				if !identity(coding) {
					encoded = true
				}
			}
		}
	}
	return types, encoded
}

// identity reports whether a content coding leaves a body as sent: empty
// or "identity". Any other coding is refused, not decoded: Fiber would
// inflate a gzip or deflate body with no bound, so that 150 KB on the wire,
// under rest.BodyLimit, became 150 MiB in memory; and an unknown coding would be
// read as if it were none. docs/decisions.md.
func identity(coding []byte) bool {
	coding = bytes.TrimSpace(coding)
	return len(coding) == 0 || bytes.EqualFold(coding, []byte("identity"))
}

// settleExpectation adjusts a request's "Expect: 100-continue" before
// fasthttp reads the body, which it does by the exact lower-case value
// alone: the value is case-insensitive (RFC 9110 §10.1.1), so another case
// is written in lower case (a client waited for a 100 that never came); an
// HTTP/1.0 request's expectation is dropped, as that section asks; and so
// is one whose Content-Length is over limit, which is then refused at once
// from its headers (413) instead of after a "100 Continue" inviting the
// upload.
func settleExpectation(h *fasthttp.RequestHeader, limit int) {
	v := h.Peek(fasthttp.HeaderExpect)
	if len(v) == 0 || !bytes.EqualFold(bytes.TrimSpace(v), []byte("100-continue")) {
		return
	}
	if !h.IsHTTP11() || limit > 0 && h.ContentLength() > limit {
		h.Del(fasthttp.HeaderExpect)
		return
	}
	h.Set(fasthttp.HeaderExpect, "100-continue")
}

// validHost reports whether a Host value has the form RFC 9112 §3.2 asks:
// a registered name or IPv4 address (RFC 3986's unreserved characters,
// sub-delims and %HH escapes) or a bracketed IP literal, then an optional
// ':' and port digits; empty is allowed (a target without an authority).
// fasthttp builds the request's URI from the Host and the target, and a
// Host it cannot parse (a '/', '?', '#' or '@', a port that is not
// digits, an unclosed bracket, a bad escape) left the path empty or
// changed, so that every route answered 404.
func validHost(v []byte) bool {
	host, port := v, []byte(nil)
	if len(v) > 0 && v[0] == '[' {
		end := bytes.IndexByte(v, ']')
		if end < 0 || !literalChars(v[1:end]) {
			return false
		}
		host, port = v[:end+1], v[end+1:]
	} else if i := bytes.IndexByte(v, ':'); i >= 0 {
		host, port = v[:i], v[i:]
	}
	if len(port) > 0 {
		if port[0] != ':' || !digits(port[1:]) {
			return false
		}
	}
	if len(host) > 0 && host[0] == '[' {
		return true
	}
	return regNameChars(host)
}

// regNameChars reports whether s is a reg-name or IPv4 address: unreserved
// characters, sub-delims and %HH escapes of a non-ASCII byte or of '%'
// (fasthttp, as net/url, decodes no other escape in a host).
func regNameChars(s []byte) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case bytes.IndexByte([]byte("-._~!$&'()*+,;="), c) >= 0:
		case c == '%' && i+2 < len(s) && hex(s[i+1]) && hex(s[i+2]) &&
			(s[i+1] >= '8' || s[i+1] == '2' && s[i+2] == '5'):
			i += 2
		default:
			return false
		}
	}
	return true
}

// literalChars reports whether s can be the inside of a bracketed IP
// literal: hex digits, ':' and '.' (an IPv4 tail). A zone (RFC 6874) or an
// IPvFuture literal is refused: no client of this API sends one.
func literalChars(s []byte) bool {
	for _, c := range s {
		if !hex(c) && c != ':' && c != '.' {
			return false
		}
	}
	return len(s) > 0
}

func digits(s []byte) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// mergedTrailer reports whether fasthttp merged fields of a chunked body's
// trailer section into h's fields, as it does with every field it does not
// forbid: some name then occurs more often in h than in the header section
// as received. RFC 9110 §6.5.1 forbids such a merge unless the field's
// definition allows it, and none the service reads does: a trailer
// Idempotency-Key deduplicated a request a gateway saw unkeyed, and an
// X-Forwarded-For trailer stood to the right of a trusted proxy's own
// entry. Host and Connection are left out, since fasthttp makes them up
// when the request line or HTTP/1.0 implies them.
func mergedTrailer(h *fasthttp.RequestHeader) bool {
	if h.ContentLength() != -1 { // only a chunked body has a trailer section
		return false
	}
	received := map[string]int{}
	for line := range headerLines(h.RawHeaders()) {
		if name, _, ok := bytes.Cut(line, []byte(":")); ok {
			received[strings.ToLower(string(bytes.TrimSpace(name)))]++
		}
	}
	merged := false
	h.VisitAll(func(key, _ []byte) {
		name := strings.ToLower(string(key))
		if name == "host" || name == "connection" {
			return
		}
		received[name]--
		merged = merged || received[name] < 0
	})
	return merged
}
