package client

import (
	"encoding/json"
	"testing"
)

func TestRoundMoney(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string // as encoding/json sends it
	}{
		{0.1 + 0.2, "0.3"},
		{19.99 * 3, "59.97"},
		{1.005, "1"}, // 1.005 is 1.00499999… in binary
		{2.675, "2.68"},
		{9999999999.99, "9999999999.99"},
		{0, "0"},
	} {
		b, _ := json.Marshal(RoundMoney(c.in))
		if string(b) != c.want {
			t.Errorf("RoundMoney(%v) sends %s, want %s", c.in, b, c.want)
		}
	}
}
