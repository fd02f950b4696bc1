import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogController } from './audit-log.controller';
import { AuditLogService } from './audit-log.service';

@Module({ imports: [TenancyModule], controllers: [AuditLogController], providers: [AuditLogRepository, AuditLogService], exports: [AuditLogService] })
export class AuditModule {}
