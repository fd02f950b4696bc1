-- Trigram matching for lead search (the indexes at the end use it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('free', 'pro', 'business', 'enterprise');

-- CreateEnum
CREATE TYPE "ApiKeyType" AS ENUM ('secret', 'public');

-- CreateEnum
CREATE TYPE "LeadSource" AS ENUM ('widget', 'api', 'import');

-- CreateEnum
CREATE TYPE "LeadStatus" AS ENUM ('new', 'contacted', 'qualified', 'unqualified', 'converted');

-- CreateEnum
CREATE TYPE "ConversationStatus" AS ENUM ('active', 'ended', 'handed_off');

-- CreateEnum
CREATE TYPE "ConversationChannel" AS ENUM ('widget', 'api');

-- CreateEnum
CREATE TYPE "MessageRole" AS ENUM ('user', 'assistant', 'agent');

-- CreateTable
CREATE TABLE "Tenant" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "plan" "Plan" NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Tenant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" "ApiKeyType" NOT NULL,
    "scopes" TEXT[],
    "digest" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "deletedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Bot" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "avatarUrl" TEXT,
    "primaryColor" TEXT NOT NULL DEFAULT '#2563eb',
    "language" TEXT NOT NULL DEFAULT 'en',
    "messageCount" INTEGER NOT NULL DEFAULT 0,
    "conversationCount" INTEGER NOT NULL DEFAULT 0,
    "knowledgeBaseSize" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Bot_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KnowledgeDocument" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "botId" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KnowledgeDocument_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Conversation" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "botId" UUID NOT NULL,
    "status" "ConversationStatus" NOT NULL DEFAULT 'active',
    "channel" "ConversationChannel" NOT NULL DEFAULT 'widget',
    "visitorId" TEXT,
    "leadId" UUID,
    "messageCount" INTEGER NOT NULL DEFAULT 0,
    "lastMessageAt" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "conversationId" UUID NOT NULL,
    "role" "MessageRole" NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Lead" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "botId" UUID,
    "conversationId" UUID,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "phone" TEXT,
    "company" TEXT,
    "message" TEXT,
    "source" "LeadSource" NOT NULL,
    "status" "LeadStatus" NOT NULL DEFAULT 'new',
    "tags" TEXT[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Lead_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" UUID NOT NULL,
    "tenantId" UUID NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "targetType" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Tenant_slug_key" ON "Tenant"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_digest_key" ON "ApiKey"("digest");

-- CreateIndex
CREATE INDEX "ApiKey_tenantId_createdAt_idx" ON "ApiKey"("tenantId", "createdAt");

-- CreateIndex
CREATE INDEX "Bot_tenantId_createdAt_id_idx" ON "Bot"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "KnowledgeDocument_botId_idx" ON "KnowledgeDocument"("botId");

-- CreateIndex
CREATE INDEX "KnowledgeDocument_tenantId_idx" ON "KnowledgeDocument"("tenantId");

-- CreateIndex
CREATE INDEX "Conversation_tenantId_createdAt_id_idx" ON "Conversation"("tenantId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Conversation_tenantId_botId_createdAt_id_idx" ON "Conversation"("tenantId", "botId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Conversation_tenantId_status_createdAt_id_idx" ON "Conversation"("tenantId", "status", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Conversation_botId_idx" ON "Conversation"("botId");

-- CreateIndex
CREATE INDEX "Message_conversationId_createdAt_id_idx" ON "Message"("conversationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Message_tenantId_idx" ON "Message"("tenantId");

-- CreateIndex
CREATE INDEX "Lead_tenantId_createdAt_id_idx" ON "Lead"("tenantId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Lead_tenantId_botId_createdAt_id_idx" ON "Lead"("tenantId", "botId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Lead_botId_idx" ON "Lead"("botId");

-- CreateIndex
CREATE INDEX "Lead_conversationId_idx" ON "Lead"("conversationId");

-- CreateIndex
CREATE INDEX "Lead_name_trgm_idx" ON "Lead" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_email_trgm_idx" ON "Lead" USING GIN ("email" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "Lead_company_trgm_idx" ON "Lead" USING GIN ("company" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_createdAt_id_idx" ON "AuditEvent"("tenantId", "createdAt" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Bot" ADD CONSTRAINT "Bot_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgeDocument" ADD CONSTRAINT "KnowledgeDocument_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KnowledgeDocument" ADD CONSTRAINT "KnowledgeDocument_botId_fkey" FOREIGN KEY ("botId") REFERENCES "Bot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_botId_fkey" FOREIGN KEY ("botId") REFERENCES "Bot"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lead" ADD CONSTRAINT "Lead_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lead" ADD CONSTRAINT "Lead_botId_fkey" FOREIGN KEY ("botId") REFERENCES "Bot"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Lead" ADD CONSTRAINT "Lead_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuditEvent" ADD CONSTRAINT "AuditEvent_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Tenant"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Counters on bots and conversations follow their rows in the same transaction, whatever
-- writes them (the API, the admin API, bulk loads, manual fixes), so they always equal what the
-- API would count. A move between parents is a removal from the old one and an addition to the
-- new one.
CREATE FUNCTION "count_knowledge_documents"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "Bot" SET "knowledgeBaseSize" = "knowledgeBaseSize" - 1 WHERE "id" = OLD."botId";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "Bot" SET "knowledgeBaseSize" = "knowledgeBaseSize" + 1 WHERE "id" = NEW."botId";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "KnowledgeDocument_count" AFTER INSERT OR DELETE OR UPDATE OF "botId" ON "KnowledgeDocument"
  FOR EACH ROW EXECUTE FUNCTION "count_knowledge_documents"();

CREATE FUNCTION "count_conversations"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."botId" IS NOT DISTINCT FROM NEW."botId" THEN
    RETURN NULL;
  END IF;
  -- Messages deleted by the cascade no longer find their conversation, so the bot loses the
  -- conversation's messages here, once.
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "Bot" SET "conversationCount" = "conversationCount" - 1, "messageCount" = "messageCount" - OLD."messageCount"
      WHERE "id" = OLD."botId";
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "Bot" SET "conversationCount" = "conversationCount" + 1, "messageCount" = "messageCount" + NEW."messageCount"
      WHERE "id" = NEW."botId";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Conversation_count" AFTER INSERT OR DELETE OR UPDATE OF "botId" ON "Conversation"
  FOR EACH ROW EXECUTE FUNCTION "count_conversations"();

CREATE FUNCTION "count_messages"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  conversation_bot UUID;
BEGIN
  IF TG_OP = 'UPDATE' AND OLD."conversationId" IS NOT DISTINCT FROM NEW."conversationId" AND OLD."createdAt" IS NOT DISTINCT FROM NEW."createdAt" THEN
    RETURN NULL;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE "Conversation"
      SET "messageCount" = "messageCount" - 1,
          "lastMessageAt" = (SELECT max(m."createdAt") FROM "Message" m WHERE m."conversationId" = OLD."conversationId")
      WHERE "id" = OLD."conversationId"
      RETURNING "botId" INTO conversation_bot;
    IF conversation_bot IS NOT NULL THEN
      UPDATE "Bot" SET "messageCount" = "messageCount" - 1 WHERE "id" = conversation_bot;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE "Conversation"
      SET "messageCount" = "messageCount" + 1,
          "lastMessageAt" = GREATEST("lastMessageAt", NEW."createdAt")
      WHERE "id" = NEW."conversationId"
      RETURNING "botId" INTO conversation_bot;
    UPDATE "Bot" SET "messageCount" = "messageCount" + 1 WHERE "id" = conversation_bot;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Message_count" AFTER INSERT OR DELETE OR UPDATE OF "conversationId", "createdAt" ON "Message"
  FOR EACH ROW EXECUTE FUNCTION "count_messages"();
