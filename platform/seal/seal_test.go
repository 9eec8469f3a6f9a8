package seal

import (
	"bytes"
	"testing"
)

func TestSealer(t *testing.T) {
	s, err := New(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(bytes.Repeat([]byte{8}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := s.Seal([]byte("whsec_abc"), []byte("owner-1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("whsec_abc")) {
		t.Fatal("sealed value holds the plain text")
	}
	again, _ := s.Seal([]byte("whsec_abc"), []byte("owner-1"))
	if bytes.Equal(sealed, again) {
		t.Error("two seals of one value are equal: the nonce is not fresh")
	}
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-1] ^= 1
	for _, tc := range []struct {
		name   string
		sealer *Sealer
		value  []byte
		ad     string
		ok     bool
	}{
		{"same key and owner", s, sealed, "owner-1", true},
		{"another owner", s, sealed, "owner-2", false},
		{"another key", other, sealed, "owner-1", false},
		{"tampered", s, tampered, "owner-1", false},
		{"too short", s, sealed[:10], "owner-1", false},
		{"empty", s, nil, "owner-1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.sealer.Open(tc.value, []byte(tc.ad))
			if tc.ok != (err == nil) {
				t.Fatalf("Open error = %v, want ok %v", err, tc.ok)
			}
			if tc.ok && string(got) != "whsec_abc" {
				t.Fatalf("Open = %q", got)
			}
		})
	}
	if _, err := New([]byte("short")); err == nil {
		t.Error("short key accepted")
	}
}
