package rest

import "testing"

func TestLoneSurrogate(t *testing.T) {
	tests := []struct {
		body string
		lone bool
	}{
		{`{"name":"plain"}`, false},
		{`{"name":"pair \ud83d\ude00"}`, false},
		{`{"name":"pair \uD83D\uDE00 upper case"}`, false},
		{`{"name":"bmp \u00e9 \u200b \uffff"}`, false},
		{`{"name":"escaped backslash \\ud800"}`, false},
		{`{"name":"quote \" then \ud83d\ude00"}`, false},
		{`{"name":"x\ud800y"}`, true},
		{`{"name":"x\ud800"}`, true},
		{`{"name":"low first \ude00\ud83d"}`, true},
		{`{"name":"high then high \ud83d\ud83d"}`, true},
		{`{"name":"high then letter \ud83d\u0041"}`, true},
		{`{"a":"\ud83d\ude00","b":"\udfff"}`, true},
		{`{"name":"\\\ud800"}`, true},
	}
	for _, tt := range tests {
		if got := loneSurrogate([]byte(tt.body)); got != tt.lone {
			t.Errorf("loneSurrogate(%s) = %v, want %v", tt.body, got, tt.lone)
		}
	}
}

func TestBlank(t *testing.T) {
	tests := []struct {
		s     string
		blank bool
	}{
		{"", true},
		{"   ", true},
		{"\u00a0\u3000", true},
		{"\u200b", true},
		{"\ufeff\u2060", true},
		{"\u200b \u200d", true},
		{"a", false},
		{"\u200ba", false},
		{"\U0001F600", false},
		{"\u05d0", false},
		// Default_Ignorable_Code_Point beyond Cf, and the Braille blank.
		{"\u3164", true},               // Hangul filler
		{"\u3164\u3164", true},         // two of them
		{"\u115f\u1160", true},         // Hangul choseong and jungseong fillers
		{"\uffa0", true},               // halfwidth Hangul filler
		{"\u034f", true},               // combining grapheme joiner
		{"\ufe0f\ufe00", true},         // variation selectors
		{"\U000E0100\U000E01EF", true}, // ideographic variation selectors
		{"\u180b\u180f", true},         // Mongolian free variation selectors
		{"\u17b4", true},               // Khmer inherent vowel
		{"\u2800", true},               // Braille blank
		{"\u2800 \u3164\u200b", true},  // a mix
		{"\U000E0020\U000E007F", true}, // tags alone
		{"\u2066\u2069", true},         // bidi isolates alone (Cf)
		{"\ufe0f\u2764", false},        // a heart after a selector
		{"\u3164a", false},             // visible after a filler
		{"\u2764\ufe0f", false},        // an emoji heart
		{"\u0301", false},              // a combining accent shows
		{"\u2801", false},              // a Braille pattern with a dot
		{"\u1100\u1160", false},        // a syllable of a consonant alone
		{"\u0007", false},              // a control character is refused, not blank
	}
	for _, tt := range tests {
		if got := blank(tt.s); got != tt.blank {
			t.Errorf("blank(%q) = %v, want %v", tt.s, got, tt.blank)
		}
	}
}

func TestTrimText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Truss  ", "Truss"},
		{"\ufeffTruss", "Truss"},
		{"Truss\u200b", "Truss"},
		{"\u2060\u200c Truss \u200d\u00ad", "Truss"},
		{"Tr\u200buss", "Tr\u200buss"}, // inside: kept
		{"\u200fשלום", "\u200fשלום"},   // a bidi mark decides the direction: kept
		{"👩\u200d💻", "👩\u200d💻"},       // a joiner inside an emoji: kept
		{"\u200b\u200b", ""},
		// Every Default_Ignorable_Code_Point and the Braille blank, at
		// either end.
		{"\u3164Truss", "Truss"},
		{"Truss\u3164\uffa0", "Truss"},
		{"\u115f\u1160Truss\u115f", "Truss"},
		{"\u034fTruss\u2800", "Truss"},
		{"\u2800 \ufe0fTruss", "Truss"},
		{"\U000E0100Truss\U000E0001", "Truss"},
		{"Tr\u3164uss", "Tr\u3164uss"}, // inside: kept
		// A variation selector, a mark or a tag belonging to the last
		// visible character stays; what follows it goes.
		{"Stage \u2764\ufe0f", "Stage \u2764\ufe0f"},
		{"Stage \u2764\ufe0f\u200b ", "Stage \u2764\ufe0f"},
		{"\u2764\ufe0f Stage", "\u2764\ufe0f Stage"},
		{"Stage \ufe0f", "Stage"},                // after a space: belongs to nothing
		{"\u845b\U000E0100", "\u845b\U000E0100"}, // an ideographic variant
		{"A\u034f", "A\u034f"},
		{"Scotland \U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F",
			"Scotland \U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"},
		{"Truss\U000E0067\U000E007F", "Truss"},   // tags after no flag
		{"Old \u1100\u1160", "Old \u1100\u1160"}, // a syllable of a consonant alone
		{"Truss\u1160", "Truss"},
		{"Truss\u200d", "Truss"},   // a trailing joiner joins nothing
		{"\u200f\u3164", "\u200f"}, // a bidi mark stays
		{"\U0001F469\u200d\U0001F4BB\u200d", "\U0001F469\u200d\U0001F4BB"},
		{"\u0600\u0661\u0662", "\u0600\u0661\u0662"}, // an Arabic number sign is visible
	} {
		if got := trimText(c.in); got != c.want {
			t.Errorf("trimText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCanonicalText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"ASCII as it is", "Truss", "Truss"},
		{"a combining accent composed", "Cafe\u0301", "Caf\u00e9"},
		{"already composed", "Caf\u00e9", "Caf\u00e9"},
		{"trimmed, then composed", "\ufeff Cafe\u0301 ", "Caf\u00e9"},
		{"Hangul jamo composed", "\u1100\u1161", "\uac00"},
		{"an Angstrom sign is the letter", "\u212b", "\u00c5"},
		{"compatibility forms kept (NFC, not NFKC)", "\ufb01le", "\ufb01le"},
		{"full-width kept", "\uff21", "\uff21"},
		{"a joiner inside an emoji kept", "👩\u200d💻", "👩\u200d💻"},
	} {
		if got := canonicalText(c.in); got != c.want {
			t.Errorf("%s: canonicalText(%+q) = %+q, want %+q", c.name, c.in, got, c.want)
		}
	}
}

// TestIgnorable: the derived Default_Ignorable_Code_Point agrees with
// Unicode's list (DerivedCoreProperties.txt) at each part of its
// derivation and at the code points the exceptions take out.
func TestIgnorable(t *testing.T) {
	for _, c := range []struct {
		r    rune
		want bool
	}{
		{'\u00ad', true},      // soft hyphen (Cf)
		{'\u034f', true},      // combining grapheme joiner (Other_Default_Ignorable)
		{'\u061c', true},      // Arabic letter mark (Cf)
		{'\u115f', true},      // Hangul choseong filler
		{'\u1160', true},      // Hangul jungseong filler
		{'\u17b4', true},      // Khmer vowel inherent AQ
		{'\u180b', true},      // Mongolian free variation selector (Variation_Selector)
		{'\u180e', true},      // Mongolian vowel separator (Cf)
		{'\u200b', true},      // zero-width space
		{'\u2065', true},      // reserved, Other_Default_Ignorable
		{'\u3164', true},      // Hangul filler
		{'\ufe00', true},      // variation selector 1
		{'\ufe0f', true},      // variation selector 16
		{'\ufeff', true},      // byte order mark
		{'\uffa0', true},      // halfwidth Hangul filler
		{'\U0001BCA0', true},  // shorthand format letter overlap (Cf)
		{'\U0001D173', true},  // musical symbol begin beam (Cf)
		{'\U000E0001', true},  // language tag
		{'\U000E0100', true},  // variation selector 17
		{'\U000E01EF', true},  // variation selector 256
		{'\U000E0FFF', true},  // reserved, Other_Default_Ignorable
		{' ', false},          // white space is not ignorable
		{'\u0600', false},     // Arabic number sign: a prepended concatenation mark
		{'\u06dd', false},     // Arabic end of ayah: likewise
		{'\U000110BD', false}, // Kaithi number sign: likewise
		{'\ufff9', false},     // interlinear annotation anchor
		{'\ufffb', false},     // interlinear annotation terminator
		{'\U00013430', false}, // Egyptian hieroglyph vertical joiner
		{'\u2800', false},     // Braille blank: a letter (invisible adds it)
		{'a', false},
		{'\u0301', false}, // a combining accent
	} {
		if got := ignorable(c.r); got != c.want {
			t.Errorf("ignorable(%U) = %v, want %v", c.r, got, c.want)
		}
	}
}
