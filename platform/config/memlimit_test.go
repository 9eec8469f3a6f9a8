package config

import "testing"

func TestCheckAutoMemLimit(t *testing.T) {
	for v, ok := range map[string]bool{
		"": true, "off": true, "0.9": true, "1": true, "0.5": true, "1e-1": true,
		"OFF": false, "false": false, "90%": false, "0": false, "1.1": false, "-0.5": false, "NaN": false, "foo": false,
	} {
		var errs []error
		checkAutoMemLimit(func(k string) string {
			if k == "AUTOMEMLIMIT" {
				return v
			}
			return ""
		}, &errs)
		if got := len(errs) == 0; got != ok {
			t.Errorf("AUTOMEMLIMIT=%q accepted %v, want %v (%v)", v, got, ok, errs)
		}
	}
}
