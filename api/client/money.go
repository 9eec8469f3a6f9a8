package client

import "math"

// RoundMoney rounds an amount computed in float64 (the generated types'
// money fields) to whole cents, as the API takes it: at most 2 decimals,
// or 422. 0.1+0.2 is sent as 0.30000000000000004, refused; RoundMoney
// makes it 0.3. Halves round away from zero. Amounts read from the API
// need no rounding: the server renders them with two decimals.
func RoundMoney(v float64) float64 { return math.Round(v*100) / 100 }
