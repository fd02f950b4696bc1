import { ExecutionContext, Injectable } from '@nestjs/common';
import type { AccessCheck } from '../../common/access/access-rule.guard';
import type { AppRequest } from '../../common/http/request-context';
import { sessionTokenOf } from './session-cookie';
import { SessionsService } from './sessions.service';

/** A user's first check: the svc_session cookie names a live session (401 INVALID_SESSION otherwise). */
@Injectable()
export class SessionGuard implements AccessCheck {
  constructor(private readonly sessions: SessionsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AppRequest>();
    request.session = await this.sessions.authenticate(sessionTokenOf(request));
    return true;
  }
}
