package clientip

import (
	"net/netip"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{"", nil, false},
		{" , ", nil, false},
		{"10.0.0.0/8", []string{"10.0.0.0/8"}, false},
		{"10.1.2.3/8, 192.168.1.7 ,fd00::/8", []string{"10.0.0.0/8", "192.168.1.7/32", "fd00::/8"}, false},
		{"::ffff:10.0.0.1", []string{"10.0.0.1/32"}, false},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}, false},
		{"10.0.0.0/33", nil, true},
		{"proxy.local", nil, true},
		{"10.0.0.1:80", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
			}
			for i := range got {
				if got[i].String() != tt.want[i] {
					t.Errorf("Parse(%q)[%d] = %v, want %v", tt.in, i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestOf(t *testing.T) {
	trusted, err := Parse("10.0.0.0/8, 2001:db8:ffff::/48")
	if err != nil {
		t.Fatal(err)
	}
	lines := func(ls ...string) [][]byte {
		var out [][]byte
		for _, l := range ls {
			out = append(out, []byte(l))
		}
		return out
	}
	tests := []struct {
		name    string
		trusted Trusted
		peer    string
		header  [][]byte
		want    string
	}{
		{"no proxies trusted: the peer, header ignored", nil, "10.0.0.5", lines("203.0.113.7"), "10.0.0.5"},
		{"an untrusted peer's header is ignored", trusted, "198.51.100.9", lines("203.0.113.7"), "198.51.100.9"},
		{"one trusted proxy", trusted, "10.0.0.5", lines("203.0.113.7"), "203.0.113.7"},
		{"a spoofed entry left of the real client", trusted, "10.0.0.5", lines("1.2.3.4, 203.0.113.7"), "203.0.113.7"},
		{"two trusted proxies", trusted, "10.0.0.5", lines("203.0.113.7, 10.0.0.9"), "203.0.113.7"},
		{"header lines read in order", trusted, "10.0.0.5", lines("1.2.3.4", "203.0.113.7, 10.0.0.9"), "203.0.113.7"},
		{"a trusted proxy's line after the client's", trusted, "10.0.0.5", lines("203.0.113.7", "10.0.0.9"), "203.0.113.7"},
		{"no header behind a trusted proxy: the proxy", trusted, "10.0.0.5", nil, "10.0.0.5"},
		{"trusted proxies only: the leftmost", trusted, "10.0.0.5", lines("10.9.9.9, 10.0.0.9"), "10.9.9.9"},
		{"garbage stops at the last trusted hop", trusted, "10.0.0.5", lines("203.0.113.7, unknown, 10.0.0.9"), "10.0.0.9"},
		{"an empty entry stops the walk", trusted, "10.0.0.5", lines("203.0.113.7,,"), "10.0.0.5"},
		{"ports and spaces", trusted, "10.0.0.5", lines(" 203.0.113.7:4711 ,10.0.0.9:80"), "203.0.113.7"},
		{"IPv6 with a port", trusted, "2001:db8:ffff::1", lines("[2001:db8::7]:443"), "2001:db8::7"},
		{"IPv4-mapped peer and entry", trusted, "::ffff:10.0.0.5", lines("::ffff:203.0.113.7"), "203.0.113.7"},
		{"a zone is dropped, so a trusted proxy's zoned entry is trusted", trusted, "10.0.0.5",
			lines("203.0.113.7, 2001:db8:ffff::9%eth0"), "203.0.113.7"},
		{"IPv6 in brackets without a port", trusted, "10.0.0.5", lines("[2001:db8::7]"), "2001:db8::7"},
		{"a line of spaces is an empty line", trusted, "10.0.0.5", lines("203.0.113.7", "   "), "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.trusted.Of(netip.MustParseAddr(tt.peer), tt.header)
			if got.String() != tt.want {
				t.Errorf("Of(%s, %q) = %s, want %s", tt.peer, tt.header, got, tt.want)
			}
		})
	}
}
