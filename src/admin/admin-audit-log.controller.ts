import { Controller, Get, Param, Query } from '@nestjs/common';
import { AuditEventResponse, toAuditEventResponse } from '../audit/audit-event.mapper';
import { AdminOnly } from '../common/access/access.decorators';
import { PageQueryDto, Pagination, toPage } from '../common/paging/pagination';
import { TenantsService } from '../tenancy/tenants.service';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants/:tenantId/audit-log')
@AdminOnly()
export class AdminAuditLogController {
  constructor(private readonly tenants: TenantsService) {}

  @Get()
  async list(@Param('tenantId', TenantIdPipe) tenantId: string, @Query() query: PageQueryDto): Promise<{ events: AuditEventResponse[]; pagination: Pagination }> {
    const { events, pagination } = await this.tenants.listAuditEvents(tenantId, toPage(query));
    return { events: events.map(toAuditEventResponse), pagination };
  }
}
