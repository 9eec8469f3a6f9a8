package rest

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DecodesFaithfully reports whether body is JSON that encoding/json reads
// without changing any text: valid JSON in valid UTF-8 with no lone
// surrogate escape, each of which the decoder would turn into U+FFFD, and
// no name given twice in one object, of which it would keep one value.
// ParseObject refuses the other bodies as malformed, and the
// Idempotency-Key fingerprint takes them as their bytes (idempotency.Canonical),
// so that none is the same request as the valid body it would decode to.
func DecodesFaithfully(body []byte) bool {
	if !json.Valid(body) || !utf8.Valid(body) || loneSurrogate(body) {
		return false
	}
	_, repeated := repeatedName(body)
	return !repeated
}

// loneSurrogate reports whether a JSON text holds a \u escape of a UTF-16
// surrogate that is not part of a pair (\ud800 alone, or a low surrogate
// first). Go's decoder turns one into U+FFFD, which would store a mangled
// value, like invalid UTF-8 bytes (RFC 8259, section 8.2). A backslash
// outside a string is not valid JSON, so every backslash here starts an
// escape.
func loneSurrogate(body []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			return false
		}
		i += j
		v, ok := escapedUnit(body, i)
		switch {
		case !ok: // \" \\ \n ...: two bytes
			i += 2
		case v >= 0xdc00 && v <= 0xdfff: // a low surrogate with no high one before it
			return true
		case v >= 0xd800 && v <= 0xdbff:
			low, ok := escapedUnit(body, i+6)
			if !ok || low < 0xdc00 || low > 0xdfff {
				return true
			}
			i += 12
		default:
			i += 6
		}
	}
}

// escapedUnit reads the \uXXXX escape at body[i:], if there is one.
func escapedUnit(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	var v rune
	for _, c := range body[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// blank reports whether s shows nothing: it holds only white space and
// invisible format characters (zero-width space, word joiner, byte order
// mark: Unicode category Cf). Such a value is empty to whoever reads it.
func blank(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) }) < 0
}

// canonicalText is a string of a request as the service keeps and compares it:
// trimmed (trimText) and in Unicode Normalization Form C, so "Cafe\u0301"
// (an e and a combining acute accent, as macOS keyboards and some
// databases send it) is "Caf\u00e9", the one character most systems send:
// the two look the same and are the same text to a reader, so they are
// one category name, and a filter with either finds both (docs/decisions.md,
// "Strings are trimmed").
func canonicalText(s string) string { return norm.NFC.String(trimText(s)) }

// trimText trims white space and the invisible characters that carry no
// meaning at either end of a value: zero-width space, zero-width
// (non-)joiner, word joiner, byte order mark and soft hyphen. A name sent
// as "\ufeffTruss" or "Truss\u200b" is "Truss", so it clashes with the
// category it copies and is found by a filter on it. Bidi marks and
// controls (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are kept: at the
// start of a right-to-left text they decide how it is shown.
func trimText(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad':
			return true
		}
		return unicode.IsSpace(r)
	})
}
