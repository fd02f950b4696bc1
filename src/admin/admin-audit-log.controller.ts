import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuditEventListResponse, toAuditEventResponse } from '../audit/audit-event.mapper';
import { AuditLogService } from '../audit/audit-log.service';
import { AdminOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { ApiAdminEndpoint, ApiIdParam } from '../openapi/openapi.decorators';
import { toPage } from '../common/paging/pagination';
import { ListAuditEventsQueryDto } from '../audit/dto/list-audit-events.query';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants/:tenantId/audit-log')
@AdminOnly()
@ApiTags('Admin')
export class AdminAuditLogController {
  constructor(private readonly auditLog: AuditLogService) {}

  @Get()
  @ApiAdminEndpoint({
    operationId: 'listAuditEvents',
    summary: 'List the audit log of a tenant, newest first',
    type: AuditEventListResponse,
    errors: [ErrorCode.VALIDATION_ERROR],
  })
  @ApiIdParam('tenantId', 'Tenant')
  async list(@Param('tenantId', TenantIdPipe) tenantId: string, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponse> {
    const { events, pagination } = await this.auditLog.listEvents(tenantId, query, toPage(query));
    return { events: events.map(toAuditEventResponse), pagination };
  }
}
