package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KeyMode is the kind of key issued.
// +kubebuilder:validation:Enum=live;test
type KeyMode string

// Key modes: a live key acts on its organization; a test key is a sandbox key
// (routed to the organization's sandbox when it has one).
const (
	KeyModeLive KeyMode = "live"
	KeyModeTest KeyMode = "test"
)

// Scope is one API permission. The enum below must equal tenancy.AllScopes (a
// test checks it).
// +kubebuilder:validation:Enum=events:read;events:write;clients:read;clients:write;equipment:read;equipment:write;equipment_reservations:read;equipment_reservations:write;quotes:read;quotes:write;invoices:read;invoices:write;crew_members:read;crew_members:write;pick_lists:read;pick_lists:write;request_logs:read;webhooks:read;webhooks:write;jobs:read;crew:read
type Scope string

// ApiKeySpec declares an API key of an eventapi organization.
// +kubebuilder:validation:XValidation:rule="!has(self.rotationGracePeriod) || self.rotationGracePeriod.matches('^(0|([0-9]{1,5}([.][0-9]{1,9})?(ns|us|µs|μs|ms|s|m|h)){1,3})$')",message="rotationGracePeriod must be a non-negative Go duration such as 5m or 1h30m, of at most 3 parts of up to 5 digits each"
type ApiKeySpec struct {
	// OrganizationID is the id (uuid) of the organization that owns the key.
	// It cannot be changed.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="organizationId is immutable"
	OrganizationID string `json:"organizationId"`

	// Name is the key's display name in the key list (defaults to the
	// object's name). It is applied when a key is issued; a change takes
	// effect at the next rotation.
	// +optional
	// +kubebuilder:validation:MaxLength=150
	Name string `json:"name,omitempty"`

	// Scopes granted to the key. Changing them updates the same key in place
	// (no new secret). The previous key of a rotation, while in its grace
	// period, is narrowed to those of its scopes still granted, never
	// widened, and revoked at once when none is left.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	// +listType=set
	Scopes []Scope `json:"scopes"`

	// Mode is live or test. Changing it issues a new key (like a rotation).
	// +kubebuilder:default=live
	// +optional
	Mode KeyMode `json:"mode,omitempty"`

	// ExpiresAt, when set, is the time after which the key is refused.
	// Changing it issues a new key (like a rotation). An RFC 3339 time with
	// an upper-case T and Z (or an offset from -23:59 to +23:59), such as
	// 2027-06-30T00:00:00Z. The API server refuses any other text, which the
	// operator's cache could not decode (one such object stopped the
	// operator for every namespace).
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	// +optional
	ExpiresAt *metav1.Time `json:"expiresAt,omitempty"`

	// SecretName is the Secret (in the same namespace) that receives the key
	// under the data keys api-key, prefix and key-id. It cannot be changed.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="secretName is immutable"
	SecretName string `json:"secretName"`

	// RotationToken is any string; changing it issues a new key, writes it to
	// the Secret and revokes the previous key after RotationGracePeriod.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	RotationToken string `json:"rotationToken,omitempty"`

	// RotationGracePeriod is how long the previous key keeps working after a
	// new one is issued, so that consumers can pick up the new Secret. A Go
	// duration such as 5m or 1h30m, never negative: the API server refuses
	// any other text, which the operator's cache could not decode (one such
	// object stopped the operator for every namespace).
	// +kubebuilder:default="5m"
	// +optional
	RotationGracePeriod *metav1.Duration `json:"rotationGracePeriod,omitempty"`
}

// PendingRevocation is a previous key that still works until RevokeAt.
type PendingRevocation struct {
	// KeyID is the id of the previous key.
	KeyID string `json:"keyId"`
	// RevokeAt is when the operator revokes it.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	RevokeAt metav1.Time `json:"revokeAt"`
}

// ApiKeyStatus is the observed state of an ApiKey. It never holds the key
// itself: only its id and display prefix.
type ApiKeyStatus struct {
	// ObservedGeneration is the generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready (True when the key is active and its Secret written).
	// The rule reads every lastTransitionTime as a timestamp, which fails
	// for a time the API server's date-time format lets through but the
	// operator's RFC 3339 reader refuses (an offset such as +99:00).
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.lastTransitionTime == c.lastTransitionTime)",message="every lastTransitionTime must be an RFC 3339 time the operator can read"
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// KeyID is the id of the current key.
	// +optional
	KeyID string `json:"keyId,omitempty"`

	// Prefix is the displayable first 12 characters of the current key.
	// +optional
	Prefix string `json:"prefix,omitempty"`

	// LastRotationTime is when the current key was issued.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date-time
	// +kubebuilder:validation:Pattern=`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`
	LastRotationTime *metav1.Time `json:"lastRotationTime,omitempty"`

	// PendingRevocation is the previous key, still valid until its RevokeAt.
	// +optional
	PendingRevocation *PendingRevocation `json:"pendingRevocation,omitempty"`
}

// ApiKey is an eventapi API key managed from Kubernetes. The full key is
// written only to the Secret named by spec.secretName.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=eak,categories=eventapi
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Prefix",type=string,JSONPath=`.status.prefix`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Secret",type=string,JSONPath=`.spec.secretName`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ApiKey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ApiKeySpec   `json:"spec"`
	Status ApiKeyStatus `json:"status,omitempty"`
}

// ApiKeyList is a list of ApiKey.
//
// +kubebuilder:object:root=true
type ApiKeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ApiKey `json:"items"`
}

func init() { SchemeBuilder.Register(&ApiKey{}, &ApiKeyList{}) }
