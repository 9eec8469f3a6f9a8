// Package v1alpha1 holds the eventapi.io/v1alpha1 custom resources the
// operator reconciles: ApiKey (an API key whose secret lives only in a
// Kubernetes Secret) and SandboxOrganization (a sandbox organization linked to
// a parent, optionally seeded with demo data).
//
// +kubebuilder:object:generate=true
// +groupName=eventapi.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of these resources.
	GroupVersion = schema.GroupVersion{Group: "eventapi.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	//lint:ignore SA1019 kubebuilder scaffold: the types' init functions call SchemeBuilder.Register(objects...), which runtime.SchemeBuilder lacks; kept as scaffolded
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this package to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
