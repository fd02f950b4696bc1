import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, RequireScopes, UsersOnly } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import type { Actor } from '../events/actor';
import { CurrentActor } from '../events/actor';
import { ApiIdParam, ApiUserEndpoint, ApiV1Endpoint, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { Scope } from '../common/access/scopes';
import { BotEnvelope, BotListResponse, toBotResponse } from './bot.mapper';
import { BotsService } from './bots.service';
import { CreateBotDto, UpdateBotDto } from './dto/bot.dto';
import { IdOf } from '../common/validation/id.pipe';

@Controller('api/v1/bots')
@ApiTags('Bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Get()
  @ApiV1Endpoint({ operationId: 'listBots', summary: 'List all bots of the tenant', type: BotListResponse })
  @RequireScopes(Scope.BotsRead)
  async list(@Principal() { tenant }: ApiPrincipal): Promise<BotListResponse> {
    return { bots: (await this.bots.listBots(tenant.id)).map(toBotResponse) };
  }

  @Get(':id')
  @ApiV1Endpoint({ operationId: 'getBot', summary: 'Get a bot', type: BotEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @RequireScopes(Scope.BotsRead)
  @ApiIdParam('id', 'Bot')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Bot')) id: string): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.getBot(tenant.id, id)) };
  }

  @Post()
  @HttpCode(201)
  @ApiUserEndpoint({
    operationId: 'createTenantBot',
    summary: 'Create a bot',
    description: "Within the plan's bot limit.",
    status: 201,
    type: BotEnvelope,
    errors: [...JSON_BODY_ERRORS, ErrorCode.PLAN_LIMIT_REACHED],
  })
  @UsersOnly('manager')
  async create(@Principal() { tenant }: ApiPrincipal, @Body() body: CreateBotDto, @CurrentActor() actor: Actor): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.createBot(tenant.id, body, actor)) };
  }

  @Patch(':id')
  @ApiUserEndpoint({
    operationId: 'updateTenantBot',
    summary: 'Change a bot’s settings or switch it on or off',
    description: 'Emits `bot.updated` to the webhooks when something changed.',
    type: BotEnvelope,
    errors: [...JSON_BODY_ERRORS, ErrorCode.NOT_FOUND],
  })
  @UsersOnly('manager')
  @ApiIdParam('id', 'Bot')
  async update(
    @Principal() { tenant }: ApiPrincipal,
    @Param('id', IdOf('Bot')) id: string,
    @Body() body: UpdateBotDto,
    @CurrentActor() actor: Actor,
  ): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.updateBot(tenant.id, id, body, actor)) };
  }
}
