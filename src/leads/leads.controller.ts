import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import type { ApiPrincipal } from '../common/http/request-context';
import { NoQueryDto, Pagination, toPage } from '../common/paging/pagination';
import { Scope } from '../tenancy/api-keys/scopes';
import { CreateLeadDto } from './dto/create-lead.dto';
import { ListLeadsQueryDto } from './dto/list-leads.query';
import { UpdateLeadDto } from './dto/update-lead.dto';
import { LeadResponse, toLeadResponse } from './lead.mapper';
import { LeadsService } from './leads.service';

@Controller('api/v1/leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @RequireScopes(Scope.LeadsRead)
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListLeadsQueryDto): Promise<{ leads: LeadResponse[]; pagination: Pagination }> {
    const { leads, pagination } = await this.leads.listLeads(tenant.id, query, toPage(query));
    return { leads: leads.map(toLeadResponse), pagination };
  }

  @Get(':id')
  @RequireScopes(Scope.LeadsRead)
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<{ lead: LeadResponse }> {
    return { lead: toLeadResponse(await this.leads.getLead(tenant.id, id)) };
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.LeadsWrite)
  async create(
    @Principal() { tenant }: ApiPrincipal,
    @Body() body: CreateLeadDto,
    @Query() _query: NoQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ lead: LeadResponse }> {
    const lead = await this.leads.captureLead(tenant.id, body);
    response.location(`/api/v1/leads/${lead.id}`);
    return { lead: toLeadResponse(lead) };
  }

  @Patch(':id')
  @RequireScopes(Scope.LeadsWrite)
  async update(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Body() body: UpdateLeadDto, @Query() _query: NoQueryDto): Promise<{ lead: LeadResponse }> {
    return { lead: toLeadResponse(await this.leads.changeStatus(tenant.id, id, body.status)) };
  }
}
