package changes

import (
	"slices"
	"testing"
)

func TestPairedRatios(t *testing.T) {
	cases := []struct {
		name    string
		on, off []round
		want    []float64
	}{
		{"each round its own pair", []round{{rate: 90}, {rate: 45}}, []round{{rate: 100}, {rate: 50}}, []float64{0.9, 0.9}},
		{"an unfinished pair is left out", []round{{rate: 80}, {rate: 10}}, []round{{rate: 100}}, []float64{0.8}},
		{"no rounds", nil, nil, []float64{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := pairedRatios(tc.on, tc.off); !slices.Equal(got, tc.want) {
				t.Fatalf("pairedRatios = %v, want %v", got, tc.want)
			}
		})
	}
}
