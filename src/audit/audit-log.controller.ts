import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { toPage } from '../common/paging/pagination';
import { ApiUserEndpoint } from '../openapi/openapi.decorators';
import { AuditEventListResponse, toAuditEventResponse } from './audit-event.mapper';
import { AuditLogService } from './audit-log.service';
import { ListAuditEventsQueryDto } from './dto/list-audit-events.query';

@Controller('api/v1/audit-log')
@ApiTags('Audit log')
export class AuditLogController {
  constructor(private readonly auditLog: AuditLogService) {}

  @Get()
  @ApiUserEndpoint({
    operationId: 'listTenantAuditEvents',
    summary: 'List the audit log of the tenant, newest first',
    type: AuditEventListResponse,
  })
  @UsersOnly('manager')
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListAuditEventsQueryDto): Promise<AuditEventListResponse> {
    const { events, pagination } = await this.auditLog.listEvents(tenant.id, query, toPage(query));
    return { events: events.map(toAuditEventResponse), pagination };
  }
}
