import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { AdminOnly } from '../common/access/access.decorators';
import { NotFoundError } from '../common/errors/app-error';
import { isUuid } from '../common/validation/uuid';
import { ApiKeyResponse, toApiKeyResponse } from '../tenancy/api-keys/api-key.mapper';
import { ApiKeysService } from '../tenancy/api-keys/api-keys.service';
import { CreateApiKeyDto } from './dto/api-key.dto';
import { TenantIdPipe } from './tenant-id.pipe';

@Controller('admin/v1/tenants/:tenantId/api-keys')
@AdminOnly()
export class AdminApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  /** The one answer that carries the full key. */
  @Post()
  @HttpCode(201)
  async create(@Param('tenantId', TenantIdPipe) tenantId: string, @Body() body: CreateApiKeyDto): Promise<{ apiKey: ApiKeyResponse; key: string }> {
    const { apiKey, key } = await this.apiKeys.createKey(tenantId, {
      name: body.name,
      scopes: body.scopes,
      type: body.type ?? 'secret',
      expiresAt: body.expiresAt ?? null,
    });
    return { apiKey: toApiKeyResponse(apiKey), key };
  }

  @Get()
  async list(@Param('tenantId', TenantIdPipe) tenantId: string): Promise<{ apiKeys: ApiKeyResponse[] }> {
    return { apiKeys: (await this.apiKeys.listKeys(tenantId)).map(toApiKeyResponse) };
  }

  @Delete(':keyId')
  @HttpCode(204)
  async delete(@Param('tenantId', TenantIdPipe) tenantId: string, @Param('keyId') keyId: string): Promise<void> {
    if (!isUuid(keyId)) throw new NotFoundError('API key');
    await this.apiKeys.revokeKey(tenantId, keyId);
  }
}
