ALTER TABLE webhook_endpoints
    DROP CONSTRAINT webhook_endpoints_previous_secret_check,
    DROP COLUMN previous_secret_expires_at,
    DROP COLUMN previous_secret;
