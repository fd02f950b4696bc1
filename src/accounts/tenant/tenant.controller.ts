import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../../common/access/access.decorators';
import type { ApiPrincipal } from '../../common/http/request-context';
import { CurrentActor, type Actor } from '../../events/actor';
import { ApiUserEndpoint, JSON_BODY_ERRORS } from '../../openapi/openapi.decorators';
import { RenameTenantDto } from '../dto/tenant.dto';
import { TenantAccountEnvelope } from './tenant-account.mapper';
import { TenantAccountService } from './tenant-account.service';

@Controller('api/v1/tenant')
@ApiTags('Tenant')
export class TenantController {
  constructor(private readonly tenant: TenantAccountService) {}

  @Get()
  @ApiUserEndpoint({ operationId: 'getCurrentTenant', summary: 'The tenant: plan, limits and usage', type: TenantAccountEnvelope })
  @UsersOnly('member')
  async get(@Principal() { tenant }: ApiPrincipal): Promise<TenantAccountEnvelope> {
    return { tenant: await this.tenant.view(tenant.id) };
  }

  @Patch()
  @ApiUserEndpoint({ operationId: 'renameCurrentTenant', summary: 'Rename the tenant', type: TenantAccountEnvelope, errors: JSON_BODY_ERRORS })
  @UsersOnly('manager')
  async rename(@Principal() { tenant }: ApiPrincipal, @Body() body: RenameTenantDto, @CurrentActor() actor: Actor): Promise<TenantAccountEnvelope> {
    return { tenant: await this.tenant.rename(tenant.id, body.name, actor) };
  }
}
