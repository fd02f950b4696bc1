import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendRecorded } from '../idempotency/idempotent-response';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint, ApiV1NoContent, headerRef, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { NoQueryDto, toPage } from '../common/paging/pagination';
import { Scope } from '../common/access/scopes';
import { CreateLeadDto } from './dto/create-lead.dto';
import { ListLeadsQueryDto } from './dto/list-leads.query';
import { UpdateLeadDto } from './dto/update-lead.dto';
import { LeadEnvelope, LeadListResponse, toLeadResponse } from './lead.mapper';
import { LeadsService } from './leads.service';

@Controller('api/v1/leads')
@ApiTags('Leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @ApiV1Endpoint({ operationId: 'listLeads', summary: 'List leads, newest first', scopes: [Scope.LeadsRead], type: LeadListResponse })
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListLeadsQueryDto): Promise<LeadListResponse> {
    const { leads, pagination } = await this.leads.listLeads(tenant.id, query, toPage(query));
    return { leads: leads.map(toLeadResponse), pagination };
  }

  @Get(':id')
  @ApiV1Endpoint({ operationId: 'getLead', summary: 'Get a lead', scopes: [Scope.LeadsRead], type: LeadEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @ApiIdParam('id', 'Lead')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id') id: string, @Query() _query: NoQueryDto): Promise<LeadEnvelope> {
    return { lead: toLeadResponse(await this.leads.getLead(tenant.id, id)) };
  }

  @Post()
  @HttpCode(201)
  @ApiV1Endpoint({
    operationId: 'createLead',
    summary: 'Create a lead',
    description: [
      'The lead gets source `api`, status `new` and no conversation. Strings are trimmed.',
      'With an `Idempotency-Key`, a retry within 24 hours with the same key and the same request (compared after validation and trimming) ' +
        'creates nothing and gets the first answer again (status, body and `Location`) with `Idempotent-Replayed: true`. ' +
        'The same key with a different request is 409 `IDEMPOTENCY_KEY_REUSED`; while the first request is still being processed, 409 `IDEMPOTENCY_KEY_IN_USE`. ' +
        'Failed requests are not stored: the key may be retried.',
    ].join('\n\n'),
    scopes: [Scope.LeadsWrite],
    status: 201,
    type: LeadEnvelope,
    headers: { Location: headerRef('Location'), 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    errors: [...JSON_BODY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  })
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'A unique key per lead to create (a UUID is a good choice), so that the request can be retried safely. Scoped to the tenant, kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })
  async create(
    @Principal() { tenant }: ApiPrincipal,
    @Body() body: CreateLeadDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Query() _query: NoQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LeadEnvelope> {
    return sendRecorded(response, await this.leads.createLead(tenant.id, body, idempotencyKey));
  }

  @Patch(':id')
  @ApiV1Endpoint({
    operationId: 'updateLead',
    summary: 'Move a lead along the status machine',
    description:
      'Answers 200 with the lead when the key also has `leads:read`, otherwise 204 without a body: a write-only key never reads lead data ' +
      '(nor the current status, from a 409).',
    scopes: [Scope.LeadsWrite],
    type: LeadEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.INVALID_STATUS_TRANSITION, ...JSON_BODY_ERRORS],
  })
  @ApiV1NoContent('Success, for a key without `leads:read`: no body.')
  @ApiIdParam('id', 'Lead')
  async update(
    @Principal() { tenant, apiKey }: ApiPrincipal,
    @Param('id') id: string,
    @Body() body: UpdateLeadDto,
    @Query() _query: NoQueryDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LeadEnvelope | undefined> {
    const canRead = apiKey.scopes.includes(Scope.LeadsRead);
    const lead = await this.leads.changeStatus(tenant.id, id, body.status, { canRead });
    if (canRead) return { lead: toLeadResponse(lead) };
    response.status(204);
    return undefined;
  }
}
