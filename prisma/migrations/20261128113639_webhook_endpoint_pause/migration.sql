-- Fair claims and paused endpoints (issue 32). The claim walks the endpoints that have due
-- deliveries, one index probe each (status, endpoint, due time), instead of reading the oldest due
-- deliveries of all tenants first; it replaces the (status, nextAttemptAt) index, which nothing
-- else reads. An endpoint whose attempts time out or fail to connect 5 times in a row is paused.

-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "pausedUntil" TIMESTAMPTZ(3),
ADD COLUMN     "pauses" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "unreachableStreak" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_endpointId_nextAttemptAt_idx" ON "WebhookDelivery"("status", "endpointId", "nextAttemptAt");

-- Dropped last: DROP INDEX locks out reads of WebhookDelivery until the migration commits, which is
-- then at once.
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";
