package jsonplan

import (
	"encoding/json"
	"time"
)

// appendTime appends t as its MarshalJSON writes it (RFC 3339 with
// nanoseconds, trailing zeros dropped), with encoding/json's error for a
// time MarshalJSON refuses. A time of the years 0 to 9999 whose zone is a
// whole number of minutes off UTC, less than a day (every zone of the
// database and of Go's zone data), is written here from its Unix time,
// which costs a third of time's formatting; any other goes to time's.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	_, offset := t.Zone()
	if offset%60 == 0 && -86400 < offset && offset < 86400 {
		sec := t.Unix() + int64(offset)
		// seconds since 0000-03-01 in the proleptic Gregorian calendar
		// time uses; January and February of the year 0 go to time's
		const (
			fromMarch0000 = 719468 * 86400  // to 1970-01-01
			toYear10000   = 3652365 * 86400 // to 10000-01-01
		)
		if s := sec + fromMarch0000; s >= 0 && s < toYear10000 {
			return appendRFC3339(b, s/86400, int(s%86400), t.Nanosecond(), offset), nil
		}
	}
	out, err := t.AppendText(append(b, '"'))
	if err != nil {
		_, err = t.MarshalJSON()
		return b, &json.MarshalerError{Type: timeType, Err: err}
	}
	return append(out, '"'), nil
}

// appendRFC3339 appends, quoted, the time days after 0000-03-01 (before
// 10000-01-01), sec seconds into the day, nsec nanoseconds (trailing zeros
// dropped) and offset seconds east of UTC (whole minutes), as time writes
// RFC 3339 with nanoseconds.
func appendRFC3339(b []byte, days int64, sec, nsec, offset int) []byte {
	// civil date from days (the algorithm of H. Hinnant's chrono
	// date library, for days from 0000-03-01)
	era := days / 146097
	doe := days - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := int(doy - (153*mp+2)/5 + 1)
	month := int(mp + 3)
	year := int(yoe + era*400)
	if month > 12 {
		month -= 12
		year++
	}
	var s [37]byte // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+hh:mm"
	s[0] = '"'
	put4(s[1:], year)
	s[5] = '-'
	put2(s[6:], month)
	s[8] = '-'
	put2(s[9:], day)
	s[11] = 'T'
	put2(s[12:], sec/3600)
	s[14] = ':'
	put2(s[15:], sec/60%60)
	s[17] = ':'
	put2(s[18:], sec%60)
	n := 20
	if nsec != 0 {
		s[20] = '.'
		for i := 29; i > 20; i-- {
			s[i] = byte('0' + nsec%10)
			nsec /= 10
		}
		n = 30
		for s[n-1] == '0' {
			n--
		}
	}
	b = append(b, s[:n]...)
	if offset == 0 {
		return append(b, 'Z', '"')
	}
	sign := byte('+')
	if offset < 0 {
		sign, offset = '-', -offset
	}
	zone := offset / 60
	return append(b, sign, byte('0'+zone/600), byte('0'+zone/60%10), ':', byte('0'+zone%60/10), byte('0'+zone%10), '"')
}

func put2(s []byte, v int) { s[0], s[1] = byte('0'+v/10), byte('0'+v%10) }

func put4(s []byte, v int) {
	put2(s, v/100)
	put2(s[2:], v%100)
}
