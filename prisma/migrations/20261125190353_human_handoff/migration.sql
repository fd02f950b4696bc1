-- AlterTable
ALTER TABLE "Bot" ADD COLUMN     "handoffEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "handoffMessage" TEXT NOT NULL DEFAULT 'A member of our team will join you here shortly.',
ADD COLUMN     "handoffOnFallback" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN     "assigneeId" UUID,
ADD COLUMN     "handedOffAt" TIMESTAMPTZ(3),
ADD COLUMN     "waitingSince" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "authorName" TEXT;

-- CreateIndex
CREATE INDEX "Conversation_assigneeId_idx" ON "Conversation"("assigneeId");

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_assigneeId_fkey" FOREIGN KEY ("assigneeId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
