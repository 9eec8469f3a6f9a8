package rest

import "testing"

// TestByteSize: the 413 message states BodyLimit in the unit people
// write it in.
func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{
		1 << 20: "1 MiB", 2 << 20: "2 MiB", 1536 << 10: "1536 KiB", 8 << 10: "8 KiB",
		1000: "1000 bytes", 16: "16 bytes", 0: "0 bytes",
	} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
