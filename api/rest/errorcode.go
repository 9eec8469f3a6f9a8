package rest

import (
	"bytes"
	"encoding/json"
)

// BodyErrorCode reads error.code from an answer's body in either envelope
// (ErrorBody, V1ErrorBody: both keep it at error.code), or "" when the
// body is not one. The request log reads a replayed stored error through
// it, since a replay does not pass through the error handler.
func BodyErrorCode(body []byte) string {
	if !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return ""
	}
	var env ErrorBody
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	return string(env.Error.Code)
}
