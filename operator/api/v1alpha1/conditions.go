package v1alpha1

// ConditionReady is the one condition type both resources report: True when
// the resource is fully reconciled and usable.
const ConditionReady = "Ready"

// Reasons of the Ready condition. The ones marked terminal wait for a spec
// change; the others are retried.
const (
	// ReasonKeyIssued: the key exists, is active and its Secret is written.
	ReasonKeyIssued = "KeyIssued"
	// ReasonSandboxReady: the sandbox organization exists (and is seeded when asked).
	ReasonSandboxReady = "SandboxReady"
	// ReasonInvalidSpec (terminal): the spec is refused, for example an unknown scope.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonOrganizationNotFound: the organization (or parent) does not exist yet; retried.
	ReasonOrganizationNotFound = "OrganizationNotFound"
	// ReasonSecretConflict (terminal until resolved): the Secret exists and is not owned by this ApiKey.
	ReasonSecretConflict = "SecretConflict"
	// ReasonSandboxConflict: the parent's sandbox is already managed by another SandboxOrganization.
	ReasonSandboxConflict = "SandboxConflict"
	// ReasonExpired: the key has passed spec.expiresAt; change expiresAt to issue a new key.
	ReasonExpired = "Expired"
	// ReasonDatabaseError: the eventapi database could not be reached or refused the change; retried.
	ReasonDatabaseError = "DatabaseError"
	// ReasonSecretError: reading or writing the Secret failed; retried.
	ReasonSecretError = "SecretError"
	// ReasonAPIServerError: reading other resources from the API server
	// failed (the SandboxOrganizations that may record a sandbox); retried.
	ReasonAPIServerError = "APIServerError"
)

// Finalizer is set on both resources so that the key is revoked, or the
// sandbox organization deleted, before the object goes away.
const Finalizer = "eventapi.io/cleanup"
