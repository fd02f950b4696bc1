import { Controller, Get, Param, Query } from '@nestjs/common';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { NoQueryDto } from '../common/paging/pagination';
import { Scope } from '../tenancy/api-keys/scopes';
import { BotResponse, toBotResponse } from './bot.mapper';
import { BotsService } from './bots.service';

@Controller('api/v1/bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Get()
  @RequireScopes(Scope.BotsRead)
  async list(@Principal() { tenant }: ApiPrincipal, @Query() _query: NoQueryDto): Promise<{ bots: BotResponse[] }> {
    return { bots: (await this.bots.listBots(tenant.id)).map(toBotResponse) };
  }

  @Get(':id')
  @RequireScopes(Scope.BotsRead)
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<{ bot: BotResponse }> {
    return { bot: toBotResponse(await this.bots.getBot(tenant.id, id)) };
  }
}
