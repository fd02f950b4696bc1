import { Injectable } from '@nestjs/common';
import type { AccessCheck } from '../common/access/access-rule.guard';
import { InsufficientScopeError } from '../common/errors/app-error';

/** A valid key on a users-only route (members, invitations, keys...): 403, as for a scope it cannot hold. */
@Injectable()
export class KeyOnUserRouteGuard implements AccessCheck {
  canActivate(): boolean {
    throw new InsufficientScopeError("This endpoint is for the dashboard's signed-in users; API keys cannot call it.");
  }
}
