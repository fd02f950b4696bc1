import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint } from '../openapi/openapi.decorators';
import { NoQueryDto } from '../common/paging/pagination';
import { Scope } from '../common/access/scopes';
import { BotEnvelope, BotListResponse, toBotResponse } from './bot.mapper';
import { BotsService } from './bots.service';

@Controller('api/v1/bots')
@ApiTags('Bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Get()
  @ApiV1Endpoint({ operationId: 'listBots', summary: 'List all bots of the tenant', scopes: [Scope.BotsRead], type: BotListResponse })
  async list(@Principal() { tenant }: ApiPrincipal, @Query() _query: NoQueryDto): Promise<BotListResponse> {
    return { bots: (await this.bots.listBots(tenant.id)).map(toBotResponse) };
  }

  @Get(':id')
  @ApiV1Endpoint({ operationId: 'getBot', summary: 'Get a bot', scopes: [Scope.BotsRead], type: BotEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @ApiIdParam('id', 'Bot')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<BotEnvelope> {
    return { bot: toBotResponse(await this.bots.getBot(tenant.id, id)) };
  }
}
