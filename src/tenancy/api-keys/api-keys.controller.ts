import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../../common/access/access.decorators';
import { ErrorCode } from '../../common/errors/error-codes';
import type { ApiPrincipal } from '../../common/http/request-context';
import type { Actor } from '../../events/actor';
import { CurrentActor } from '../../events/actor';
import { ApiIdParam, ApiUserEndpoint, JSON_BODY_ERRORS } from '../../openapi/openapi.decorators';
import {
  ApiKeyActivityResponse,
  ApiKeyListResponse,
  CreatedApiKeyResponse,
  toApiKeyActivityResponse,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './api-key.mapper';
import { ApiKeyActivityService } from './api-key-activity.service';
import { ApiKeysService } from './api-keys.service';
import { CreateApiKeyDto, toCreateKeyInput } from './dto/create-api-key.dto';
import { IdOf } from '../../common/validation/id.pipe';

/** The tenant's API keys, managed by its owners and admins from the dashboard (the admin API's, for users). */
@Controller('api/v1/api-keys')
@ApiTags('API keys')
export class ApiKeysController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly activity: ApiKeyActivityService,
  ) {}

  @Get()
  @ApiUserEndpoint({
    operationId: 'listTenantApiKeys',
    summary: 'List the API keys of the tenant',
    description: 'Oldest first; never the keys themselves.',
    type: ApiKeyListResponse,
  })
  @UsersOnly('manager')
  async list(@Principal() { tenant }: ApiPrincipal): Promise<ApiKeyListResponse> {
    return { apiKeys: (await this.apiKeys.listKeys(tenant.id)).map(toApiKeyResponse) };
  }

  /** The one answer that carries the full key. */
  @Post()
  @HttpCode(201)
  @ApiUserEndpoint({
    operationId: 'createTenantApiKey',
    summary: 'Create an API key',
    description:
      'The answer carries the full key, once; only its digest is stored. A secret key needs the Pro plan or higher; a public key (the widget) works on every plan and takes no scopes.',
    status: 201,
    type: CreatedApiKeyResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_UPGRADE_REQUIRED],
  })
  @UsersOnly('manager')
  async create(@Principal() { tenant }: ApiPrincipal, @Body() body: CreateApiKeyDto, @CurrentActor() actor: Actor): Promise<CreatedApiKeyResponse> {
    return toCreatedApiKeyResponse(await this.apiKeys.createKey(tenant.id, toCreateKeyInput(body), actor));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiUserEndpoint({
    operationId: 'deleteTenantApiKey',
    summary: 'Delete an API key',
    description: 'The key is refused from the next request on.',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @UsersOnly('manager')
  @ApiIdParam('id', 'API key')
  async delete(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('API key')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.apiKeys.revokeKey(tenant.id, id, actor);
  }

  @Get(':id/activity')
  @ApiUserEndpoint({
    operationId: 'getApiKeyActivity',
    summary: 'Requests and errors of an API key per day',
    description: `The last 30 UTC days, zeros included. Each instance counts in memory and stores its counts every few seconds; the answer adds this instance's counts not stored yet, so another instance's last seconds may be missing.`,
    type: ApiKeyActivityResponse,
    errors: [ErrorCode.NOT_FOUND],
  })
  @UsersOnly('manager')
  @ApiIdParam('id', 'API key')
  async activityOf(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('API key')) id: string): Promise<ApiKeyActivityResponse> {
    return toApiKeyActivityResponse(await this.activity.keyActivity(tenant.id, id));
  }
}
