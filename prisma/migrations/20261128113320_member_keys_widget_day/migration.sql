-- Existing keys keep createdBy null: who made them was not recorded, and the API answers null (unknown) for them.
-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "createdBy" TEXT,
ADD COLUMN     "createdByUserId" UUID;

-- AlterTable
ALTER TABLE "MessageUsage" ADD COLUMN     "widgetDay" DATE,
ADD COLUMN     "widgetDayCount" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "widgetRepliesPerDay" INTEGER;

-- CreateIndex
CREATE INDEX "ApiKey_tenantId_createdByUserId_idx" ON "ApiKey"("tenantId", "createdByUserId");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_createdByUserId_fkey" FOREIGN KEY ("createdByUserId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
