import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiAdminEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { ApiKeyListResponse, CreatedApiKeyResponse, toApiKeyResponse, toCreatedApiKeyResponse } from '../tenancy/api-keys/api-key.mapper';
import { ApiKeysService } from '../tenancy/api-keys/api-keys.service';
import { CreateApiKeyDto, toCreateKeyInput } from '../tenancy/api-keys/dto/create-api-key.dto';
import { TenantIdPipe } from './tenant-id.pipe';
import { IdOf } from '../common/validation/id.pipe';

@Controller('admin/v1/tenants/:tenantId/api-keys')
@AdminOnly()
@ApiTags('Admin')
export class AdminApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  /** The one answer that carries the full key. */
  @Post()
  @HttpCode(201)
  @ApiAdminEndpoint({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'The answer carries the full key, once; only its digest is stored. A secret key needs the Pro plan or higher; a public key (the widget) works on every plan.',
    status: 201,
    type: CreatedApiKeyResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_UPGRADE_REQUIRED],
  })
  @ApiIdParam('tenantId', 'Tenant')
  async create(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: CreateApiKeyDto, @CurrentActor() actor: Actor): Promise<CreatedApiKeyResponse> {
    return toCreatedApiKeyResponse(await this.apiKeys.createKey(tenantId, toCreateKeyInput(body), actor));
  }

  @Get()
  @ApiAdminEndpoint({ operationId: 'listApiKeys', summary: 'List the API keys of a tenant', type: ApiKeyListResponse })
  @ApiIdParam('tenantId', 'Tenant')
  async list(@Param('tenantId', TenantIdPipe) tenantId: string): Promise<ApiKeyListResponse> {
    return { apiKeys: (await this.apiKeys.listKeys(tenantId)).map(toApiKeyResponse) };
  }

  @Delete(':keyId')
  @HttpCode(204)
  @ApiAdminEndpoint({ operationId: 'deleteApiKey', summary: 'Delete an API key', description: 'The key is refused from the next request on.', status: 204 })
  @ApiIdParam('tenantId', 'Tenant')
  @ApiIdParam('keyId', 'API key')
  async delete(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('keyId', IdOf('API key')) keyId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.apiKeys.revokeKey(tenantId, keyId, actor);
  }
}
