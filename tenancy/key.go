package tenancy

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// APIKey is a stored key: only its SHA-256 hash and display prefix are kept.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys,alias:k"`

	ID             uuid.UUID   `bun:"id,pk,type:uuid,default:gen_random_uuid()" json:"id"`
	OrganizationID uuid.UUID   `bun:"organization_id,type:uuid" json:"organization_id"`
	Name           string      `bun:"name" json:"name"`
	Prefix         string      `bun:"prefix" json:"prefix"`
	Hash           []byte      `bun:"hash" json:"-"`
	Scopes         []string    `bun:"scopes,array" json:"scopes"`
	Mode           apikey.Mode `bun:"mode" json:"mode"`
	ExpiresAt      *time.Time  `bun:"expires_at" json:"expires_at"`
	RevokedAt      *time.Time  `bun:"revoked_at" json:"revoked_at"`
	LastUsedAt     *time.Time  `bun:"last_used_at" json:"last_used_at"`
	CreatedAt      time.Time   `bun:"created_at,nullzero,default:clock_timestamp()" json:"created_at"`
	UpdatedAt      time.Time   `bun:"updated_at,nullzero,default:clock_timestamp()" json:"updated_at"`
}

// NewKey describes a key to create.
type NewKey struct {
	OrganizationID uuid.UUID
	Name           string
	Scopes         []Scope
	Mode           apikey.Mode
	ExpiresAt      *time.Time
}

// CreatedKey is a stored key plus its secret, shown exactly once.
type CreatedKey struct {
	APIKey
	Secret string
}

// CreateKey generates, hashes and stores a key. The CLI and the operator both
// create keys through here. Its scopes are checked and stored with their
// duplicates collapsed (CheckScopes).
func CreateKey(ctx context.Context, db bun.IDB, nk NewKey) (*CreatedKey, error) {
	if !nk.Mode.Valid() {
		return nil, errs.InvalidField("mode", "must be live, test or legacy")
	}
	name, err := cleanName(nk.Name)
	if err != nil {
		return nil, err
	}
	scopes, err := CheckScopes(nk.Scopes)
	if err != nil {
		return nil, err
	}
	if _, err := GetOrganization(ctx, db, nk.OrganizationID); err != nil {
		return nil, err
	}
	secret, err := apikey.Generate(nk.Mode)
	if err != nil {
		return nil, errs.Wrap(err, "generate key")
	}
	h := apikey.Hash(secret)
	k := &CreatedKey{Secret: secret, APIKey: APIKey{
		OrganizationID: nk.OrganizationID, Name: name, Prefix: apikey.Prefix(secret), Hash: h[:],
		Scopes: scopeStrings(scopes), Mode: nk.Mode, ExpiresAt: nk.ExpiresAt,
	}}
	if _, err := db.NewInsert().Model(&k.APIKey).Returning("*").Exec(ctx); err != nil {
		return nil, database.Error(err)
	}
	return k, nil
}

// GetKey loads one key by id.
func GetKey(ctx context.Context, db bun.IDB, id uuid.UUID) (*APIKey, error) {
	k := new(APIKey)
	if err := db.NewSelect().Model(k).Where("id = ?", id).Scan(ctx); err != nil {
		if errs.Is(database.Error(err), errs.NotFound) {
			return nil, errs.NotFoundOf("api key")
		}
		return nil, database.Error(err)
	}
	return k, nil
}

// ListKeys lists the keys of an organization, oldest first.
func ListKeys(ctx context.Context, db bun.IDB, org uuid.UUID) ([]APIKey, error) {
	var ks []APIKey
	if err := db.NewSelect().Model(&ks).Where("organization_id = ?", org).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, database.Error(err)
	}
	return ks, nil
}

// ListActiveKeysMarked lists the active keys of an organization whose name
// ends with marker, or is marker without its leading space, oldest first:
// the operator finds an ApiKey's keys by the marker its names end with. The
// database filters them: it still reads the organization's key rows, but
// sends only these (ListKeys sent all of them, revoked ones included, and
// every rotation adds one that is never deleted).
func ListActiveKeysMarked(ctx context.Context, db bun.IDB, org uuid.UUID, marker string) ([]APIKey, error) {
	var ks []APIKey
	err := db.NewSelect().Model(&ks).Where("organization_id = ? AND revoked_at IS NULL", org).
		Where("(right(name, ?) = ? OR name = ?)", len([]rune(marker)), marker, strings.TrimSpace(marker)).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, database.Error(err)
	}
	return ks, nil
}

// RevokeKey marks a key revoked. Every instance refuses it within the
// authenticator's cache TTL (1 s). Revoking twice is not an error, and
// changes nothing: the key keeps its first revoked_at and updated_at.
func RevokeKey(ctx context.Context, db bun.IDB, id uuid.UUID) error {
	res, err := db.NewUpdate().Model((*APIKey)(nil)).Where("id = ?", id).
		Set("revoked_at = coalesce(revoked_at, clock_timestamp())").
		Set("updated_at = CASE WHEN revoked_at IS NULL THEN clock_timestamp() ELSE updated_at END").Exec(ctx)
	if err != nil {
		return database.Error(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFoundOf("api key")
	}
	return nil
}

// SetKeyScopes replaces the scopes of a key in place (CheckScopes: a scope
// named twice is stored once).
func SetKeyScopes(ctx context.Context, db bun.IDB, id uuid.UUID, scopes []Scope) error {
	scopes, err := CheckScopes(scopes)
	if err != nil {
		return err
	}
	res, err := db.NewUpdate().Model((*APIKey)(nil)).Where("id = ?", id).Where("revoked_at IS NULL").
		Set("scopes = ?", pgdialect.Array(scopeStrings(scopes))).Set("updated_at = clock_timestamp()").Exec(ctx)
	if err != nil {
		return database.Error(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.NotFoundOf("api key")
	}
	return nil
}

func scopeStrings(ss []Scope) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return out
}

// Expired reports whether a key whose expiry is expires (nil: none) is
// expired at t: from that instant on it authenticates nothing.
func Expired(expires *time.Time, t time.Time) bool { return expires != nil && !t.Before(*expires) }
