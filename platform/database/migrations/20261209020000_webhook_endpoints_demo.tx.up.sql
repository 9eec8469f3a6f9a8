-- A webhook endpoint carries demo as every v2 record does: true when a test
-- key registered it (docs/webhooks.md, "Endpoints API"). A test key of an
-- organization without a sandbox registers on the organization itself, and
-- its endpoint receives the organization's live changes; the flag lets it be
-- found and removed. The existing endpoints in a sandbox, or registered by a
-- test key, are marked; one outside a sandbox with no recorded key stays
-- false. A constant default: no rewrite, only a brief lock; the marking
-- touches a few rows (at most 25 endpoints per organization).
ALTER TABLE webhook_endpoints ADD COLUMN IF NOT EXISTS demo boolean NOT NULL DEFAULT false;

UPDATE webhook_endpoints e SET demo = true
WHERE EXISTS (SELECT FROM organizations o WHERE o.id = e.organization_id AND o.sandbox_of IS NOT NULL)
   OR EXISTS (SELECT FROM api_keys k WHERE k.id = e.created_by_key_id AND k.mode = 'test');
