import { Module } from '@nestjs/common';
import { TenancyModule } from '../tenancy/tenancy.module';
import { AuditLogRepository } from './audit-log.repository';
import { AuditLogService } from './audit-log.service';

@Module({ imports: [TenancyModule], providers: [AuditLogRepository, AuditLogService], exports: [AuditLogService] })
export class AuditModule {}
