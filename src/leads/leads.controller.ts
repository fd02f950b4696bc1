import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint, headerRef } from '../common/openapi/openapi.decorators';
import { NoQueryDto, toPage } from '../common/paging/pagination';
import { Scope } from '../tenancy/api-keys/scopes';
import { CreateLeadDto } from './dto/create-lead.dto';
import { ListLeadsQueryDto } from './dto/list-leads.query';
import { UpdateLeadDto } from './dto/update-lead.dto';
import { LeadEnvelope, LeadListResponse, toLeadResponse } from './lead.mapper';
import { LeadsService } from './leads.service';

const BODY_ERRORS = [ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE];

@Controller('api/v1/leads')
@ApiTags('Leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @RequireScopes(Scope.LeadsRead)
  @ApiV1Endpoint({ operationId: 'listLeads', summary: 'List leads, newest first', scopes: [Scope.LeadsRead], type: LeadListResponse })
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListLeadsQueryDto): Promise<LeadListResponse> {
    const { leads, pagination } = await this.leads.listLeads(tenant.id, query, toPage(query));
    return { leads: leads.map(toLeadResponse), pagination };
  }

  @Get(':id')
  @RequireScopes(Scope.LeadsRead)
  @ApiV1Endpoint({ operationId: 'getLead', summary: 'Get a lead', scopes: [Scope.LeadsRead], type: LeadEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @ApiIdParam('id', 'Lead')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<LeadEnvelope> {
    return { lead: toLeadResponse(await this.leads.getLead(tenant.id, id)) };
  }

  @Post()
  @HttpCode(201)
  @RequireScopes(Scope.LeadsWrite)
  @ApiV1Endpoint({
    operationId: 'createLead',
    summary: 'Create a lead',
    description: 'The lead gets source `api`, status `new` and no conversation. Strings are trimmed.',
    scopes: [Scope.LeadsWrite],
    status: 201,
    type: LeadEnvelope,
    headers: { Location: headerRef('Location') },
    errors: BODY_ERRORS,
  })
  async create(
    @Principal() { tenant }: ApiPrincipal,
    @Body() body: CreateLeadDto,
    @Query() _query: NoQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LeadEnvelope> {
    const lead = await this.leads.captureLead(tenant.id, body);
    response.location(`/api/v1/leads/${lead.id}`);
    return { lead: toLeadResponse(lead) };
  }

  @Patch(':id')
  @RequireScopes(Scope.LeadsWrite)
  @ApiV1Endpoint({
    operationId: 'updateLead',
    summary: 'Move a lead along the status machine',
    scopes: [Scope.LeadsWrite],
    type: LeadEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.INVALID_STATUS_TRANSITION, ...BODY_ERRORS],
  })
  @ApiIdParam('id', 'Lead')
  async update(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Body() body: UpdateLeadDto, @Query() _query: NoQueryDto): Promise<LeadEnvelope> {
    return { lead: toLeadResponse(await this.leads.changeStatus(tenant.id, id, body.status)) };
  }
}
