-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "widgetRepliesPerIpPerDay" INTEGER NOT NULL DEFAULT 200;
