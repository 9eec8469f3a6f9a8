package changes

import "testing"

// TestTypeScope: the type filter binds a cursor by its set of types, not
// by their order or repeats.
func TestTypeScope(t *testing.T) {
	for _, tc := range []struct {
		types []string
		want  string
	}{
		{nil, ""},
		{[]string{"client.created"}, "client.created"},
		{[]string{"client.created", "client.updated"}, "client.created,client.updated"},
		{[]string{"client.updated", "client.created"}, "client.created,client.updated"},
		{[]string{"client.created", "client.updated", "client.created"}, "client.created,client.updated"},
		{[]string{"quote.approved", "quote.approved"}, "quote.approved"},
	} {
		in := append([]string(nil), tc.types...)
		if got := typeScope(tc.types); got != tc.want {
			t.Errorf("typeScope(%q) = %q, want %q", tc.types, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.types[i] {
				t.Errorf("typeScope(%q) changed its argument", in)
			}
		}
	}
}
