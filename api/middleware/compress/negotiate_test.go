package compress

import "testing"

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		field string
		want  bool
	}{
		{"", false},
		{"identity", false},
		{"br", false},
		{"deflate", false},
		{"gzip", true},
		{"GZip", true},
		{"x-gzip", true},
		{"deflate, gzip", true},
		{"deflate,gzip", true},
		{" gzip , deflate ", true},
		{"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
		{"gzip;q=1", true},
		{"gzip; Q=0.001", true},
		{"gzip;q=0", false},
		{"gzip; q=0.000", false},
		{"gzip;q=0, *", false},
		{"*", true},
		{"*;q=0", false},
		{"br, *;q=0.5", true},
		{"gzip;q=1.5", false},
		{"gzip;q=abc", false},
		{"gzip;q=", false},
		{"gzip;level=1", false},
		{"gzip;q=0, gzip", true},
		{"gzipx", false},
		{",,,", false},
		{"gzip;q=1.000", true},
		{"gzip;q=1.001", false},
		{"gzip;q=0.5", true},
		{"gzip;q=1.", true}, // 0*3DIGIT: "1." is a qvalue (RFC 9110, 12.4.2)
		{"gzip;q=1x", false},
		{"gzip;q=0.", false}, // a qvalue, of zero
		{"gzip;q=0.0001", false},
		{"gzip;q=1e-3", false},
		{"gzip;q=0x1p0", false},
		{"gzip;q=.5", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip([][]byte{[]byte(tt.field)}); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.field, got, tt.want)
		}
	}
}

// TestAcceptsGzipOverSeveralLines: repeated field lines are one list.
func TestAcceptsGzipOverSeveralLines(t *testing.T) {
	tests := []struct {
		lines []string
		want  bool
	}{
		{[]string{"*", "gzip;q=0"}, false},
		{[]string{"br", "gzip"}, true},
		{[]string{"br", "deflate"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		var lines [][]byte
		for _, l := range tt.lines {
			lines = append(lines, []byte(l))
		}
		if got := acceptsGzip(lines); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.lines, got, tt.want)
		}
	}
}

func TestCompressible(t *testing.T) {
	tests := []struct {
		contentType string
		want        bool
	}{
		{"application/json", true},
		{"application/json; charset=utf-8", true},
		{"Application/JSON", true},
		{"application/problem+json", true},
		{"application/yaml", true},
		{"text/html; charset=utf-8", true},
		{"text/javascript; charset=utf-8", true},
		{"application/octet-stream", false},
		{"image/png", false},
		{"application/gzip", false},
		{"application/jsonx", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := compressible([]byte(tt.contentType)); got != tt.want {
			t.Errorf("compressible(%q) = %v, want %v", tt.contentType, got, tt.want)
		}
	}
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, sub string
		want   bool
	}{
		{"Accept-Encoding", "Accept-Encoding", true},
		{"origin, accept-encoding", "Accept-Encoding", true},
		{"ACCEPT-ENCODING, Origin", "Accept-Encoding", true},
		{"Origin", "Accept-Encoding", false},
		{"Accept-Encodin", "Accept-Encoding", false},
		{"", "Accept-Encoding", false},
	}
	for _, tt := range tests {
		if got := containsFold([]byte(tt.s), tt.sub); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tt.s, tt.sub, got, tt.want)
		}
	}
}
