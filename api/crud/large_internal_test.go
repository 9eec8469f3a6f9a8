package crud

import "testing"

// TestLarge: a GET is built under the large-read bulkhead when the resource
// is Large, or when it asks for an expansion LargeWith names.
func TestLarge(t *testing.T) {
	type r = Resource[struct{}, struct{}]
	cases := []struct {
		name string
		res  r
		want map[string]bool
		out  bool
	}{
		{"plain", r{}, nil, false},
		{"large", r{Large: true}, nil, true},
		{"large expansion asked", r{LargeWith: []string{"lines"}}, map[string]bool{"lines": true}, true},
		{"another expansion asked", r{LargeWith: []string{"lines"}}, map[string]bool{"client": true}, false},
		{"none asked", r{LargeWith: []string{"lines"}}, map[string]bool{}, false},
	}
	for _, c := range cases {
		if got := c.res.large(c.want); got != c.out {
			t.Errorf("%s: large = %v, want %v", c.name, got, c.out)
		}
	}
}
