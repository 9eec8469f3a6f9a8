package delivery

import "testing"

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		failed, gaveUp bool
		want           string
	}{
		{false, false, "success"},
		{true, false, "failure"},
		{true, true, "gave_up"},
	} {
		if got := outcome(tc.failed, tc.gaveUp); got != tc.want {
			t.Errorf("outcome(failed=%v, gaveUp=%v) = %q, want %q", tc.failed, tc.gaveUp, got, tc.want)
		}
	}
}
