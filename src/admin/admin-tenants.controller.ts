import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { AdminOnly } from '../common/access/access.decorators';
import { toTenantResponse, TenantResponse } from '../tenancy/tenant.mapper';
import { TenantsService } from '../tenancy/tenants.service';
import { CreateTenantDto, UpdateTenantDto } from './dto/tenant.dto';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants')
@AdminOnly()
export class AdminTenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: CreateTenantDto): Promise<{ tenant: TenantResponse }> {
    return { tenant: toTenantResponse(await this.tenants.createTenant(body)) };
  }

  @Get(':tenantId')
  async get(@Param('tenantId', TenantIdPipe) tenantId: string): Promise<{ tenant: TenantResponse }> {
    return { tenant: toTenantResponse(await this.tenants.getTenant(tenantId)) };
  }

  @Patch(':tenantId')
  async update(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: UpdateTenantDto): Promise<{ tenant: TenantResponse }> {
    return { tenant: toTenantResponse(await this.tenants.updateTenant(tenantId, body)) };
  }
}
