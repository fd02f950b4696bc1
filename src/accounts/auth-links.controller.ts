import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorCode } from '../common/errors/error-codes';
import type { AppRequest } from '../common/http/request-context';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { SignInStep } from '../common/access/access.decorators';
import { ApiAuthEndpoint, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { clientIp } from '../rate-limit/client-ip';
import { AcceptInvitationDto, PasswordResetConfirmDto, PasswordResetRequestDto } from './dto/auth.dto';
import { InvitationsService } from './invitations/invitations.service';
import { passwordResetUrl } from './links';
import { PasswordResetsService } from './password-resets/password-resets.service';
import { sessionTokenOf, setSessionCookie } from './sessions/session-cookie';
import { SessionsService } from './sessions/sessions.service';
import { AccountResponse, toAccountResponse } from './users/user.mapper';

/** The /auth/v1 steps that start from a link: accepting an invitation, resetting a password. */
@Controller('auth/v1')
@ApiTags('Auth')
export class AuthLinksController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly invitations: InvitationsService,
    private readonly resets: PasswordResetsService,
    private readonly sessions: SessionsService,
  ) {}

  @Post('invitations/accept')
  @HttpCode(201)
  @ApiAuthEndpoint({
    operationId: 'acceptInvitation',
    summary: 'Accept an invitation: join the tenant, and get a session',
    description:
      "Signed in as the invited e-mail: the membership is added. Otherwise a new user is created from `name` and `password` (a common password, or one holding the e-mail's local part, is refused: 400 on `password`); an e-mail that already has a user must sign in first (409 `EMAIL_TAKEN`). Used, withdrawn or expired: 410. Sign-ups, resets and invitation accepts: 10 a minute per client address (429).",
    status: 201,
    type: AccountResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.INVITATION_EXPIRED, ErrorCode.EMAIL_TAKEN, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @SignInStep()
  async accept(@Body() body: AcceptInvitationDto, @Req() request: AppRequest, @Res({ passthrough: true }) response: Response): Promise<AccountResponse> {
    const session = await this.sessions.authenticate(sessionTokenOf(request)).catch(() => undefined);
    const origin = { userAgent: request.header('user-agent') ?? null, ip: clientIp(request), requestId: request.id };
    const { user, memberships, token } = await this.invitations.accept(body.token, body, session, origin);
    setSessionCookie(request, response, token, this.config.production);
    return toAccountResponse(user, memberships);
  }

  @Post('password-resets')
  @HttpCode(202)
  @ApiAuthEndpoint({
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password-reset link',
    description:
      'Always 202, whether the e-mail has a user or not. The link (single use, one hour) is mailed when the service has SMTP_URL; at most 3 a user an hour (past that, still 202, and no link is made).',
    status: 202,
    errors: JSON_BODY_ERRORS,
  })
  @SignInStep()
  async requestReset(@Body() body: PasswordResetRequestDto): Promise<void> {
    await this.resets.request(body.email, (token) => passwordResetUrl(this.config, token));
  }

  @Post('password-resets/confirm')
  @HttpCode(204)
  @ApiAuthEndpoint({
    operationId: 'confirmPasswordReset',
    summary: 'Set a new password with a reset token',
    description:
      "Every session of the user ends, and every other reset link of the user. A common password, or one holding the e-mail's local part, is refused (400 on `password`). Sign-ups, resets and invitation accepts: 10 a minute per client address (429).",
    status: 204,
    errors: [...JSON_BODY_ERRORS, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @SignInStep()
  async confirmReset(@Body() body: PasswordResetConfirmDto, @Req() request: AppRequest): Promise<void> {
    await this.resets.confirm(body.token, body.password, clientIp(request));
  }
}
