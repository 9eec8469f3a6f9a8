package config

import (
	"fmt"
	"math"
	"strconv"
)

// checkAutoMemLimit refuses an AUTOMEMLIMIT the memory limit cannot use.
// The variable is read by the automemlimit library in eventapi serve
// (docs/helm.md, "Memory"): "off", or the share of the container's memory
// limit the Go runtime may fill, in (0, 1]. The library logs any other
// value and leaves the runtime with no limit at all, so "OFF", "false" or
// "90%" took away the protection they meant to tune; they are reported here
// with every other bad setting.
func checkAutoMemLimit(getenv Getenv, errs *[]error) {
	v := getenv("AUTOMEMLIMIT")
	if v == "" || v == "off" {
		return
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(r) || r <= 0 || r > 1 {
		*errs = append(*errs, fmt.Errorf(`AUTOMEMLIMIT %q must be "off" or a share of the container's memory limit, from 0 (excluded) to 1, such as 0.9`, v))
	}
}
