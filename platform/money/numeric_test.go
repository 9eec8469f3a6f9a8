package money

import (
	"encoding/binary"
	"testing"
)

// numeric builds PostgreSQL's binary numeric from its header and digits.
func numeric(weight int16, sign uint16, digits ...uint16) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(digits)))
	b = binary.BigEndian.AppendUint16(b, uint16(weight))
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, 2)
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}

// TestDecodeNumeric covers the forms PostgreSQL never sends for a money
// column, which must fail rather than wrap; api/storage's
// TestNumericDecodesAsItScans checks real values against Scan.
func TestDecodeNumeric(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    Amount
		wantErr error
	}{
		{"zero", numeric(0, numericPositive), 0, nil},
		{"12.34", numeric(0, numericPositive, 12, 3400), 1234, nil},
		{"-12.345 rounds away from zero", numeric(0, numericNegative, 12, 3450), -1235, nil},
		{"10000.5", numeric(1, numericPositive, 1, 0, 5000), 1000050, nil},
		{"largest int64 of cents fits", numeric(4, numericPositive, 9, 2233, 7203, 6854, 7758, 700), 9223372036854775807, nil},
		{"one past it overflows", numeric(4, numericPositive, 9, 2233, 7203, 6854, 7758, 800), 0, errNumericRange},
		{"10000^5 overflows in scaling", numeric(5, numericPositive, 1), 0, errNumericRange},
		{"NaN", numeric(0, 0xC000), 0, errNumericValue},
		{"infinity", numeric(0, 0xD000), 0, errNumericValue},
		{"short header", []byte{0, 1, 0}, 0, errNumericForm},
		{"digits missing", numeric(0, numericPositive, 1)[:9], 0, errNumericForm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeNumeric(tt.in)
			if got != tt.want || err != tt.wantErr {
				t.Fatalf("DecodeNumeric = %d, %v; want %d, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		in   Amount
		want string
	}{{0, "0.00"}, {5, "0.05"}, {1234, "12.34"}, {-1, "-0.01"}, {-100000, "-1000.00"}, {Max, "9999999999.99"}} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("String(%d) = %q, want %q", int64(tt.in), got, tt.want)
		}
		if b, _ := tt.in.MarshalJSON(); string(b) != tt.want {
			t.Errorf("MarshalJSON(%d) = %s, want %s", int64(tt.in), b, tt.want)
		}
	}
}
