package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/google/uuid"

	keys "github.com/eventapi/eventapi/api/storage/idempotency"
)

// record is what the edge store holds under a key: a marker while the first
// request executes, then the response to replay.
type record struct {
	State       string `json:"s"`
	Fingerprint []byte `json:"f"`
	Status      int    `json:"c,omitempty"`
	ContentType string `json:"t,omitempty"`
	Body        []byte `json:"b,omitempty"`
	// Sealed says Body is sealed (seal.Sealer, bound to the record's store
	// key). Records written before sealing hold it in the clear.
	Sealed bool `json:"z,omitempty"`
	// Scopes are those a replaying key must hold (checksOf: the scope with
	// which the execution passed each of its checks, and the executing
	// key itself for an answer for it alone; on records written before
	// 2.11.1, every scope of the executing key; none on records written
	// before 2.7.1).
	Scopes []string `json:"sc,omitempty"`
	// Owner makes each in-progress marker unique, so that the edge store can
	// tell its own claim, retried after a timeout, from another request's
	// (platform/edge Redis.Claim).
	Owner string `json:"o,omitempty"`
}

const (
	stateRunning = "running"
	stateDone    = "done"
)

func (r record) encode() []byte {
	b, _ := json.Marshal(r)
	return b
}

// rowRecord is the final record of a completed database row (keys.Row.Done).
func rowRecord(r *keys.Row) record {
	return record{State: stateDone, Fingerprint: r.Fingerprint, Status: *r.Status, ContentType: r.ContentType, Body: r.Response, Sealed: r.Sealed, Scopes: r.Scopes}
}

// answer is what the key's database row keeps of the final record r.
func (r record) answer() keys.Answer {
	return keys.Answer{Status: r.Status, ContentType: r.ContentType, Body: r.Body, Sealed: r.Sealed, Scopes: r.Scopes}
}

func decodeRecord(b []byte) (record, bool) {
	var r record
	if err := json.Unmarshal(b, &r); err != nil || (r.State != stateRunning && r.State != stateDone) {
		return record{}, false
	}
	return r, true
}

// StoreKey is the edge-store name of (organization, key). The key is hashed:
// the name stays short and free of characters that would end the Redis hash
// tag early.
func StoreKey(org uuid.UUID, key string) string {
	sum := sha256.Sum256([]byte(key))
	return "idem:" + org.String() + ":" + hex.EncodeToString(sum[:])
}
