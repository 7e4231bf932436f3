-- Version 5 -> 6: a header an endpoint's deliveries carry (n8n's Header
-- Auth), its token sealed like the signing secret.
ALTER TABLE webhook_endpoints ADD COLUMN auth_header_name TEXT;
ALTER TABLE webhook_endpoints ADD COLUMN auth_header_token TEXT;
