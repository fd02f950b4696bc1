import type { Provider } from '@nestjs/common';
import { CALLER_CHECKS, type CallerChecks } from './common/access/access-rule.guard';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { AdminTokenGuard } from './tenancy/admin-token.guard';
import { ApiKeyGuard } from './tenancy/api-keys/api-key.guard';
import { ScopesGuard } from './tenancy/api-keys/scopes.guard';
import { WidgetKeyGuard } from './tenancy/api-keys/widget-key.guard';
import { WidgetOriginGuard } from './widget/widget-origin.guard';
import { VisitorTokenGuard } from './widget/visitor-token.guard';
import { PlanGuard } from './tenancy/plan.guard';

/**
 * What each kind of caller must pass, in the contract's order (API_DECISIONS, Order of checks):
 * key (401), plan (403), rate limit (429), scope (403). The transport rule runs before all of
 * them (httpsOnlyMiddleware) and the body is read after them (JsonBodyGuard). A new kind of
 * caller is a new access decorator, its guard, and one line here.
 */
export const callerChecksProvider: Provider = {
  provide: CALLER_CHECKS,
  inject: [ApiKeyGuard, AdminTokenGuard, PlanGuard, PlanThrottlerGuard, ScopesGuard, WidgetKeyGuard, WidgetOriginGuard, VisitorTokenGuard],
  useFactory: (apiKey: ApiKeyGuard, adminToken: AdminTokenGuard, plan: PlanGuard, rateLimit: PlanThrottlerGuard, scopes: ScopesGuard, widgetKey: WidgetKeyGuard, widgetOrigin: WidgetOriginGuard, visitorToken: VisitorTokenGuard): CallerChecks => ({
    public: [],
    admin: [adminToken],
    apiKey: [apiKey, plan, rateLimit, scopes],
    // A public key's requests are limited per client IP (PlanThrottlerGuard), never on the tenant's quota.
    // No plan check: the widget is the product itself, on every plan (Free included, with its message limit).
    widget: [apiKey, rateLimit, widgetKey, widgetOrigin],
    // The widget's checks, then the visitor's token (X-Visitor-Token), which attaches the visitor.
    visitor: [apiKey, rateLimit, widgetKey, widgetOrigin, visitorToken],
  }),
};
