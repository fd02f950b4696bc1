import type { Provider } from '@nestjs/common';
import { KeyOnUserRouteGuard } from './accounts/key-on-user-route.guard';
import { RoleGuard } from './accounts/role.guard';
import { SessionGuard } from './accounts/sessions/session.guard';
import { TenantMembershipGuard } from './accounts/tenant-membership.guard';
import { CALLER_CHECKS, type CallerChecks } from './common/access/access-rule.guard';
import { SameOriginGuard } from './common/http/same-origin.guard';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { UserRateLimitGuard } from './rate-limit/user-rate-limit.guard';
import { AdminTokenGuard } from './tenancy/admin-token.guard';
import { ApiKeyGuard } from './tenancy/api-keys/api-key.guard';
import { ScopesGuard } from './tenancy/api-keys/scopes.guard';
import { WidgetKeyGuard } from './tenancy/api-keys/widget-key.guard';
import { WidgetOriginGuard } from './widget/widget-origin.guard';
import { VisitorTokenGuard } from './widget/visitor-token.guard';
import { PlanGuard } from './tenancy/plan.guard';

/**
 * What each kind of caller must pass, in the contract's order (API_DECISIONS, Order of checks;
 * part 3, for users): key (401), plan (403), rate limit (429), scope (403); a user's session (401),
 * CSRF (403), membership (400, 403), rate limit (429), role (403). The transport rule runs before
 * all of them (httpsOnlyMiddleware) and the body is read after them (JsonBodyGuard). A new kind of
 * caller is a new access decorator, its guard, and one line here.
 */
export const callerChecksProvider: Provider = {
  provide: CALLER_CHECKS,
  inject: [
    ApiKeyGuard,
    AdminTokenGuard,
    PlanGuard,
    PlanThrottlerGuard,
    ScopesGuard,
    WidgetKeyGuard,
    WidgetOriginGuard,
    SessionGuard,
    SameOriginGuard,
    TenantMembershipGuard,
    UserRateLimitGuard,
    RoleGuard,
    KeyOnUserRouteGuard,
    VisitorTokenGuard,
  ],
  useFactory: (
    apiKey: ApiKeyGuard,
    adminToken: AdminTokenGuard,
    plan: PlanGuard,
    rateLimit: PlanThrottlerGuard,
    scopes: ScopesGuard,
    widgetKey: WidgetKeyGuard,
    widgetOrigin: WidgetOriginGuard,
    session: SessionGuard,
    sameOrigin: SameOriginGuard,
    membership: TenantMembershipGuard,
    userRateLimit: UserRateLimitGuard,
    role: RoleGuard,
    keyOnUserRoute: KeyOnUserRouteGuard,
    visitorToken: VisitorTokenGuard,
  ): CallerChecks => ({
    public: [],
    admin: [adminToken],
    apiKey: [apiKey, plan, rateLimit, scopes],
    // A public key's requests are limited per client IP (PlanThrottlerGuard), never on the tenant's quota.
    // No plan check: the widget is the product itself, on every plan (Free included, with its message limit).
    widget: [apiKey, rateLimit, widgetKey, widgetOrigin],
    // The widget's checks, then the visitor's token (X-Visitor-Token), which attaches the visitor.
    visitor: [apiKey, rateLimit, widgetKey, widgetOrigin, visitorToken],
    // A user: the dashboard works on every plan, but a capability the plan grants (@PaidFeature) is
    // refused on Free, after the role; and a limit of their own, not the tenant's quota.
    user: [session, sameOrigin, membership, userRateLimit, role, plan],
    // A valid key on a users-only route: 401 for a bad key first, then 403.
    keyOnUserRoute: [apiKey, keyOnUserRoute],
    session: [session, sameOrigin],
    signIn: [sameOrigin],
  }),
};
