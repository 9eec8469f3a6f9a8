package client

import (
	"math/big"
	"strconv"
)

// RoundMoney rounds an amount computed in float64 (the generated types'
// money fields) to whole cents, as the API takes it: at most 2 decimals,
// or 422. 0.1+0.2 is sent as 0.30000000000000004, refused; RoundMoney
// makes it 0.3.
//
// It rounds the amount as it reads in decimal (the shortest decimal that
// is v, as encoding/json would send it), halves away from zero: 1.005 is
// 1.01 and -1.005 is -1.01, although the float64 nearest to 1.005 lies a
// little below it. Amounts read from the API need no rounding: the server
// renders them with two decimals. NaN and infinities are returned as they
// are (the API refuses them).
func RoundMoney(v float64) float64 {
	whole, ok := cents(v)
	if !ok {
		return v
	}
	f, _ := new(big.Rat).SetFrac(whole, big.NewInt(100)).Float64()
	return f
}

// Cents is an amount as a whole number of cents, rounded as RoundMoney
// rounds it, for sums that must be exact: an invoice's line totals read
// as float64 add up to 140.23000000000002 where its total_amount is
// 140.23, while their Cents add up to the total's Cents exactly. ok is
// false for NaN, infinities and amounts beyond int64 cents.
func Cents(v float64) (c int64, ok bool) {
	whole, ok := cents(v)
	if !ok || !whole.IsInt64() {
		return 0, false
	}
	return whole.Int64(), true
}

// cents is v in whole cents, read as the shortest decimal that is v and
// rounded half away from zero; ok is false for NaN and infinities.
func cents(v float64) (*big.Int, bool) {
	exact, ok := new(big.Rat).SetString(strconv.FormatFloat(v, 'f', -1, 64))
	if !ok {
		return nil, false
	}
	c := exact.Mul(exact, big.NewRat(100, 1))
	whole, rem := new(big.Int).QuoRem(c.Num(), c.Denom(), new(big.Int))
	// A remainder of at least half a cent rounds away from zero.
	if rem.Abs(rem).Lsh(rem, 1).Cmp(c.Denom()) >= 0 {
		whole.Add(whole, big.NewInt(int64(c.Sign())))
	}
	return whole, true
}
