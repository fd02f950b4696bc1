import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiAdminEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { TenantEnvelope, toTenantResponse } from '../tenancy/tenant.mapper';
import { TenantsService } from '../tenancy/tenants.service';
import { CreateTenantDto, UpdateTenantDto } from '../tenancy/dto/tenant.dto';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants')
@AdminOnly()
@ApiTags('Admin')
export class AdminTenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post()
  @HttpCode(201)
  @ApiAdminEndpoint({
    operationId: 'createTenant',
    summary: 'Create a tenant',
    status: 201,
    type: TenantEnvelope,
    errors: [...JSON_BODY_ERRORS, ErrorCode.CONFLICT],
  })
  async create(@Body() body: CreateTenantDto, @CurrentActor() actor: Actor): Promise<TenantEnvelope> {
    return { tenant: toTenantResponse(await this.tenants.createTenant(body, actor)) };
  }

  @Get(':tenantId')
  @ApiAdminEndpoint({ operationId: 'getTenant', summary: 'Get a tenant', type: TenantEnvelope })
  @ApiIdParam('tenantId', 'Tenant')
  async get(@Param('tenantId', TenantIdPipe) tenantId: string): Promise<TenantEnvelope> {
    return { tenant: toTenantResponse(await this.tenants.getTenant(tenantId)) };
  }

  @Patch(':tenantId')
  @ApiAdminEndpoint({
    operationId: 'updateTenant',
    summary: 'Rename a tenant or change its plan',
    description: 'A plan change applies from the next request on and is audited.',
    type: TenantEnvelope,
    errors: JSON_BODY_ERRORS,
  })
  @ApiIdParam('tenantId', 'Tenant')
  async update(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: UpdateTenantDto, @CurrentActor() actor: Actor): Promise<TenantEnvelope> {
    return { tenant: toTenantResponse(await this.tenants.updateTenant(tenantId, body, actor)) };
  }
}
