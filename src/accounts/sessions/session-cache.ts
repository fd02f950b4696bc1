import { Injectable } from '@nestjs/common';
import { BriefLookupCache } from '../../common/cache/brief-lookup-cache';
import { InvalidationBus } from '../../invalidation/invalidation-bus';
import type { AuthenticatedSessionRow } from './sessions.repository';

/**
 * How long a verified session is trusted without asking the database. An ended session must be
 * refused on every instance within one second even when the invalidation message is lost (no
 * Redis, or Redis down): 800 ms leave the lookup that follows the lapse time to answer.
 */
export const SESSION_CACHE_TTL_MS = 800;

/**
 * Live sessions by token digest, for one second. Ending a session, a password change and a role
 * or membership change drop the user's entries on every instance (InvalidationBus.userChanged); a
 * tenant's rename or plan change drops the entries that carry it.
 */
@Injectable()
export class SessionCache extends BriefLookupCache<AuthenticatedSessionRow> {
  constructor(bus: InvalidationBus) {
    super(SESSION_CACHE_TTL_MS);
    bus.onUserChange((userId) => this.drop((row) => row.user.id === userId));
    bus.onChange((tenantId) => this.drop((row) => row.user.memberships.some((membership) => membership.tenant.id === tenantId)));
  }
}
