-- CreateEnum
CREATE TYPE "PrivacyErasureStatus" AS ENUM ('pending', 'completed');

-- AlterTable
ALTER TABLE "IdempotencyRecord" ADD COLUMN     "erasedAt" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "conversationRetentionDays" INTEGER,
ADD COLUMN     "leadRetentionDays" INTEGER;

-- CreateTable
CREATE TABLE "PrivacyErasure" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "status" "PrivacyErasureStatus" NOT NULL DEFAULT 'pending',
    "emails" TEXT[],
    "names" TEXT[],
    "visitorIds" TEXT[],
    "leadIds" UUID[],
    "conversationIds" UUID[],
    "leadCount" INTEGER NOT NULL,
    "conversationCount" INTEGER NOT NULL,
    "messageCount" INTEGER NOT NULL,
    "step" INTEGER NOT NULL DEFAULT 0,
    "leaseUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedAt" TIMESTAMPTZ(3),

    CONSTRAINT "PrivacyErasure_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BackgroundJob" (
    "name" TEXT NOT NULL,
    "runAfter" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseUntil" TIMESTAMPTZ(3),

    CONSTRAINT "BackgroundJob_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "PrivacyErasure_status_createdAt_idx" ON "PrivacyErasure"("status", "createdAt");

-- CreateIndex
CREATE INDEX "PrivacyErasure_tenantId_createdAt_idx" ON "PrivacyErasure"("tenantId", "createdAt");

-- AddForeignKey
ALTER TABLE "PrivacyErasure" ADD CONSTRAINT "PrivacyErasure_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
