import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { type Actor, CurrentActor } from '../events/actor';
import { BodyLimit } from '../common/http/json-body.guard';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendRecorded } from '../idempotency/idempotent-response';
import type { ApiPrincipal } from '../common/http/request-context';
import { ApiIdParam, ApiV1Endpoint, ApiV1NoContent, headerRef, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { toPage } from '../common/paging/pagination';
import { holdsScopes, Scope } from '../common/access/scopes';
import { CreateLeadDto } from './dto/create-lead.dto';
import { ExportLeadsQueryDto } from './dto/export-leads.query';
import { ImportLeadsDto } from './dto/import-leads.dto';
import { ListLeadsQueryDto } from './dto/list-leads.query';
import { UpdateLeadDto } from './dto/update-lead.dto';
import { leadCsvStringifier, toLeadCsvRecord } from './lead-csv';
import { ImportLeadsResponse, LeadEnvelope, LeadListResponse, toLeadResponse } from './lead.mapper';
import type { LeadRow } from './leads.repository';
import { LeadsService } from './leads.service';
import { PaidFeature } from '../tenancy/plan.guard';
import { IdOf } from '../common/validation/id.pipe';

/** Up to 1,000 leads of up to ~4 KB each. */
const IMPORT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

@Controller('api/v1/leads')
@ApiTags('Leads')
export class LeadsController {
  constructor(private readonly leads: LeadsService) {}

  @Get()
  @ApiV1Endpoint({ operationId: 'listLeads', summary: 'List leads, newest first', type: LeadListResponse })
  @RequireScopes(Scope.LeadsRead)
  async list(@Principal() { tenant }: ApiPrincipal, @Query() query: ListLeadsQueryDto): Promise<LeadListResponse> {
    const { leads, pagination } = await this.leads.listLeads(tenant.id, query, toPage(query));
    return { leads: leads.map(toLeadResponse), pagination };
  }

  @Get('export')
  @ApiV1Endpoint({
    operationId: 'exportLeads',
    summary: 'Export leads as CSV',
    description:
      'The leads matching the filters of `GET /api/v1/leads` (no `limit` or `offset`), newest first, streamed as CSV (RFC 4180, CRLF line ends) with a header row ' +
      'of the Lead fields; every cell holding `"`, `,`, `;`, CR or LF is quoted; null is an empty cell. `tags` are joined by `; `, each tag escaped and quoted ' +
      'like a cell (`["bulk","a;b"]` is `bulk; "a;b"`). A formula character (`=`, `+`, `-`, `@`, tab or CR) at the start of a cell or right after a `;` or `,` ' +
      "is prefixed with `'` (spreadsheet formula injection). Any number of leads, in constant memory.",
    produces: 'text/csv',
  })
  @RequireScopes(Scope.LeadsRead)
  async export(@Principal() { tenant }: ApiPrincipal, @Query() query: ExportLeadsQueryDto, @Res() response: Response): Promise<void> {
    const leads = await this.leads.exportLeads(tenant.id, query);
    response.status(200).setHeader('Content-Type', 'text/csv; charset=utf-8');
    response.setHeader('Content-Disposition', 'attachment; filename="leads.csv"');
    // A failure after the first bytes can only cut the file: pipeline then destroys the response,
    // so the client sees a broken transfer rather than a short file that looks complete.
    await pipeline(
      Readable.from(leads),
      new Transform({ objectMode: true, transform: (lead: LeadRow, _encoding, done) => done(null, toLeadCsvRecord(toLeadResponse(lead))) }),
      leadCsvStringifier(),
      response,
    ).catch(() => undefined);
  }

  @Get(':id')
  @ApiV1Endpoint({ operationId: 'getLead', summary: 'Get a lead', type: LeadEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @RequireScopes(Scope.LeadsRead)
  @ApiIdParam('id', 'Lead')
  async get(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Lead')) id: string): Promise<LeadEnvelope> {
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
    status: 201,
    type: LeadEnvelope,
    headers: { Location: headerRef('Location'), 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    errors: [...JSON_BODY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  })
  @RequireScopes(Scope.LeadsWrite)
  // A written example: the one generated from the schema has a placeholder botId, which no tenant
  // has, so "Try it out" answered 400. Without botId it succeeds for any tenant.
  @ApiBody({
    type: CreateLeadDto,
    examples: {
      lead: {
        summary: 'A lead without a bot',
        value: {
          name: 'Jane Doe',
          email: 'jane@example.com',
          phone: '+1 555 0100',
          company: 'Acme Inc.',
          message: 'Please call me about the Pro plan.',
          tags: ['website'],
        },
      },
    },
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
    @Res({ passthrough: true }) response: Response,
  ): Promise<LeadEnvelope> {
    return sendRecorded(response, await this.leads.createLead(tenant.id, body, idempotencyKey));
  }

  @Patch(':id')
  @ApiV1Endpoint({
    operationId: 'updateLead',
    summary: 'Update a lead',
    description: [
      'Any of `status`, `name`, `email`, `phone`, `company`, `message` and `tags`, with the rules of creation: `null` (or an empty string) clears `phone`, ' +
        '`company` and `message`; `tags` replaces the list. An empty body is 400. `status` moves along the status machine (409 `INVALID_STATUS_TRANSITION` otherwise, ' +
        'and then nothing changes). `updatedAt` moves, and a `lead.updated` event with `previousAttributes` is sent, only when a value changed.',
      'Answers 200 with the lead when the key also has `leads:read`, otherwise 204 without a body: a write-only key never reads lead data ' +
        '(nor the current status, from a 409).',
    ].join('\n\n'),
    type: LeadEnvelope,
    errors: [ErrorCode.NOT_FOUND, ErrorCode.INVALID_STATUS_TRANSITION, ...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.LeadsWrite)
  @ApiV1NoContent('Success, for a key without `leads:read`: no body.')
  @ApiIdParam('id', 'Lead')
  async update(
    @Principal() { tenant, scopes }: ApiPrincipal,
    @Param('id', IdOf('Lead')) id: string,
    @Body() body: UpdateLeadDto,
    @Res({ passthrough: true }) response: Response,
  ): Promise<LeadEnvelope | undefined> {
    const canRead = holdsScopes(scopes, Scope.LeadsRead);
    const lead = await this.leads.updateLead(tenant.id, id, body, { canRead });
    if (canRead) return { lead: toLeadResponse(lead) };
    response.status(204);
    return undefined;
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiV1Endpoint({
    operationId: 'deleteLead',
    summary: 'Delete a lead',
    description: 'The lead is deleted for good; lists, counts and analytics no longer include it. A `lead.deleted` event carries its `id` only.',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @RequireScopes(Scope.LeadsWrite)
  @ApiIdParam('id', 'Lead')
  async delete(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Lead')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.leads.deleteLead(tenant.id, id, actor);
  }

  @Post('import')
  @HttpCode(201)
  @BodyLimit(IMPORT_BODY_LIMIT_BYTES)
  @PaidFeature('Importing leads')
  @ApiV1Endpoint({
    operationId: 'importLeads',
    summary: 'Import up to 1,000 leads at once',
    description: [
      'Each entry as the body of `POST /api/v1/leads`; the leads get source `import`. All or nothing: any invalid entry is a 400 whose details name it ' +
        '(`leads[17].email`), and nothing is stored. The body may be up to 4 MiB (other routes: 64 KiB).',
      'The answer lists the leads, in the order sent, when the key also has `leads:read`; otherwise only their number. ' +
        '`Idempotency-Key` works as on `POST /api/v1/leads`. Needs the Pro plan or higher, for users too (403 `PLAN_UPGRADE_REQUIRED`).',
    ].join('\n\n'),
    status: 201,
    type: ImportLeadsResponse,
    headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    errors: [...JSON_BODY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  })
  @RequireScopes(Scope.LeadsWrite)
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'A unique key per import, so that the request can be retried safely. Scoped to the tenant, kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })
  async import(
    @Principal() { tenant, scopes }: ApiPrincipal,
    @Body() body: ImportLeadsDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ImportLeadsResponse> {
    const { imported, leads } = sendRecorded(response, await this.leads.importLeads(tenant.id, body.leads, idempotencyKey));
    return holdsScopes(scopes, Scope.LeadsRead) ? { imported, leads } : { imported };
  }
}
