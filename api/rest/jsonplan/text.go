package jsonplan

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// A plan's strings and uuids, written as encoding/json writes them.

const hexDigits = "0123456789abcdef"

// hexPairs holds the two hex digits of every byte.
var hexPairs = func() (t [256][2]byte) {
	for i := range t {
		t[i] = [2]byte{hexDigits[i>>4], hexDigits[i&0xf]}
	}
	return t
}()

// appendUUID appends u quoted, as its MarshalText writes it.
func appendUUID(b []byte, u *uuid.UUID) []byte {
	n := len(b)
	b = slices.Grow(b, 38)[:n+38]
	s := (*[38]byte)(b[n:])
	s[0], s[9], s[14], s[19], s[24], s[37] = '"', '-', '-', '-', '-', '"'
	*(*[2]byte)(s[1:]) = hexPairs[u[0]]
	*(*[2]byte)(s[3:]) = hexPairs[u[1]]
	*(*[2]byte)(s[5:]) = hexPairs[u[2]]
	*(*[2]byte)(s[7:]) = hexPairs[u[3]]
	*(*[2]byte)(s[10:]) = hexPairs[u[4]]
	*(*[2]byte)(s[12:]) = hexPairs[u[5]]
	*(*[2]byte)(s[15:]) = hexPairs[u[6]]
	*(*[2]byte)(s[17:]) = hexPairs[u[7]]
	*(*[2]byte)(s[20:]) = hexPairs[u[8]]
	*(*[2]byte)(s[22:]) = hexPairs[u[9]]
	*(*[2]byte)(s[25:]) = hexPairs[u[10]]
	*(*[2]byte)(s[27:]) = hexPairs[u[11]]
	*(*[2]byte)(s[29:]) = hexPairs[u[12]]
	*(*[2]byte)(s[31:]) = hexPairs[u[13]]
	*(*[2]byte)(s[33:]) = hexPairs[u[14]]
	*(*[2]byte)(s[35:]) = hexPairs[u[15]]
	return b
}

// plainByte marks the ASCII bytes a JSON string carries as they are, with
// encoding/json's HTML-safe escaping: not the controls, '"', '\\', '<', '>'
// and '&'.
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, c)
	}
	return t
}()

// appendString appends s quoted as encoding/json writes it: HTML-safe,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
