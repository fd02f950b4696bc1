-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "visitorEmail" TEXT,
ADD COLUMN     "visitorExternalId" TEXT,
ADD COLUMN     "visitorName" TEXT;

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "identityRequired" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "identitySecret" TEXT;

-- CreateTable
CREATE TABLE "Visitor" (
    "tenantId" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "email" TEXT,
    "name" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Visitor_pkey" PRIMARY KEY ("tenantId","id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Visitor_tenantId_externalId_key" ON "Visitor"("tenantId", "externalId");

-- CreateIndex
CREATE INDEX "Conversation_tenantId_visitorId_createdAt_id_idx" ON "Conversation"("tenantId", "visitorId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "Visitor" ADD CONSTRAINT "Visitor_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
