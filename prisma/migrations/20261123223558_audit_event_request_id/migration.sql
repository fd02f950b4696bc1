-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "requestId" TEXT;
