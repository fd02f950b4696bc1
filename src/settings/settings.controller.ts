import { Body, Controller, Get, Param, Patch } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import { type Actor, CurrentActor } from '../events/actor';
import { ApiIdParam, ApiV1Endpoint, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { UpdateBotSettingsDto } from './dto/update-bot-settings.dto';
import { UpdateTenantSettingsDto } from './dto/update-tenant-settings.dto';
import { BotSettingsEnvelope, TenantSettingsEnvelope, toBotSettings, toTenantSettings } from './settings.mapper';
import { SettingsService } from './settings.service';
import { IdOf } from '../common/validation/id.pipe';

const PATCH_RULES =
  'Partial: only the fields sent change (nested objects too); `null` is refused; an empty body is 400. A change is an audit event with the key as the actor; ' +
  'sending the current values changes nothing.';

@Controller('api/v1')
@ApiTags('Settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get('settings')
  @ApiV1Endpoint({ operationId: 'getSettings', summary: "Get the tenant's settings", type: TenantSettingsEnvelope })
  @RequireScopes(Scope.SettingsRead)
  async getTenantSettings(@Principal() { tenant }: ApiPrincipal): Promise<TenantSettingsEnvelope> {
    return { settings: toTenantSettings(await this.settings.getTenantSettings(tenant.id)) };
  }

  @Patch('settings')
  @ApiV1Endpoint({
    operationId: 'updateSettings',
    summary: "Change the tenant's settings",
    description: PATCH_RULES,
    type: TenantSettingsEnvelope,
    errors: [...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.SettingsWrite)
  async updateTenantSettings(
    @Principal() { tenant }: ApiPrincipal,
    @Body() body: UpdateTenantSettingsDto,
    @CurrentActor() actor: Actor,
  ): Promise<TenantSettingsEnvelope> {
    return { settings: toTenantSettings(await this.settings.updateTenantSettings(tenant.id, body, actor)) };
  }

  @Get('bots/:id/settings')
  @ApiV1Endpoint({
    operationId: 'getBotSettings',
    summary: "Get a bot's widget settings",
    type: BotSettingsEnvelope,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.SettingsRead)
  @ApiIdParam('id', 'Bot')
  async getBotSettings(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Bot')) id: string): Promise<BotSettingsEnvelope> {
    return { settings: toBotSettings(await this.settings.getBotSettings(tenant.id, id)) };
  }

  @Patch('bots/:id/settings')
  @ApiV1Endpoint({
    operationId: 'updateBotSettings',
    summary: "Change a bot's widget settings",
    description: `${PATCH_RULES} A bot's state (\`isActive\`) is not a setting: no API operation changes it.`,
    type: BotSettingsEnvelope,
    errors: [ErrorCode.NOT_FOUND, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.SettingsWrite)
  @ApiIdParam('id', 'Bot')
  async updateBotSettings(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) id: string,
    @Body() body: UpdateBotSettingsDto,
    @CurrentActor() actor: Actor,
  ): Promise<BotSettingsEnvelope> {
    return { settings: toBotSettings(await this.settings.updateBotSettings(tenant.id, id, body, actor)) };
  }
}
