-- Deliveries indexed by endpoint first: deleting an endpoint cascades with
-- `DELETE FROM "WebhookDelivery" WHERE "endpointId" = $1`, which the tenant-led index could not
-- serve (a scan of every delivery of every tenant, under the delete's locks). The endpoint's own
-- queries (its deliveries page, the failing check) name the tenant too and read it as a filter:
-- an endpoint's deliveries are all of one tenant. Replaced rather than added: no extra index
-- to write on every event. Building it holds off writes to WebhookDelivery; reads go on.

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_id_idx" ON "WebhookDelivery"("endpointId", "createdAt" DESC, "id" DESC);

-- Dropped last: DROP INDEX locks out reads of WebhookDelivery until the migration commits, which is
-- then at once.
DROP INDEX "WebhookDelivery_tenantId_endpointId_createdAt_id_idx";
