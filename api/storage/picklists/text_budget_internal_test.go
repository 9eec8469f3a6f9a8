package picklists

import "testing"

func TestGrownText(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		name      string
		cur, next *Item
		want      string
		bytes     int
	}{
		{"create: the largest", nil, &Item{Notes: s("ab"), SerialNumbers: []string{"é", "SN-1"}, CustomDescription: s("c")}, "serial_numbers", 15},
		{"patch: the one that grew, not the largest", &Item{SerialNumbers: []string{"SN-000001"}}, &Item{Notes: s("n"), SerialNumbers: []string{"SN-000001"}}, "notes", 13},
		{"patch: a longer description", &Item{CustomDescription: s("a")}, &Item{CustomDescription: s("a longer one")}, "custom_description", 12},
		{"escaped text counts as the answer carries it", nil, &Item{Notes: s("<&>")}, "notes", 18},
	}
	for _, c := range cases {
		if got := grownText(c.cur, c.next); got != c.want {
			t.Errorf("%s: grownText = %s, want %s", c.name, got, c.want)
		}
		if got := textBytes(c.next); got != c.bytes {
			t.Errorf("%s: textBytes = %d, want %d", c.name, got, c.bytes)
		}
	}
}
