-- DropIndex
DROP INDEX "Message_tenantId_idx";

-- AlterTable
ALTER TABLE "Bot" ADD COLUMN     "fallbackMessage" TEXT NOT NULL DEFAULT 'Sorry, I don''t know the answer to that yet. Leave your contact details and we will get back to you.',
ADD COLUMN     "showSources" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "suggestedQuestions" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "welcomeMessage" TEXT DEFAULT 'Hi! How can I help you today?';

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "unanswered" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "allowedOrigins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "leadCaptureEnabled" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "leadCaptureRequireCompany" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "leadCaptureRequirePhone" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "timezone" TEXT NOT NULL DEFAULT 'UTC',
ADD COLUMN     "visitorMessageLimit" INTEGER NOT NULL DEFAULT 20,
ADD COLUMN     "visitorMessageWindowSeconds" INTEGER NOT NULL DEFAULT 60;

-- CreateIndex
CREATE INDEX "Message_tenantId_createdAt_idx" ON "Message"("tenantId", "createdAt");
