package apikey

import (
	"strings"
	"testing"
)

func mustGenerate(t testing.TB, m Mode) string {
	t.Helper()
	k, err := Generate(m)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestParse(t *testing.T) {
	live := mustGenerate(t, Live)
	test := mustGenerate(t, Test)
	legacy := mustGenerate(t, Legacy)
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	tests := []struct {
		name string
		raw  string
		want Mode
		ok   bool
	}{
		{"live", live, Live, true},
		{"test", test, Test, true},
		{"legacy", legacy, Legacy, true},
		{"legacy upper hex", "sk_live_" + strings.Repeat("AB", 32), Legacy, true},
		{"empty", "", "", false},
		{"prefix only", "svc_live_", "", false},
		{"bad checksum", flip(live, len(live)-1), "", false},
		{"bad body char flips checksum", flip(live, 12), "", false},
		{"truncated", live[:len(live)-1], "", false},
		{"extended", live + "a", "", false},
		{"non base62", live[:15] + "-" + live[16:], "", false},
		{"unknown prefix", "svc_prod_" + live[9:], "", false},
		{"live body under test prefix", "svc_test_" + live[9:], "", false},
		{"legacy short", "sk_live_" + strings.Repeat("a", 63), "", false},
		{"legacy non hex", "sk_live_" + strings.Repeat("g", 64), "", false},
		{"bearer included", "Bearer " + live, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw)
			if tt.ok != (err == nil) || got != tt.want {
				t.Fatalf("Parse(%q) = %q, %v; want %q ok=%v", tt.raw, got, err, tt.want, tt.ok)
			}
		})
	}
}

func TestGenerateIsRandomAndPrefixed(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		k := mustGenerate(t, Live)
		if seen[k] {
			t.Fatal("duplicate key generated")
		}
		seen[k] = true
		if !strings.HasPrefix(k, "svc_live_") || len(k) != 45 {
			t.Fatalf("bad key %q", k)
		}
	}
	k := mustGenerate(t, Test)
	if p := Prefix(k); len(p) != PrefixLen || p != k[:PrefixLen] {
		t.Fatalf("Prefix(%q) = %q", k, p)
	}
}

func TestHashIsStableAndDistinct(t *testing.T) {
	a, b := mustGenerate(t, Live), mustGenerate(t, Live)
	//lint:ignore SA4000 deliberate: hashing the same key twice must give the same digest (Hash is stable)
	if Hash(a) != Hash(a) || Hash(a) == Hash(b) {
		t.Fatal("hash not stable or collides")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(mustGenerate(f, Live))
	f.Add(mustGenerate(f, Test))
	f.Add(mustGenerate(f, Legacy))
	f.Add("svc_live_")
	f.Add("")
	f.Fuzz(func(t *testing.T, raw string) {
		mode, err := Parse(raw)
		if err != nil {
			return
		}
		if !mode.Valid() {
			t.Fatalf("Parse(%q) accepted with mode %q", raw, mode)
		}
		// A key accepted in a checksummed form must still verify after a
		// round trip through its own checksum.
		if mode != Legacy && checksum(raw[:len(raw)-checkLen]) != raw[len(raw)-checkLen:] {
			t.Fatalf("accepted key with bad checksum: %q", raw)
		}
	})
}
