import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Principal, UsersOnly } from '../../common/access/access.decorators';
import { ErrorCode } from '../../common/errors/error-codes';
import type { UserPrincipal } from '../../common/http/request-context';
import { IdOf } from '../../common/validation/id.pipe';
import { CurrentActor, type Actor } from '../../events/actor';
import { ApiIdParam, ApiUserEndpoint, JSON_BODY_ERRORS } from '../../openapi/openapi.decorators';
import { RemoveMemberQueryDto, UpdateMemberDto } from '../dto/auth.dto';
import { MemberEnvelope, MemberListResponse, toMemberResponse } from './member.mapper';
import { MembersService } from './members.service';

@Controller('api/v1/members')
@ApiTags('Tenant')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @ApiUserEndpoint({ operationId: 'listMembers', summary: "The tenant's members and their roles", type: MemberListResponse })
  @UsersOnly('member')
  async list(@Principal() { tenant }: UserPrincipal): Promise<MemberListResponse> {
    return { members: (await this.members.list(tenant.id)).map(toMemberResponse) };
  }

  @Patch(':userId')
  @ApiUserEndpoint({
    operationId: 'changeMemberRole',
    summary: "Change a member's role",
    description:
      'Admins manage members who are not owners and cannot make owners (403 `INSUFFICIENT_ROLE`). The last owner cannot be demoted (409 `LAST_OWNER`). A demotion deletes the invitations the member sent that are still pending.',
    type: MemberEnvelope,
    errors: [...JSON_BODY_ERRORS, ErrorCode.NOT_FOUND, ErrorCode.LAST_OWNER],
  })
  @UsersOnly('manager')
  @ApiIdParam('userId', 'User')
  async changeRole(
    @Principal() caller: UserPrincipal,
    @Param('userId', IdOf('Member')) userId: string,
    @Body() body: UpdateMemberDto,
    @CurrentActor() actor: Actor,
  ): Promise<MemberEnvelope> {
    return { member: toMemberResponse(await this.members.changeRole(caller, userId, body.role, actor)) };
  }

  @Delete(':userId')
  @HttpCode(204)
  @ApiUserEndpoint({
    operationId: 'removeMember',
    summary: 'Remove a member, or leave the tenant',
    description:
      'Anyone may remove themselves; removing another member needs owner or admin (admins cannot remove owners). The last owner cannot leave (409 `LAST_OWNER`). The invitations the member sent that are still pending are deleted; with `revokeKeys=true`, so are the API keys they created in this tenant.',
    status: 204,
    errors: [ErrorCode.VALIDATION_ERROR, ErrorCode.NOT_FOUND, ErrorCode.LAST_OWNER],
  })
  @UsersOnly('member')
  @ApiIdParam('userId', 'User')
  async remove(
    @Principal() caller: UserPrincipal,
    @Param('userId', IdOf('Member')) userId: string,
    @Query() query: RemoveMemberQueryDto,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.members.remove(caller, userId, actor, query.revokeKeys ?? false);
  }
}
