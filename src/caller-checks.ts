import type { Provider } from '@nestjs/common';
import { PermissionGuard } from './accounts/permission.guard';
import { SessionGuard } from './accounts/sessions/session.guard';
import { TenantMembershipGuard } from './accounts/tenant-membership.guard';
import { CALLER_CHECKS, type CallerChecks } from './common/access/access-rule.guard';
import { SameOriginGuard } from './common/http/same-origin.guard';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { UserRateLimitGuard } from './rate-limit/user-rate-limit.guard';
import { AdminTokenGuard } from './tenancy/admin-token.guard';
import { ApiKeyGuard } from './tenancy/api-keys/api-key.guard';
import { WidgetOriginGuard } from './widget/widget-origin.guard';
import { VisitorTokenGuard } from './widget/visitor-token.guard';
import { PlanGuard } from './tenancy/plan.guard';

/**
 * What each kind of caller must pass, in the contract's order (API_DECISIONS, Order of checks;
 * part 3, for users): key (401), plan (403), rate limit (429), permission (403: scopes); a user's
 * session (401), CSRF (403), membership (400, 403), rate limit (429), permission (403: role). The
 * transport rule runs before all of them (httpsOnlyMiddleware) and the body is read after them
 * (JsonBodyGuard). What a key or a member may do is decided in one place, PermissionGuard; the
 * other checks establish who the caller is and the limits they meet. A new kind of caller is a new
 * access decorator, its checks, and one line here.
 */
export const callerChecksProvider: Provider = {
  provide: CALLER_CHECKS,
  inject: [
    ApiKeyGuard,
    AdminTokenGuard,
    PlanGuard,
    PlanThrottlerGuard,
    PermissionGuard,
    WidgetOriginGuard,
    SessionGuard,
    SameOriginGuard,
    TenantMembershipGuard,
    UserRateLimitGuard,
    VisitorTokenGuard,
  ],
  useFactory: (
    apiKey: ApiKeyGuard,
    adminToken: AdminTokenGuard,
    plan: PlanGuard,
    rateLimit: PlanThrottlerGuard,
    permission: PermissionGuard,
    widgetOrigin: WidgetOriginGuard,
    session: SessionGuard,
    sameOrigin: SameOriginGuard,
    membership: TenantMembershipGuard,
    userRateLimit: UserRateLimitGuard,
    visitorToken: VisitorTokenGuard,
  ): CallerChecks => ({
    public: [],
    admin: [adminToken],
    apiKey: [apiKey, plan, rateLimit, permission],
    // A public key's requests are limited per client IP (PlanThrottlerGuard), never on the tenant's quota.
    // No plan check: the widget is the product itself, on every plan (Free included, with its message limit).
    // The permission check refuses a secret key here (a widget route takes public keys only).
    widget: [apiKey, rateLimit, permission, widgetOrigin],
    // The widget's checks, then the visitor's token (X-Visitor-Token), which attaches the visitor.
    visitor: [apiKey, rateLimit, permission, widgetOrigin, visitorToken],
    // A user: the dashboard works on every plan, but a capability the plan grants (@PaidFeature) is
    // refused on Free, after the role; and a limit of their own, not the tenant's quota.
    user: [session, sameOrigin, membership, userRateLimit, permission, plan],
    // A valid key on a users-only route: 401 for a bad key first, then 403 (the permission check).
    keyOnUserRoute: [apiKey, permission],
    session: [session, sameOrigin],
    signIn: [sameOrigin],
  }),
};
