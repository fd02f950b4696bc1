import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentSession, SignInStep, SignedIn } from '../common/access/access.decorators';
import { ErrorCode } from '../common/errors/error-codes';
import { IdOf } from '../common/validation/id.pipe';
import type { AppRequest, SessionContext } from '../common/http/request-context';
import { APP_CONFIG, type AppConfig } from '../config/env';
import { ApiAuthEndpoint, ApiIdParam, JSON_BODY_ERRORS } from '../openapi/openapi.decorators';
import { clientIp } from '../rate-limit/client-ip';
import { AuthService, type SignedIn as SignedInAccount } from './auth.service';
import { LogInDto, SignUpDto, UpdateMeDto } from './dto/auth.dto';
import { DeviceCookie } from './sessions/device-cookie';
import { clearSessionCookie, setSessionCookie } from './sessions/session-cookie';
import { SessionsService } from './sessions/sessions.service';
import { AccountResponse, SessionListResponse, toAccountResponse, toSessionResponse } from './users/user.mapper';

const originOf = (request: AppRequest) => ({ userAgent: request.header('user-agent') ?? null, ip: clientIp(request), requestId: request.id });

@Controller('auth/v1')
@ApiTags('Auth')
export class AuthController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly auth: AuthService,
    private readonly sessions: SessionsService,
    private readonly deviceCookie: DeviceCookie,
  ) {}

  @Post('signup')
  @HttpCode(201)
  @ApiAuthEndpoint({
    operationId: 'signUp',
    summary: 'Sign up: a new tenant on Free with you as its owner, and a session',
    description:
      "A common password, or one holding the e-mail's local part, is refused (400 on `password`). Per client address (IPv6: its /64): 5 sign-ups a day, and 10 sign-ups, resets and invitation accepts a minute (429).",
    status: 201,
    type: AccountResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.EMAIL_TAKEN, ErrorCode.SIGNUP_CLOSED, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @SignInStep()
  async signUp(@Body() body: SignUpDto, @Req() request: AppRequest, @Res({ passthrough: true }) response: Response): Promise<AccountResponse> {
    return this.signedIn(request, response, await this.auth.signUp(body, originOf(request)));
  }

  @Post('sessions')
  @HttpCode(201)
  @ApiAuthEndpoint({
    operationId: 'logIn',
    summary: 'Log in: sets the svc_session and svc_device cookies',
    description:
      'An unknown e-mail and a wrong password get the same 401, in the same time. Failed log-ins are throttled per address, per e-mail and address, and per e-mail (429 with `Retry-After`, checked before the password); a browser holding the `svc_device` cookie (HttpOnly, 90 days) that an earlier log-in with this e-mail set is spared the per-e-mail limit.',
    status: 201,
    type: AccountResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.INVALID_CREDENTIALS, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @SignInStep()
  async logIn(@Body() body: LogInDto, @Req() request: AppRequest, @Res({ passthrough: true }) response: Response): Promise<AccountResponse> {
    const signedIn = await this.auth.logIn(body, originOf(request), this.deviceCookie.vouchesFor(request, body.email));
    // The browser has proven the password: it is spared this e-mail's per-e-mail limit from now on.
    this.deviceCookie.set(request, response, signedIn.user.email);
    return this.signedIn(request, response, signedIn);
  }

  @Get('me')
  @ApiAuthEndpoint({ operationId: 'getMe', summary: 'The signed-in user and their memberships', type: AccountResponse })
  @SignedIn()
  async me(@CurrentSession() session: SessionContext): Promise<AccountResponse> {
    const { user, memberships } = await this.auth.account(session);
    return toAccountResponse(user, memberships);
  }

  @Patch('me')
  @ApiAuthEndpoint({
    operationId: 'updateMe',
    summary: 'Change your name or password',
    description:
      "`currentPassword` is required. A new password ends every other session of yours and every outstanding reset link; a common one, or one holding your e-mail's local part, is refused (400 on `password`).",
    type: AccountResponse,
    errors: [...JSON_BODY_ERRORS, ErrorCode.RATE_LIMIT_EXCEEDED],
  })
  @SignedIn()
  async updateMe(@CurrentSession() session: SessionContext, @Body() body: UpdateMeDto, @Req() request: Request): Promise<AccountResponse> {
    const trustedDevice = this.deviceCookie.vouchesFor(request, session.user.email);
    const { user, memberships } = await this.auth.updateAccount(session, body, clientIp(request), trustedDevice);
    return toAccountResponse(user, memberships);
  }

  @Get('sessions')
  @ApiAuthEndpoint({ operationId: 'listSessions', summary: 'Your sessions (signed-in browsers), newest first', type: SessionListResponse })
  @SignedIn()
  async listSessions(@CurrentSession() session: SessionContext): Promise<SessionListResponse> {
    return { sessions: (await this.sessions.list(session.user.id)).map((row) => toSessionResponse(row, session.sessionId)) };
  }

  @Delete('sessions/current')
  @HttpCode(204)
  @ApiAuthEndpoint({ operationId: 'logOut', summary: 'Log out: ends this session and clears the cookie', status: 204 })
  @SignedIn()
  async logOut(@CurrentSession() session: SessionContext, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    await this.sessions.end(session.user.id, session.sessionId);
    clearSessionCookie(request, response, this.config.production);
  }

  @Delete('sessions/:id')
  @HttpCode(204)
  @ApiAuthEndpoint({
    operationId: 'endSession',
    summary: 'End one of your sessions',
    description: 'Refused on every instance within a second.',
    status: 204,
    errors: [ErrorCode.NOT_FOUND],
  })
  @SignedIn()
  @ApiIdParam('id', 'Session')
  async endSession(@CurrentSession() session: SessionContext, @Param('id', IdOf('Session')) id: string): Promise<void> {
    await this.sessions.end(session.user.id, id);
  }

  private signedIn(request: Request, response: Response, { user, memberships, token }: SignedInAccount): AccountResponse {
    setSessionCookie(request, response, token, this.config.production);
    return toAccountResponse(user, memberships);
  }
}
