import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../../common/access/access.decorators';
import { ErrorCode } from '../../common/errors/error-codes';
import type { UserPrincipal } from '../../common/http/request-context';
import { IdOf } from '../../common/validation/id.pipe';
import { APP_CONFIG, type AppConfig } from '../../config/env';
import { CurrentActor, type Actor } from '../../events/actor';
import { ApiIdParam, ApiUserEndpoint, JSON_BODY_ERRORS } from '../../openapi/openapi.decorators';
import { CreateInvitationDto } from '../dto/auth.dto';
import { acceptInvitationUrl } from '../links';
import { CreatedInvitationResponse, InvitationListResponse, toInvitationResponse } from './invitation.mapper';
import { InvitationsService } from './invitations.service';

@Controller('api/v1/invitations')
@ApiTags('Tenant')
export class InvitationsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly invitations: InvitationsService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiUserEndpoint({
    operationId: 'createInvitation',
    summary: 'Invite someone to the tenant',
    description:
      "`acceptUrl` is in this answer only (and mailed when the service has SMTP_URL; the mail quotes the tenant's name in its body, never in its subject); single use, valid 7 days. Only owners may invite owners. At most 20 invitations a day on Free, 200 on the other plans (429).",
    status: 201,
    type: CreatedInvitationResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.CONFLICT, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @UsersOnly('manager')
  async create(@Principal() caller: UserPrincipal, @Body() body: CreateInvitationDto, @CurrentActor() actor: Actor): Promise<CreatedInvitationResponse> {
    const { invitation, acceptUrl } = await this.invitations.invite(caller, body, actor, (token) => acceptInvitationUrl(this.config, token));
    return { invitation: toInvitationResponse(invitation), acceptUrl };
  }

  @Get()
  @ApiUserEndpoint({ operationId: 'listInvitations', summary: "The tenant's invitations, newest first", type: InvitationListResponse })
  @UsersOnly('manager')
  async list(@Principal() { tenant }: UserPrincipal): Promise<InvitationListResponse> {
    return { invitations: (await this.invitations.list(tenant.id)).map((row) => toInvitationResponse(row)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiUserEndpoint({
    operationId: 'deleteInvitation',
    summary: 'Withdraw an invitation',
    description: 'Its link is refused from now on (410), like a used one.',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @UsersOnly('manager')
  @ApiIdParam('id', 'Invitation')
  async delete(@Principal() { tenant }: UserPrincipal, @Param('id', IdOf('Invitation')) id: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.invitations.withdraw(tenant.id, id, actor);
  }
}
