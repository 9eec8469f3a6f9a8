package webhooks

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// Kinds name the resources in not_found errors.
const (
	EndpointKind = "webhook endpoint"
	DeliveryKind = "webhook delivery"
)

// Endpoint statuses.
const (
	Enabled  = "enabled"
	Disabled = "disabled"
)

// Delivery statuses.
const (
	Pending   = "pending"
	Succeeded = "succeeded"
	Failed    = "failed"
)

// Statuses are the delivery statuses, as the deliveries list filters them.
var Statuses = []string{Pending, Succeeded, Failed}

// AllEvents in enabled_events subscribes to every change type.
const AllEvents = "*"

// Subscribes reports whether enabledEvents takes changes of changeType: the
// rule of the fan-out's SQL (fanout.go), the worker's (Message.Subscribed)
// and a retry's.
func Subscribes(enabledEvents []string, changeType string) bool {
	return slices.Contains(enabledEvents, AllEvents) || slices.Contains(enabledEvents, changeType)
}

// Endpoint is a URL that receives an organization's changes.
type Endpoint struct {
	bun.BaseModel `bun:"table:webhook_endpoints,alias:we"`

	ID             uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	URL            string    `bun:"url" json:"url"`
	Description    *string   `bun:"description" json:"description"`
	EnabledEvents  []string  `bun:"enabled_events,array" json:"enabled_events"`
	Status         string    `bun:"status" json:"status"`
	SealedSecret   []byte    `bun:"secret" json:"-"`
	// SealedPreviousSecret is the secret the latest rotation replaced,
	// sealed as SealedSecret is; it signs beside the current one until
	// PreviousSecretExpiresAt (RotateSecret). Both are nil when none was
	// kept; the stores render an expiry that has passed as null
	// (hideExpired), so the API shows one only while it is live.
	SealedPreviousSecret    []byte     `bun:"previous_secret" json:"-"`
	PreviousSecretExpiresAt *time.Time `bun:"previous_secret_expires_at" json:"previous_secret_expires_at"`
	FailingSince            *time.Time `bun:"failing_since" json:"failing_since"`
	// ResumeCursor is the change-feed cursor of DisabledPosition and
	// DisabledSeq, sealed by the handler that answers (nil: never disabled).
	ResumeCursor *string `bun:"-" json:"resume_cursor"`
	// CreatedByKeyID is the key that registered the endpoint; nil for one
	// registered before 2.12.0. The endpoint outlives the key.
	CreatedByKeyID *uuid.UUID `bun:"created_by_key_id,type:uuid" json:"created_by_key_id"`
	// FeedPosition and FeedSeq are the fan-out's cursor in the change feed
	// (FanOut); only the database moves them.
	FeedPosition string `bun:"feed_position,scanonly" json:"-"`
	FeedSeq      int64  `bun:"feed_seq,scanonly" json:"-"`
	// DisabledPosition and DisabledSeq are where the fan-out's cursor stood
	// when the endpoint was last disabled, after the disable queued what was
	// visible: every change after it was not queued while the endpoint was
	// disabled. Set by the database's disable trigger; nil until the first
	// disable, and kept through a re-enable (docs/webhooks.md, "Delivery
	// and retries"). Read with the endpoint (scanonly would leave them out
	// of a SELECT), never written by a store.
	DisabledPosition *int64 `bun:"disabled_position,skipupdate" json:"-"`
	DisabledSeq      *int64 `bun:"disabled_seq,skipupdate" json:"-"`
	// EnabledAt is when the endpoint's current run began: its registration
	// or its latest re-enable (set by the database). Only a claim made since
	// counts against it (Complete).
	EnabledAt time.Time `bun:"enabled_at,scanonly" json:"-"`
	// RecoveredAt is when the endpoint's latest run of failed attempts
	// ended (set by its first success after them; Complete).
	RecoveredAt *time.Time `bun:"recovered_at,scanonly" json:"-"`
	// Demo marks an endpoint a test key registered, as every v2 record
	// written by one is marked (tenancy.Tenant).
	Demo      bool      `bun:"demo" json:"demo"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// PageKey implements storage.Row.
func (e *Endpoint) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: e.CreatedAt, ID: e.ID} }

// hideExpired clears the previous secret's expiry once it has passed at
// now: the previous secret no longer signs (LoadMessage), and the API shows
// previous_secret_expires_at only while it does (docs/webhooks.md).
func (e *Endpoint) hideExpired(now time.Time) {
	if e.PreviousSecretExpiresAt != nil && !e.PreviousSecretExpiresAt.After(now) {
		e.PreviousSecretExpiresAt = nil
	}
}

// CreatedEndpoint is the answer to a registration or a rotation of the
// secret: the endpoint and its new signing secret, shown this once.
type CreatedEndpoint struct {
	Endpoint
	Secret string `json:"secret"`
}

// Delivery is one change to deliver to one endpoint, with its attempts.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries,alias:wd"`

	ID             uuid.UUID  `bun:"id,pk,type:uuid" json:"id"`
	OrganizationID uuid.UUID  `bun:"organization_id,type:uuid" json:"-"`
	EndpointID     uuid.UUID  `bun:"endpoint_id,type:uuid" json:"endpoint_id"`
	ChangeID       uuid.UUID  `bun:"change_id,type:uuid" json:"change_id"`
	Type           string     `bun:"type" json:"type"`
	Status         string     `bun:"status" json:"status"`
	AttemptCount   int        `bun:"attempt_count" json:"attempt_count"`
	NextAttemptAt  *time.Time `bun:"next_attempt_at" json:"next_attempt_at"`
	FirstFailedAt  *time.Time `bun:"first_failed_at" json:"-"`
	// UnpreparedSince starts the current run of failures of ours to
	// prepare the delivery (Unsent).
	UnpreparedSince *time.Time `bun:"unprepared_since" json:"-"`
	LeasedUntil     *time.Time `bun:"leased_until" json:"-"`
	LeaseOwner      *uuid.UUID `bun:"lease_owner,type:uuid" json:"-"`
	CreatedAt       time.Time  `bun:"created_at" json:"created_at"`
	UpdatedAt       time.Time  `bun:"updated_at" json:"updated_at"`
	Attempts        []Attempt  `bun:"-" json:"attempts"`
}

// Attempt is one HTTP request of a delivery.
type Attempt struct {
	bun.BaseModel `bun:"table:webhook_delivery_attempts,alias:wa"`

	ID             uuid.UUID `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID `bun:"organization_id,type:uuid" json:"-"`
	DeliveryID     uuid.UUID `bun:"delivery_id,type:uuid" json:"-"`
	StartedAt      time.Time `bun:"started_at" json:"started_at"`
	// ResponseStatus is the receiver's HTTP status; nil when none came.
	ResponseStatus *int `bun:"response_status" json:"response_status"`
	DurationMS     int  `bun:"duration_ms" json:"duration_ms"`
	// Error says why the attempt failed, in our own words; nil on success.
	Error *string `bun:"error" json:"error"`
}
