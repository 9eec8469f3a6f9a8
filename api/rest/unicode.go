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
// surrogate escape, each of which the decoder would turn into U+FFFD, no
// name given twice in one object, of which it would keep one value, and no
// object of more than MaxMembers members, which ParseObject refuses before
// reading it (a 1 MiB body of 110,000 names cost the fingerprint 0.46 s and
// 44 MB).
// ParseObject refuses the other bodies as malformed, and the
// Idempotency-Key fingerprint takes them as their bytes (idempotency.Canonical),
// so that none is the same request as the valid body it would decode to.
func DecodesFaithfully(body []byte) bool {
	// An object of more than MaxMembers is refused by ParseObject; it is
	// judged before repeatedName, which keeps every name of each object.
	if !json.Valid(body) || !utf8.Valid(body) || loneSurrogate(body) || objectOver(body, MaxMembers) {
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

// blank reports whether s shows nothing: it holds only characters that are
// invisible on their own (invisible). Such a value is empty to whoever
// reads it.
func blank(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !invisible(r) }) < 0
}

// brailleBlank (U+2800) is a Braille pattern with no dots: a letter, not a
// space, that shows as a blank cell.
const brailleBlank = '\u2800'

// invisible reports whether r shows nothing on its own: white space, a
// format character (Unicode category Cf: zero-width space, word joiner,
// byte order mark, bidi marks, tags), a Default_Ignorable_Code_Point
// (ignorable: also the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0,
// the combining grapheme joiner U+034F and the variation selectors) or the
// Braille blank. Every Cf counts, the few Unicode keeps out of
// Default_Ignorable (prepended concatenation marks such as U+0600) too,
// since the rule names the whole category: a value of only them is empty
// (docs/decisions.md, "Strings are trimmed").
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || ignorable(r) || r == brailleBlank
}

// ignorable reports whether r has the Unicode property
// Default_Ignorable_Code_Point, which Go's unicode package has no table
// for. It is derived as Unicode derives it (DerivedCoreProperties.txt;
// UAX #44, section 5.7.5):
//
//	Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
//	- White_Space - FFF9..FFFB (interlinear annotation)
//	- 13430..1343F (Egyptian hieroglyph format controls)
//	- Prepended_Concatenation_Mark
//
// from the tables of unicode.Version.
func ignorable(r rune) bool {
	switch {
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r), unicode.Is(unicode.Variation_Selector, r):
		return true
	case !unicode.Is(unicode.Cf, r), unicode.Is(unicode.White_Space, r),
		r >= 0xfff9 && r <= 0xfffb, r >= 0x13430 && r <= 0x1343f,
		unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return true
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
// meaning at either end of a value: every Default_Ignorable_Code_Point
// (ignorable: zero-width space, zero-width (non-)joiner, word joiner, byte
// order mark, soft hyphen, the Hangul fillers, variation selectors...) and
// the Braille blank. A name sent as "\ufeffTruss", "Truss\u200b" or
// "\u3164Truss" is "Truss", so it clashes with the category it copies and
// is found by a filter on it. Two kinds are kept:
//   - bidi marks and controls (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069): at the start of a right-to-left text they decide how
//     it is shown;
//   - at the end, the ones that belong to the last visible character
//     (extends): the U+FE0F of "Stage ❤\ufe0f" makes the heart an emoji,
//     and the tags after 🏴 make it a flag. A variation selector after a
//     letter that has no variant shows nothing, yet stays: telling the
//     two apart needs Unicode's lists of variation sequences.
//
// Inside a value nothing is trimmed.
func trimText(s string) string {
	s = strings.TrimLeftFunc(s, trimmable)
	end := len(s)
	for end > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:end])
		if !trimmable(r) {
			break
		}
		end -= n
	}
	base, _ := utf8.DecodeLastRuneInString(s[:end])
	if end == 0 || invisible(base) {
		return s[:end]
	}
	for prev := base; end < len(s); {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !extends(prev, r) {
			break
		}
		prev, end = r, end+n
	}
	return s[:end]
}

// trimmable reports whether trimText takes r off either end of a value.
func trimmable(r rune) bool {
	return (unicode.IsSpace(r) || ignorable(r) || r == brailleBlank) && !unicode.Is(unicode.Bidi_Control, r)
}

// extends reports whether the invisible r, following prev, belongs to the
// character before it rather than standing alone: a variation selector,
// the combining grapheme joiner or another nonspacing mark; a tag
// (U+E0020–U+E007F) after the black flag U+1F3F4 or another tag, the
// letters of a flag such as Scotland's (Unicode Technical Standard #51,
// emoji tag sequences); or the Hangul jungseong filler U+1160 after a
// leading consonant, with which it writes a syllable of that consonant
// alone (The Unicode Standard, section 3.12).
func extends(prev, r rune) bool {
	isTag := func(r rune) bool { return r >= 0xe0020 && r <= 0xe007f }
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me):
		return true
	case isTag(r):
		return prev == 0x1f3f4 || isTag(prev)
	case r == '\u1160':
		return prev >= '\u1100' && prev <= '\u115e' || prev >= '\ua960' && prev <= '\ua97c'
	}
	return false
}
