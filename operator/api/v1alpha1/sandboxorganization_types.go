package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DeletionPolicy is what deleting a SandboxOrganization does to its sandbox
// organization (docs/operator.md, SandboxOrganization).
// +kubebuilder:validation:Enum=Delete;Orphan
type DeletionPolicy string

// The deletion policies.
const (
	// DeletionDelete deletes the sandbox organization and all its data,
	// whether the operator created it or adopted it.
	DeletionDelete DeletionPolicy = "Delete"
	// DeletionOrphan leaves the sandbox organization in the database: the
	// parent's test keys keep reaching it, and a later SandboxOrganization
	// of the same parent adopts it.
	DeletionOrphan DeletionPolicy = "Orphan"
)

// SandboxOrganizationSpec declares the sandbox of a parent organization: the
// parent's test keys then read and write only the sandbox.
type SandboxOrganizationSpec struct {
	// ParentOrganizationID is the id (uuid) of the parent organization. It
	// cannot be changed.
	// +kubebuilder:validation:Pattern=`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="parentOrganizationId is immutable"
	ParentOrganizationID string `json:"parentOrganizationId"`

	// Name is the sandbox organization's name; changing it renames it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=200
	Name string `json:"name"`

	// SeedDemoData fills the sandbox with demo data (catalogue, clients,
	// crew, events) when the operator creates it.
	// +optional
	SeedDemoData bool `json:"seedDemoData,omitempty"`

	// DeletionPolicy says what deleting this resource does to the sandbox
	// organization: Delete (the default) deletes it and all its data,
	// Orphan leaves it as it is. It applies alike to a sandbox the operator
	// created and to one it adopted. It may be changed at any time: the
	// policy the resource holds when its finalizer runs is the one applied.
	// +kubebuilder:default=Delete
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
}

// SandboxOrganizationStatus is the observed state of a SandboxOrganization.
type SandboxOrganizationStatus struct {
	// ObservedGeneration is the generation last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready (True when the sandbox organization exists).
	// The rule reads every lastTransitionTime as a timestamp, which fails
	// for a time the API server's date-time format lets through but the
	// operator's RFC 3339 reader refuses (an offset such as +99:00).
	// +optional
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.lastTransitionTime == c.lastTransitionTime)",message="every lastTransitionTime must be an RFC 3339 time the operator can read"
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// SandboxOrganizationID is the id of the sandbox organization.
	// +optional
	SandboxOrganizationID string `json:"sandboxOrganizationId,omitempty"`

	// Seeded is true when the operator seeded the sandbox with demo data.
	// +optional
	Seeded bool `json:"seeded,omitempty"`
}

// SandboxOrganization is the sandbox organization of a parent organization.
// Deleting it deletes the sandbox organization and all its data, unless
// spec.deletionPolicy is Orphan; the parent is never touched.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=esbx,categories=eventapi
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Sandbox",type=string,JSONPath=`.status.sandboxOrganizationId`
// +kubebuilder:printcolumn:name="Parent",type=string,JSONPath=`.spec.parentOrganizationId`,priority=1
// +kubebuilder:printcolumn:name="Deletion",type=string,JSONPath=`.spec.deletionPolicy`,priority=1
// +kubebuilder:printcolumn:name="Seeded",type=boolean,JSONPath=`.status.seeded`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SandboxOrganization struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SandboxOrganizationSpec   `json:"spec"`
	Status SandboxOrganizationStatus `json:"status,omitempty"`
}

// SandboxOrganizationList is a list of SandboxOrganization.
//
// +kubebuilder:object:root=true
type SandboxOrganizationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SandboxOrganization `json:"items"`
}

func init() { SchemeBuilder.Register(&SandboxOrganization{}, &SandboxOrganizationList{}) }
