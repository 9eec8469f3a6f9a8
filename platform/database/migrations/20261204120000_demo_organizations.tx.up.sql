-- The organizations `eventapi demo` made (docs/decisions.md, "The demo
-- organization"). demo reuses an organization of its --name only when it is
-- listed here; it recognised one by the names of its keys before ("demo live
-- key", …), so an operator's own organization holding a key of such a name
-- was taken over: its keys of those names revoked, three keys with every
-- scope issued and a seeded sandbox given to its test keys.
CREATE TABLE demo_organizations (
    organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE
);

-- The demo organizations made before this table: not a sandbox, with a
-- sandbox, and holding both a live key named "demo live key" and a legacy
-- key named "demo legacy key" (revoked or not), as every run of demo
-- leaves them.
INSERT INTO demo_organizations (organization_id)
SELECT o.id
FROM organizations o
WHERE o.sandbox_of IS NULL
  AND EXISTS (SELECT FROM organizations s WHERE s.sandbox_of = o.id)
  AND EXISTS (SELECT FROM api_keys k WHERE k.organization_id = o.id AND k.name = 'demo live key' AND k.mode = 'live')
  AND EXISTS (SELECT FROM api_keys k WHERE k.organization_id = o.id AND k.name = 'demo legacy key' AND k.mode = 'legacy');
