import { PLANS, type Plan } from '../tenancy/plans';
import type { TenantSettingsRow } from './settings.repository';

/** The plan's default for widgetLimits.repliesPerDay: a tenth of its monthly messages, rounded up. */
export const defaultWidgetRepliesPerDay = (plan: Plan): number => Math.ceil(PLANS[plan].messagesLimit / 10);

/**
 * The widget's replies a day for the whole tenant: the tenant's setting, or the plan's default;
 * never more than the plan's month (a setting made on a larger plan shrinks with a downgrade).
 */
export function widgetRepliesPerDay(settings: Pick<TenantSettingsRow, 'widgetRepliesPerDay'>, plan: Plan): number {
  return Math.min(settings.widgetRepliesPerDay ?? defaultWidgetRepliesPerDay(plan), PLANS[plan].messagesLimit);
}
