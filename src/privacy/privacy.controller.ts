import { IdOf } from '../common/validation/id.pipe';
import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Principal, RequireScopes } from '../common/access/access.decorators';
import { Scope } from '../common/access/scopes';
import { ErrorCode } from '../common/errors/error-codes';
import type { ApiPrincipal } from '../common/http/request-context';
import { type Actor, CurrentActor } from '../events/actor';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKey } from '../idempotency/idempotency-key.decorator';
import { sendRecorded } from '../idempotency/idempotent-response';
import { ApiIdParam, ApiV1Endpoint, headerRef, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { PersonDto } from './dto/person.dto';
import { ErasureEnvelope, PersonExportResponse, toErasureResponse } from './privacy.mapper';
import { PrivacyService } from './privacy.service';

@Controller('api/v1/privacy')
@ApiTags('Privacy')
export class PrivacyController {
  constructor(private readonly privacy: PrivacyService) {}

  @Post('exports')
  @HttpCode(200)
  @ApiV1Endpoint({
    operationId: 'exportPerson',
    summary: "Export a person's data",
    description:
      'Everything the tenant holds on one person, named by `email` or `visitorId` (exactly one): their leads (e-mail compared case-insensitively), the conversations ' +
      'those leads came from, every conversation of the visitors of those conversations, and the leads captured in them; each conversation with its messages.',
    type: PersonExportResponse,
    errors: [...JSON_BODY_ERRORS],
  })
  @RequireScopes(Scope.PrivacyManage)
  exportPerson(@Principal() { tenant }: ApiPrincipal, @Body() body: PersonDto, @CurrentActor() actor: Actor): Promise<PersonExportResponse> {
    return this.privacy.exportPerson(tenant.id, body, actor);
  }

  @Post('erasures')
  @HttpCode(202)
  @ApiV1Endpoint({
    operationId: 'requestErasure',
    summary: "Erase a person's data",
    description:
      'Finds the person as an export does and queues the erasure: a background worker deletes their leads, conversations and messages, and removes their values ' +
      'from stored webhook payloads and answers, idempotency records (a retry of an old create is then 410 `IDEMPOTENCY_RECORD_ERASED`) and audit values ' +
      '(the action stays). `counts` is what was found; `status` turns `completed` within seconds. `Idempotency-Key` works as on `POST /api/v1/leads`.',
    status: 202,
    type: ErasureEnvelope,
    headers: { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') },
    errors: [...JSON_BODY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_KEY_IN_USE],
  })
  @RequireScopes(Scope.PrivacyManage)
  @ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    description: 'A unique key per erasure request, so that it can be retried safely. Scoped to the tenant, kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })
  async requestErasure(
    @Principal() { tenant }: ApiPrincipal,
    @Body() body: PersonDto,
    @IdempotencyKey() idempotencyKey: string | undefined,
    @CurrentActor() actor: Actor,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ErasureEnvelope> {
    return sendRecorded(response, await this.privacy.requestErasure(tenant.id, body, actor, idempotencyKey));
  }

  @Get('erasures/:id')
  @ApiV1Endpoint({ operationId: 'getErasure', summary: 'Get an erasure and its status', type: ErasureEnvelope, errors: [ErrorCode.NOT_FOUND] })
  @RequireScopes(Scope.PrivacyManage)
  @ApiIdParam('id', 'Erasure')
  async getErasure(@Principal() { tenant }: ApiPrincipal, @Param('id', IdOf('Erasure')) id: string): Promise<ErasureEnvelope> {
    return { erasure: toErasureResponse(await this.privacy.getErasure(tenant.id, id)) };
  }
}
