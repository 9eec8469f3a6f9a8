// Package equipment stores the equipment of an organization and its equipment
// categories: bun models and organization-scoped queries, plus Get and Expand
// for packages that check or inline equipment. The HTTP side is api/equipment.
package equipment
